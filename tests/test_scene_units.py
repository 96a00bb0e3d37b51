"""Fast checks of the scene pipeline's parts: the tag rules, integration text, correction merge, the review
replay with undo, agreement pairing, the detector spec and the prompt files."""

from __future__ import annotations

import pytest

from egoworld.core.folders.files import InputFileError
from egoworld.perception.detectors.spec import create_detector
from egoworld.scene_annotation.graph_agreement import compare_scene
from egoworld.scene_annotation.pipeline import (
    _apply_corrections,
    describe,
    instance_names,
    read_actions,
    relation_text,
)
from egoworld.scene_annotation.tag_rules import filter_tags, normalise
from egoworld.scene_annotation.vlm_calls import PROMPTS, parse_json, prompt
from egoworld.view.scene_review import next_id, replay
from egoworld.world.scene_file import AnnotatedScene


def test_rules_drop_body_parts_synonyms_and_duplicates() -> None:
    kept, dropped = filter_tags(["Knives", "knife", "hand", "Faucet", "tap", "kitchen", "cutting boards", ""])
    assert kept == ["knife", "tap", "cutting board"]
    reasons = {d["tag"]: d["reason"] for d in dropped}
    assert reasons == {
        "knife": "duplicate",
        "hand": "body part or person",
        "Faucet": "synonym",
        "tap": "duplicate",
        "kitchen": "not an object",
        "": "empty",
    }
    assert normalise("boxes") == "box" and normalise("glass") == "glass" and normalise("cherries") == "cherry"


def test_integration_texts() -> None:
    attrs = {"size": "small", "shape": "round", "colour": "red", "texture": "", "state": "empty"}
    assert describe("bowl", attrs) == "a small round red bowl, empty"
    assert describe("bowl", None) == "a bowl"
    base = {"table.1": "table", "cup.2": "cup"}
    assert relation_text(["bowl.1", "on", "table.1"], base) == "on the table"
    assert relation_text(["bowl.1", "held by", "C"], base) == "held by C"
    assert relation_text(["bowl.1", "on", "shelf.9"], base) is None
    objs = [
        {"id": "cup.1", "category": "cup"},
        {"id": "cup.2", "category": "cup"},
        {"id": "pan.1", "category": "pan"},
    ]
    names = instance_names(objs, [{"colour": "red"}, None, {"colour": "black"}])
    assert names == {"cup.1": "red cup", "cup.2": "cup", "pan.1": "pan"}


def test_correction_merge_keeps_failed_images_and_counts_unknown_ids() -> None:
    integrated = [
        {"id": "bowl.1", "category": "bowl", "description": "a bowl", "relation": [], "image": 0},
        {"id": "cup.1", "category": "cup", "description": "a cup", "relation": ["on the table"], "image": 0},
        {"id": "pan.1", "category": "pan", "description": "a pan", "relation": [], "image": 1},
    ]
    fixes = [
        [
            {"id": "bowl.1", "category": "bowl", "description": "a blue bowl", "relation": []},
            {"id": "ghost.1", "category": "ghost", "relation": []},
        ],
        None,
    ]
    notes: list[str] = []
    out, changes = _apply_corrections(integrated, fixes, notes)
    assert [o["id"] for o in out] == ["bowl.1", "pan.1"]
    assert changes == {"changed": 1, "removed": 1, "unknown_ids": 1, "failed_images": 1}
    assert len(notes) == 2


def _scene() -> AnnotatedScene:
    return AnnotatedScene(
        ["images/final.png"],
        ["C picks up the cup"],
        [
            {"id": "cup.1", "category": "cup", "description": "a cup", "relation": ["on the table"]},
            {"id": "cup.2", "category": "cup", "description": "a mug", "relation": []},
        ],
    )


