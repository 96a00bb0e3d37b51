"""`annotate_scene`: EXPLORE-Bench's final-scene annotation pipeline over one's own images, stage by stage.

Stages and the files each leaves in the scene folder (``--out``):

1. ``tags.json`` — noun lemmas of the actions (spaCy) and the VLM's object list of each image (RAM++'s role);
2. ``filter.json`` — rules (`scene_rules`: body parts, synonyms, duplicates), the LLM filter, rules again;
3. ``boxes.json`` and ``boxed_<k>.png`` — boxes from the detector (`detect_spec`), instance labels ``bowl.2``
   numbered left to right per category;
4. ``attributes.json`` — shape, colour, size, texture, state and relation triplets of each boxed object (VLM,
   over the image with every box drawn and labelled);
5. ``integrated.json`` — the official ``end_frame_info`` shape (category, description, relation) with ids and boxes;
6. ``scene.json`` + ``end_frame_info.json`` — after the correction pass (a second VLM, or the same one with the
   correction prompt); ``report.json`` — prompt versions, counts and every failure per stage.

A VLM reply that does not parse is asked again and then counted: a failed tag list leaves the image with the
action tags only, a failed filter keeps the rule-filtered candidates, failed attributes leave the object with
its category as description, a failed correction keeps the integration. Each is listed in ``report.json``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.core.folders.files import InputFileError, read_input_text, write_json
from egoworld.core.folders.loader import begin_write, end_write
from egoworld.scene_annotation.tag_rules import action_nouns, filter_tags, normalise
from egoworld.scene_annotation.vlm_calls import SceneVlm, parse_json, prompt
from egoworld.world.scene_file import AnnotatedScene, save_scene

ATTRIBUTES = ("shape", "colour", "size", "texture", "state")
EMPTY = {"", "none", "unknown", "n/a", "-"}


def read_actions(path: str | Path) -> list[str]:
    """Actions from a file: a JSON list, one '|'-joined line (the official form), one action per line, or a
    world episode's ``actions.jsonl``."""
    path = Path(path)
    if not path.exists():
        raise InputFileError(f"{path}: no such actions file (one action per line, or the official '|' form)")
    text = read_input_text(path, "actions file", empty_ok=False).strip()
    if path.suffix == ".jsonl":  # a world's actions.jsonl: rows with "text"
        items = [json.loads(line).get("text", "") for line in text.splitlines() if line.strip()]
    elif text.startswith("["):
        items = json.loads(text)
    elif "\n" not in text:
        items = text.split("|")
    else:
        items = text.splitlines()
    actions = [str(a).strip() for a in items if str(a).strip()]
    if not actions:
        raise InputFileError(f"{path}: no actions in the file")
    return actions


def _strings(text: str) -> list[str]:
    items = parse_json(text, list)
    if not all(isinstance(x, str) for x in items):
        raise ValueError("the list must hold names (strings)")
    return items


def _attributes(text: str) -> dict[str, Any]:
    obj = parse_json(text, dict)
    rel = obj.get("relations", [])
    if not isinstance(rel, list) or not all(
        isinstance(r, list) and len(r) == 3 and all(isinstance(x, str) for x in r) for r in rel
    ):
        raise ValueError("'relations' must be a list of [subject, predicate, object] triplets")
    return {**{k: str(obj.get(k) or "").strip() for k in ATTRIBUTES}, "relations": rel}


def _corrected(text: str) -> list[dict[str, Any]]:
    items = parse_json(text, list)
    for it in items:
        if not (
            isinstance(it, dict) and isinstance(it.get("id"), str) and isinstance(it.get("category"), str)
        ):
            raise ValueError(f"item {it!r:.60} needs 'id' and 'category'")
        rel = it.get("relation", [])
        if not isinstance(rel, list) or not all(isinstance(r, str) for r in rel):
            raise ValueError(f"item {it['id']}: 'relation' must be a list of strings")
    return items


def describe(category: str, attrs: dict[str, str] | None) -> str:
    """``a small round red ceramic bowl, empty`` from the attributes (the category alone without them)."""
    if not attrs:
        return f"a {category}"
    words = [attrs.get(k, "") for k in ("size", "shape", "colour", "texture")]
    words = [w for w in words if w.lower() not in EMPTY]
    text = " ".join(["a", *words, category])
    state = attrs.get("state", "")
    return f"{text}, {state}" if state.lower() not in EMPTY else text


