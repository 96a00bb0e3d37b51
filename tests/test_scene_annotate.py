"""`egoworld scene annotate` end to end against a 127.0.0.1 VLM that answers from a synthetic action scene's
exact final graph through a seeded noise model: every stage's file, the official shape, a malformed reply
retried (and one counted as failed), the agreement figures the noise implies, the cache on a rerun; then
`scene apply` of a review log and `build explore --scenes`."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image
from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.folders.files import read_json
from egoworld.scene_annotation.graph_agreement import COMPARED, final_graph, render_final
from egoworld.sim.actions.synth import ActionConfig, synth_action_scene
from egoworld.view.scene_review import SceneLog, apply_scene_log
from egoworld.world.scene_file import load_scene
from openai_test_server import FakeOpenAIServer, image_urls
from scene_vlm_server import SceneGraphVlm

pytestmark = pytest.mark.slow  # end to end: a synthetic scene, spaCy, two annotate runs (~35 s)

STAGE_FILES = (
    "tags.json",
    "filter.json",
    "boxes.json",
    "boxed_0.png",
    "attributes.json",
    "integrated.json",
    "scene.json",
    "end_frame_info.json",
    "report.json",
    "vlm.sqlite",
)


@pytest.fixture(scope="module")
def episode(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("scene")
    ep = synth_action_scene(
        root / "ep", "kitchen_a", 3, ActionConfig(n_actions=14, image_width=320, abnormal="none")
    )
    final = root / "final.png"
    Image.fromarray(render_final(ep)).save(final)
    actions = root / "actions.txt"
    actions.write_text(
        "\n".join(json.loads(line)["text"] for line in (ep / "actions.jsonl").read_text().splitlines())
    )
    return {"root": root, "ep": ep, "final": final, "actions": actions, "truth": final_graph(ep)}


@pytest.fixture(scope="module")
def annotated(episode) -> dict:
    w, h = Image.open(episode["final"]).size
    visible = [o for o in episode["truth"] if o.get("attributes", {}).get("visible") != "no"]
    once, always = visible[0]["id"], visible[1]["id"]
    vlm = SceneGraphVlm(
        episode["truth"], w, h, seed=7, miss=0.2, colour_flip=0.3, malformed={once: "once", always: "always"}
    )
    out = episode["root"] / "scene"
    with FakeOpenAIServer(reply=vlm) as srv:
        args = [
            "scene",
            "annotate",
            str(episode["final"]),
            "--initial",
            str(episode["ep"] / "initial.png"),
            "--actions",
            str(episode["actions"]),
            "--vlm",
            f"openai:scene-vlm,base_url={srv.base_url},max_retries=1",
            "--detector",
            "vlm",
            "--out",
            str(out),
            "--truth",
            str(episode["ep"]),
        ]
        first = CliRunner().invoke(app, args)
        bodies = list(srv.bodies)
        first_bytes = (out / "scene.json").read_bytes()
        first_report = read_json(out / "report.json")
        again = CliRunner().invoke(app, args)
        calls_again = len(srv.bodies) - len(bodies)
    return {
        "out": out,
        "vlm": vlm,
        "first": first,
        "again": again,
        "bodies": bodies,
        "calls_again": calls_again,
        "first_bytes": first_bytes,
        "first_report": first_report,
        "once": once,
        "always": always,
        "visible": visible,
        "size": (w, h),
    }


def test_every_stage_leaves_its_file_and_the_official_shape(annotated) -> None:
    out = annotated["out"]
    for name in STAGE_FILES:
        assert (out / name).is_file(), name
    official = read_json(out / "end_frame_info.json")
    assert official and all(set(o) <= {"category", "description", "relation", "key_state"} for o in official)
    assert all(isinstance(o["relation"], list) and o["description"] for o in official)
    tags = read_json(out / "tags.json")
    acts = annotated["out"].joinpath("scene.json").read_text()
    assert tags["actions"] and all(n in acts for n in tags["actions"])  # spaCy nouns of the actions
    assert "C" not in tags["actions"] and tags["vlm"][0]
    filt = read_json(out / "filter.json")["images"][0]
    assert {"tag": "hand", "reason": "body part or person"} in filt["rules_dropped"]
    boxes = read_json(out / "boxes.json")["images"][0]
    assert all("." in b["id"] for b in boxes)
    scene = load_scene(out)
    assert scene.initial_image == "images/initial.png" and (out / scene.initial_image).is_file()
    assert len(scene.actions) == 14


def test_the_server_received_the_images(annotated) -> None:
    w, h = annotated["size"]
    kinds = {"tags": 0, "boxes": 0, "attributes": 0}
    for body in annotated["bodies"]:
        text = json.dumps(body)
        urls = image_urls(body)
        assert len(urls) == 1
        img = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
        assert img.size == (w, h)
        if "List every distinct" in text:
            kinds["tags"] += 1
        elif "Detect every instance" in text:
            kinds["boxes"] += 1
        elif "Look at the object" in text:
            kinds["attributes"] += 1
    assert kinds["tags"] == 1 and kinds["boxes"] == 1 and kinds["attributes"] >= 3


def test_malformed_replies_are_retried_then_counted(annotated) -> None:
    assert annotated["first"].exit_code == 3, annotated["first"].output  # incomplete: one object failed
    assert "attributes 1" in annotated["first"].output
    report = annotated["first_report"]
    att = report["stages"]["attributes"]
    assert att["failed"] == 1 and att["invalid_replies"] == 1 + 3  # once: 1 bad reply; always: 3 attempts
    assert any(annotated["always"].replace("_", " ").split(" ")[0] in e for e in att["errors"])
    failed = [o for o in load_scene(annotated["out"]).objects if o["description"] == f"a {o['category']}"]
    assert len(failed) == 1  # kept, with its category as description, and listed in the notes
    assert any("attributes failed" in n for n in report["notes"])


def test_agreement_matches_the_noise_model(annotated) -> None:
    vlm, visible = annotated["vlm"], annotated["visible"]
    (line,) = [x for x in annotated["first"].output.splitlines() if x.startswith("{")]
    figures = json.loads(line)
    assert figures == read_json(annotated["out"] / "agreement.json")
    kept = [o for o in visible if o["id"] not in vlm.missed]
    assert vlm.missed and figures["object_recall"] == round(len(kept) / len(visible), 4)
    assert figures["object_precision"] == 1.0
    same = total = 0
    for o in kept:
        if o["id"] == annotated["always"]:
            continue
        keys = [k for k in COMPARED if k in o["attributes"] and k != "shape"]
        total += len(keys)
        same += len(keys) - (o["id"] in vlm.flipped and "colour" in keys)
    assert vlm.flipped and figures["attribute_agreement"] == round(same / total, 4)
    assert figures["attributes_compared"] == total
    assert 0.8 <= figures["relation_precision"] <= 1 and 0 < figures["relation_recall"] < 1
    # a flipped colour names the wrong instance ("next to the red cup") only where its category has a sibling
    categories = [o["category"] for o in kept]
    ambiguous = any(categories.count(o["category"]) > 1 for o in kept if o["id"] in vlm.flipped)
    if not ambiguous:  # no sibling to name by mistake: every relation the annotation states is true
        assert figures["relation_precision"] == 1.0


def test_without_noise_the_annotation_is_the_graph(episode, tmp_path) -> None:
    from egoworld.models.openai_compat import OpenAICompatModel
    from egoworld.scene_annotation.graph_agreement import compare_scene
    from egoworld.scene_annotation.pipeline import annotate_scene

    w, h = Image.open(episode["final"]).size
    vlm = SceneGraphVlm(episode["truth"], w, h)
    with FakeOpenAIServer(reply=vlm) as srv:
        model = OpenAICompatModel("scene-vlm", base_url=srv.base_url)
        report = annotate_scene(
            [episode["final"]], episode["actions"], tmp_path / "s", vlm=model, detector="vlm"
        )
    assert not report["failed"] and not report["notes"]
    f = compare_scene(load_scene(tmp_path / "s").objects, episode["truth"])
    assert f["object_recall"] == f["object_precision"] == f["attribute_agreement"] == 1.0
    visible = vlm.visible
    cats = [o["category"] for o in visible]
    # a relation names its object by category, with the colour when the image shows two of the category
    names = {
        o["category"] if cats.count(o["category"]) == 1 else f"{o['attributes']['colour']} {o['category']}"
        for o in visible
    }
    known = {*cats, *(f"{o['attributes'].get('colour')} {o['category']}" for o in visible)}
    rels = [r for o in visible for r in o["relations"]]
    said = [r for r in rels if r.endswith(" C") or r.split(" the ", 1)[-1] in known]
    same = [r for r in said if r.endswith(" C") or r.split(" the ", 1)[-1] in names]
    assert f["relation_recall"] == round(len(same) / len(rels), 4)
    # the graph's "the black knife", when the other knife is out of sight, is "the knife" in the image
    assert f["relation_precision"] == round(len(same) / len(said), 4)


def test_the_correction_pass_changes_what_it_corrects(annotated) -> None:
    vlm = annotated["vlm"]
    report = annotated["first_report"]
    assert vlm.corrected and report["corrections"]["changed"] == len(vlm.corrected)
    assert report["stages"]["correct"]["calls"] == 1
    truth = {o["id"]: o for o in vlm.visible}
    labels = vlm.labels()
    scene = load_scene(annotated["out"] / "scene.json")
    integrated = {o["id"]: o for o in read_json(annotated["out"] / "integrated.json")}
    for oid in vlm.corrected:
        assert scene.object(labels[oid])["description"] == truth[oid]["description"]
        assert integrated[labels[oid]]["description"] != truth[oid]["description"]


def test_rerun_uses_the_cache_and_writes_the_same_bytes(annotated) -> None:
    assert annotated["again"].exit_code == 3
    assert annotated["calls_again"] == 3  # only the failed object is asked again (3 attempts)
    att = read_json(annotated["out"] / "report.json")["stages"]["attributes"]
    assert att["calls"] == 3 and att["cached"] == len(read_json(annotated["out"] / "integrated.json")) - 1
    assert (annotated["out"] / "scene.json").read_bytes() == annotated["first_bytes"]


def test_scene_apply_and_build_explore_from_annotated_scenes(annotated, tmp_path) -> None:
    out = annotated["out"]
    scene = load_scene(out / "scene.json")
    a, b = scene.objects[0], scene.objects[1]
    from egoworld.core.folders.hashing import sha256_file

    log = SceneLog(out / "reviews" / "ana.sqlite", reviewer="ana", scene_hash=sha256_file(out / "scene.json"))
    log.add(a["id"], "edit", {"description": "a chipped blue bowl"})
    log.add(b["id"], "delete")
    log.add(
        "spoon.1", "add", {"category": "spoon", "description": "a steel spoon", "relation": ["on the table"]}
    )
    log.add(a["id"], "rel_add", {"text": "left of the kettle"})
    log.undo()  # takes back the relation just added
    log.close()
    res = CliRunner().invoke(app, ["scene", "apply", str(out / "reviews" / "ana.sqlite")])
    assert res.exit_code == 0, res.output
    fixed = load_scene(out / "corrected.json")
    ids = [o["id"] for o in fixed.objects]
    assert b["id"] not in ids and "spoon.1" in ids
    assert fixed.object(a["id"])["description"] == "a chipped blue bowl"
    assert "left of the kettle" not in fixed.object(a["id"])["relation"]
    assert fixed.extra["review"]["edited"] == 1 and fixed.extra["review"]["deleted"] == 1
    bench = tmp_path / "bench"
    res = CliRunner().invoke(app, ["build", "explore", "--scenes", str(out), "--out", str(bench)])
    assert res.exit_code == 0, res.output
    (sample,) = load_benchmark(bench).samples
    assert sample.answer["final"] == fixed.to_official()
    assert sample.question.split("|")[0] == scene.actions[0]
    assert (bench / sample.media.images[0].path).read_bytes() == (out / "images/initial.png").read_bytes()


def test_build_explore_refuses_an_uncorrected_scene(annotated, tmp_path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "scene.json").write_bytes((annotated["out"] / "scene.json").read_bytes())
    res = CliRunner().invoke(app, ["build", "explore", "--scenes", str(bare), "--out", str(tmp_path / "b")])
    assert res.exit_code == 2 and "scene apply" in res.output


def test_apply_refuses_a_log_of_another_scene(annotated, tmp_path) -> None:
    other = tmp_path / "other"
    (other / "reviews").mkdir(parents=True)
    data = read_json(annotated["out"] / "scene.json")
    data["objects"] = data["objects"][:1]
    (other / "scene.json").write_text(json.dumps(data))
    log = SceneLog(other / "reviews" / "x.sqlite", reviewer="x", scene_hash="0" * 64)
    log.close()
    with pytest.raises(ValueError, match="another version"):
        apply_scene_log(other / "reviews" / "x.sqlite")


def test_boxes_from_the_detector_interface(episode, tmp_path) -> None:
    """--detector file:PATH (any tool's detections JSONL through the perception stage's `Detector`)."""
    w, h = Image.open(episode["final"]).size
    vlm = SceneGraphVlm(episode["truth"], w, h)
    dets = [{"label": o["category"], "bbox": vlm.box[o["id"]], "score": 0.9} for o in vlm.visible]
    dets.append({"label": "zebra", "bbox": [1, 1, 20, 20], "score": 0.9})  # not in the vocabulary: ignored
    path = tmp_path / "dets.jsonl"
    path.write_text(json.dumps({"time_s": 0.0, "detections": dets}) + "\n")
    with FakeOpenAIServer(reply=vlm) as srv:
        res = CliRunner().invoke(
            app,
            [
                "scene",
                "annotate",
                str(episode["final"]),
                "--actions",
                str(episode["actions"]),
                "--vlm",
                f"openai:scene-vlm,base_url={srv.base_url}",
                "--detector",
                f"file:{path}",
                "--out",
                str(tmp_path / "s"),
                "--truth",
                str(episode["ep"]),
                "--correct-vlm",
                f"openai:scene-fixer,base_url={srv.base_url}",
            ],
        )
        asked = [b for b in srv.bodies if "Detect every instance" in json.dumps(b)]
    assert res.exit_code == 0, res.output
    assert not asked  # the boxes came from the file, not from the VLM
    boxes = read_json(tmp_path / "s" / "boxes.json")
    assert boxes["detector"]["backend"] == "detections-file"
    assert len(boxes["images"][0]) == len(vlm.visible)
    assert read_json(tmp_path / "s" / "agreement.json")["object_recall"] == 1.0
    report = read_json(tmp_path / "s" / "report.json")  # the correction pass by a second model
    assert report["correct_vlm"]["model"] == "scene-fixer" and report["stages"]["correct"]["calls"] == 1
    assert (tmp_path / "s" / "vlm-correct.sqlite").is_file()
    assert [b["model"] for b in srv.bodies if "This is an annotation" in json.dumps(b)] == ["scene-fixer"]