def test_replay_states_and_refusals() -> None:
    edits = [
        {
            "id": 1,
            "object": "cup.1",
            "op": "rel_edit",
            "value": {"text": "on the table", "to": "in the sink"},
        },
        {"id": 2, "object": "cup.2", "op": "accept", "value": {}},
        {"id": 3, "object": "cup.3", "op": "add", "value": {"category": "cup", "description": "a glass"}},
        {"id": 4, "object": "cup.3", "op": "edit", "value": {"key_state": "broken"}},
    ]
    scene, state = replay(_scene(), edits)
    assert state == {"cup.1": "edited", "cup.2": "accepted", "cup.3": "added"}
    assert scene.object("cup.1")["relation"] == ["in the sink"]
    assert scene.to_official()[2] == {
        "category": "cup",
        "description": "a glass",
        "relation": [],
        "key_state": "broken",
    }
    assert next_id(scene, "Cup") == "cup.4"
    with pytest.raises(InputFileError, match="no relation"):
        replay(
            _scene(), [{"id": 9, "object": "cup.2", "op": "rel_delete", "value": {"text": "on the table"}}]
        )
    with pytest.raises(InputFileError, match="no object"):
        replay(_scene(), [{"id": 9, "object": "pan.1", "op": "delete", "value": {}}])


def test_agreement_pairs_within_a_category_by_attributes() -> None:
    truth = [
        {"id": "a", "category": "cup", "attributes": {"colour": "red"}, "relations": ["on the table"]},
        {"id": "b", "category": "cup", "attributes": {"colour": "blue"}, "relations": []},
        {"id": "c", "category": "fork", "attributes": {"colour": "grey", "visible": "no"}, "relations": []},
        {"id": "d", "category": "knives", "attributes": {}, "relations": []},
    ]
    mine = [
        {"id": "cup.1", "category": "cup", "attributes": {"colour": "blue"}, "relation": []},
        {
            "id": "cup.2",
            "category": "cup",
            "attributes": {"colour": "red"},
            "relation": ["on the table", "near C"],
        },
        {"id": "pan.1", "category": "pan", "attributes": {}, "relation": []},
    ]
    f = compare_scene(mine, truth)
    assert f["truth_objects"] == 3 and f["paired"] == 2
    assert f["object_recall"] == round(2 / 3, 4) and f["object_precision"] == round(2 / 3, 4)
    assert f["attribute_agreement"] == 1.0 and f["attributes_compared"] == 2
    assert f["relation_recall"] == 1.0 and f["relation_precision"] == 0.5
    assert f["missed"] == ["d"] and f["extra"] == ["pan.1"]


def test_prompts_are_versioned_files_and_replies_parse(tmp_path) -> None:
    for name in PROMPTS:
        version, text = prompt(name)
        assert version == f"scene-{name} v1" and text
    assert parse_json('Sure:\n```json\n["a", "b"]\n```', list) == ["a", "b"]
    with pytest.raises(ValueError):
        parse_json("no list here", list)
    f = tmp_path / "a.txt"
    f.write_text("C opens the fridge|C takes the milk")
    assert read_actions(f) == ["C opens the fridge", "C takes the milk"]
    j = tmp_path / "actions.jsonl"
    j.write_text('{"start_s": 0, "text": "C opens the fridge"}\n{"start_s": 2, "text": "C takes the milk"}\n')
    assert read_actions(j) == ["C opens the fridge", "C takes the milk"]
    assert create_detector("vlm") == "vlm"
    with pytest.raises(ValueError, match="unknown kind"):
        create_detector("yolo:x")
    with pytest.raises(InputFileError, match="no such weights folder"):
        create_detector(f"grounding-dino:{tmp_path / 'none'}")


def test_view_scene_needs_a_reviewer_and_apply_needs_a_log(tmp_path) -> None:
    from typer.testing import CliRunner

    from egoworld.cli import app

    res = CliRunner().invoke(app, ["view", "--scene", str(tmp_path)])
    assert res.exit_code == 2 and "--review NAME" in res.output
    res = CliRunner().invoke(app, ["scene", "apply", str(tmp_path / "reviews" / "ana.sqlite")])
    assert res.exit_code == 2 and "scene.json" in res.output