def relation_text(triplet: Sequence[str], base: dict[str, str]) -> str | None:
    """``["bowl.2", "on", "table.1"]`` → ``on the table``; None when the object names no labelled instance.
    ``base`` maps an instance label to the words that name it (``the red cup`` when there are two cups)."""
    _, pred, obj = (t.strip() for t in triplet)
    if obj.upper() == "C":
        return f"{pred} C"
    target = base.get(obj) or base.get(obj.lower())
    return f"{pred} the {target}" if target and pred else None


def instance_names(objs: Sequence[dict[str, Any]], attrs: Sequence[dict[str, Any] | None]) -> dict[str, str]:
    """Label → name in a relation: the category, with the colour in front when the category repeats."""
    count: dict[str, int] = {}
    for r in objs:
        count[r["category"]] = count.get(r["category"], 0) + 1
    out = {}
    for r, a in zip(objs, attrs, strict=True):
        colour = (a or {}).get("colour", "")
        repeated = count[r["category"]] > 1 and colour.lower() not in EMPTY
        out[r["id"]] = f"{colour} {r['category']}" if repeated else r["category"]
    return out


def draw_boxes(image: np.ndarray, boxes: Sequence[dict[str, Any]]) -> bytes:
    """The image with every box drawn and its instance label written, as PNG bytes."""
    import io

    from PIL import Image, ImageDraw

    img = Image.fromarray(image).convert("RGB")
    draw = ImageDraw.Draw(img)
    for b in boxes:
        x0, y0, x1, y1 = b["bbox"]
        draw.rectangle([x0, y0, x1, y1], outline=(255, 0, 0), width=2)
        draw.text((x0 + 2, y0 + 1), b["id"], fill=(255, 255, 0))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _png_part(data: bytes) -> Any:
    import hashlib

    from egoworld.core.model import ImagePart

    return ImagePart(hashlib.sha256(data).hexdigest(), "image/png", lambda: data, size=len(data))


def _copy_images(images: Sequence[Path], out: Path, initial: Path | None) -> tuple[list[str], str | None]:
    names = []
    for k, src in enumerate(images):
        if not src.is_file():
            raise InputFileError(f"{src}: no such image")
        name = f"images/final{'' if len(images) == 1 else f'_{k}'}{src.suffix.lower() or '.png'}"
        (out / "images").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out / name)
        names.append(name)
    init = None
    if initial is not None:
        if not initial.is_file():
            raise InputFileError(f"{initial}: no such initial image (--initial)")
        init = f"images/initial{initial.suffix.lower() or '.png'}"
        shutil.copyfile(initial, out / init)
    return names, init


def _label_instances(per_image: list[list[Any]]) -> list[list[dict[str, Any]]]:
    """Instance labels ``<category>.<n>``, numbered per category over the images, left to right."""
    counts: dict[str, int] = {}
    out = []
    for k, dets in enumerate(per_image):
        rows = []
        for d in sorted(dets, key=lambda d: (d.label, d.bbox[0], d.bbox[1])):
            counts[d.label] = counts.get(d.label, 0) + 1
            rows.append(
                {
                    "id": f"{d.label}.{counts[d.label]}",
                    "category": d.label,
                    "image": k,
                    "bbox": [round(float(v), 1) for v in d.bbox],
                    "score": round(float(d.score), 4),
                }
            )
        out.append(sorted(rows, key=lambda r: (r["bbox"][0], r["id"])))
    return out


def annotate_scene(
    images: Sequence[str | Path],
    actions_file: str | Path,
    out: str | Path,
    *,
    vlm: Any,
    detector: Any,
    correct_vlm: Any = None,
    initial: str | Path | None = None,
    spacy: str | None = None,
    invalid_retries: int = 2,
) -> dict[str, Any]:
    """Run the six stages (see the module docstring) into ``out``; returns ``report.json``'s content.

    ``vlm`` / ``correct_vlm`` are `OpenAICompatModel`s; ``detector`` a `Detector`, or the string ``"vlm"``
    (boxes asked from ``vlm``)."""
    from PIL import Image

    from egoworld.benchmarks.explore.images import image_part
    from egoworld.perception.detectors.detector import Frame, check_vocabulary

    if not images:
        raise InputFileError("give at least one final-scene image")
    out = begin_write(out, "scene annotate")
    actions = read_actions(actions_file)
    names, init = _copy_images([Path(p) for p in images], out, Path(initial) if initial else None)
    arrays = [np.asarray(Image.open(out / n).convert("RGB")) for n in names]
    parts = [image_part(out / n) for n in names]
    ask = SceneVlm(vlm, out / "vlm.sqlite", invalid_retries=invalid_retries)
    fixer = (
        SceneVlm(correct_vlm, out / "vlm-correct.sqlite", invalid_retries=invalid_retries)
        if correct_vlm
        else ask
    )
    notes: list[str] = []
    try:
        # 1. tags
        nouns = action_nouns(actions, spacy)
        tag_text = prompt("tags")[1]
        seen = ask.ask_many("tags", [(f"image{k}", [p], tag_text) for k, p in enumerate(parts)], _strings)
        for k, v in enumerate(seen):
            if v is None:
                notes.append(
                    f"image {k}: the VLM's tag list failed; its candidates are the action nouns only"
                )
        write_json(out / "tags.json", {"actions": nouns, "vlm": seen, "prompt": ask.versions["tags"]})

        # 2. filter: rules, LLM, rules
        candidates, filtered, filter_rows = [], [], []
        for k, v in enumerate(seen):
            kept, dropped = filter_tags([*(v or []), *nouns])
            candidates.append(kept)
            filter_rows.append({"image": k, "rules_kept": kept, "rules_dropped": dropped})
        ftext = prompt("filter")[1]
        llm = ask.ask_many(
            "filter",
            [
                (f"image{k}", [p], ftext.format(candidates=json.dumps(c)))
                for k, (p, c) in enumerate(zip(parts, candidates, strict=True))
            ],
            _strings,
        )
        for k, (cands, reply) in enumerate(zip(candidates, llm, strict=True)):
            row = filter_rows[k]
            if reply is None:
                notes.append(f"image {k}: the LLM filter failed; the rule-filtered candidates are kept")
                final = cands
            else:
                again, dropped = filter_tags(reply)
                final = [t for t in again if t in cands]
                row["llm_kept"] = reply
                row["llm_not_candidates"] = [t for t in again if t not in cands]
                row["llm_dropped"] = [t for t in cands if t not in again]
                row["rules_after_llm_dropped"] = dropped
            row["vocabulary"] = final
            filtered.append(final)
        write_json(out / "filter.json", {"images": filter_rows, "prompt": ask.versions["filter"]})

        # 3. grounding
        if detector == "vlm":
            per_image = _vlm_boxes(ask, parts, arrays, filtered, notes)
            det_report: dict[str, Any] = {"detector": {"backend": "vlm-boxes", **vlm.identity()}}
        else:
            per_image = [
                detector.detect([Frame(float(k), arr, k)], check_vocabulary(words))[0] if words else []
                for k, (arr, words) in enumerate(zip(arrays, filtered, strict=True))
            ]
            det_report = {"detector": detector.provenance().record()}
        boxes = _label_instances(per_image)
        write_json(out / "boxes.json", {"images": boxes, **det_report})
        boxed = []
        for k, (arr, rows) in enumerate(zip(arrays, boxes, strict=True)):
            data = draw_boxes(arr, rows)
            (out / f"boxed_{k}.png").write_bytes(data)
            boxed.append(_png_part(data))

        # 4. attributes and relations
        atext = prompt("attributes")[1]
        jobs, objs = [], []
        for k, rows in enumerate(boxes):
            labels = ", ".join(r["id"] for r in rows)
            for r in rows:
                box = ", ".join(f"{v:g}" for v in r["bbox"])
                jobs.append(
                    (
                        r["id"],
                        [boxed[k]],
                        atext.format(labels=labels, label=r["id"], category=r["category"], box=box),
                    )
                )
                objs.append(r)
        attrs = ask.ask_many("attributes", jobs, _attributes)
        for r, a in zip(objs, attrs, strict=True):
            if a is None:
                notes.append(f"{r['id']}: attributes failed; its description is its category")
        write_json(
            out / "attributes.json",
            {
                "objects": {r["id"]: a for r, a in zip(objs, attrs, strict=True)},
                "prompt": ask.versions["attributes"],
            },
        )

        # 5. integration
        base = instance_names(objs, attrs)
        integrated, unknown = [], 0
        for r, a in zip(objs, attrs, strict=True):
            rels: list[str] = []
            for t in (a or {}).get("relations", []):
                if normalise(t[0]) != normalise(r["id"]) and t[0] != r["id"]:
                    continue
                text = relation_text(t, base)
                if text is None:
                    unknown += 1
                elif text not in rels:
                    rels.append(text)
            integrated.append(
                {
                    **{k: r[k] for k in ("id", "category", "image", "bbox")},
                    "description": describe(r["category"], a),
                    "relation": rels,
                    "attributes": {k: v for k, v in (a or {}).items() if k in ATTRIBUTES},
                }
            )
        if unknown:
            notes.append(
                f"integration: {unknown} relation triplet(s) named no labelled object and were left out"
            )
        write_json(out / "integrated.json", integrated)

        # 6. correction
        ctext = prompt("correct")[1]
        cjobs = []
        for k, part in enumerate(parts):
            mine = [
                {f: o[f] for f in ("id", "category", "description", "relation")}
                for o in integrated
                if o["image"] == k
            ]
            cjobs.append((f"image{k}", [part], ctext.format(objects=json.dumps(mine))))
        fixes = fixer.ask_many("correct", cjobs, _corrected)
        final_objects, changes = _apply_corrections(integrated, fixes, notes)
    finally:
        ask.close()
        if fixer is not ask:
            fixer.close()

    scene = AnnotatedScene(images=names, actions=actions, objects=final_objects, initial_image=init)
    save_scene(out / "scene.json", scene)
    write_json(out / "end_frame_info.json", scene.to_official())
    vlm_report = ask.report()
    if fixer is not ask:
        vlm_report["correct"] = fixer.report().get("correct", {})
    failed = {s: r["failed"] for s, r in vlm_report.items() if r["failed"]}
    report = {
        "images": names,
        "actions": len(actions),
        "objects": len(final_objects),
        "vlm": vlm.identity(),
        "correct_vlm": (correct_vlm or vlm).identity(),
        "prompts": ask.versions,
        "stages": vlm_report,
        "failed": failed,
        "corrections": changes,
        "notes": notes,
    }
    write_json(out / "report.json", report)
    end_write(out)
    return report


def _apply_corrections(
    integrated: list[dict[str, Any]], fixes: list[Any], notes: list[str]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    by_image: dict[int, list[dict[str, Any]]] = {}
    for o in integrated:
        by_image.setdefault(o["image"], []).append(o)
    out, changes = [], {"changed": 0, "removed": 0, "unknown_ids": 0, "failed_images": 0}
    for k in sorted(set(by_image) | set(range(len(fixes)))):
        mine = by_image.get(k, [])
        fix = fixes[k] if k < len(fixes) else None
        if fix is None:
            changes["failed_images"] += 1
            notes.append(f"image {k}: the correction failed; the integrated annotation is kept")
            out.extend(mine)
            continue
        given = {f["id"]: f for f in fix}
        changes["unknown_ids"] += sum(1 for i in given if i not in {o["id"] for o in mine})
        for o in mine:
            f = given.get(o["id"])
            if f is None:
                changes["removed"] += 1
                continue
            new = {
                **o,
                "category": f["category"].strip() or o["category"],
                "description": str(f.get("description", o["description"])).strip(),
                "relation": [r.strip() for r in f.get("relation", []) if r.strip()],
            }
            if isinstance(f.get("key_state"), str) and f["key_state"].strip():
                new["key_state"] = f["key_state"].strip()
            changes["changed"] += new != o
            out.append(new)
    if changes["unknown_ids"]:
        notes.append(f"correction: {changes['unknown_ids']} item(s) with unknown ids were left out")
    return out, changes


def _vlm_boxes(
    ask: SceneVlm, parts: list[Any], arrays: list[np.ndarray], vocab: list[list[str]], notes: list[str]
) -> list[list[Any]]:
    """Boxes asked from the VLM with the detector's grounding prompt (`detect_vlm`), cached like every call;
    labels outside the vocabulary are dropped and noted."""
    from egoworld.perception.detectors.detector import Detection, clip_box
    from egoworld.perception.detectors.vlm_boxes import PROMPT, parse_boxes

    jobs, where = [], []
    for k, (part, arr, words) in enumerate(zip(parts, arrays, vocab, strict=True)):
        if words:
            h, w = arr.shape[:2]
            jobs.append((f"image{k}", [part], PROMPT.format(labels=", ".join(words), width=w, height=h)))
            where.append(k)
    replies = ask.ask_many("boxes", jobs, parse_boxes)
    out: list[list[Any]] = [[] for _ in arrays]
    for k, items in zip(where, replies, strict=True):
        if items is None:
            notes.append(f"image {k}: the VLM's boxes failed; the image has no objects")
            continue
        h, w = arrays[k].shape[:2]
        wanted = {x.lower(): x for x in vocab[k]}
        off = 0
        for it in items:
            label = wanted.get(it["label"].strip().lower())
            box = clip_box(it.get("bbox_2d", it.get("bbox")), w, h)
            if label is None:
                off += 1
            elif box is not None:
                out[k].append(Detection(label, box, float(it.get("score", 1.0))))
        if off:
            notes.append(f"image {k}: {off} box(es) with labels outside the vocabulary were left out")
    return out
