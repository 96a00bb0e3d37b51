"""The one file-opening rule (issue 24 item 2): user input is read through `egoworld.core.folders.files`
(`read_input_bytes` / `read_input_text` and the readers built on them), so a folder, an empty file or bytes
that are not UTF-8 are named with the file and the fix. An ast pass finds every other file opening in
`src/egoworld`; each must be on the allowlist below with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from egoworld.core.folders.files import InputFileError

SRC = Path(__file__).resolve().parents[2] / "src" / "egoworld"
RULE = "core/folders/files.py"

VIDEO = "PyAV opens a video container by path to seek inside it; run, builds and `world show` check the file first"
#: (file under src/egoworld, the call) → why it may open the file itself
ALLOWED: dict[tuple[str, str], str] = {
    ("core/folders/hashing.py", "Path(path).open"): "streams a file already checked, in chunks, to hash it",
    ("core/folders/lock.py", "os.open"): "creates the lock file of a folder egoworld writes",
    (
        "core/folders/store.py",
        "path.open",
    ): "the response store's own check (folder, empty, not SQLite, damaged)",
    ("media/decoder.py", "av.open"): VIDEO,
    ("media/index.py", "av.open"): VIDEO,
    ("media/writer.py", "av.open"): "re-reads a video egoworld has just written, to check it",
    ("world/show.py", "av.open"): VIDEO,
    ("benchmarks/vsi_wild/durations.py", "av.open"): VIDEO,
    ("world/panorama_views.py", "av.open"): VIDEO,
    ("media/encode.py", "path.read_bytes"): (
        "an image input: its OSError / unreadable image becomes a MediaError naming the file and the fix "
        "(the run's per-item error rows rely on that type)"
    ),
    (
        "models/hf.py",
        "f.open",
    ): "reads the first MiB of each weight file for a digest (never a whole 10 GB file)",
    ("scene_annotation/pipeline.py", "Image.open"): "images egoworld copied into its output folder itself",
    (
        "scene_annotation/vlm_calls.py",
        "resources.files('egoworld.scene_annotation').joinpath(f'prompts/{name}.txt').read_text",
    ): "egoworld's own packaged prompt",
    ("sim/actions/replay.py", "sim.open"): "opens a fixture in the simulator, not a file",
    ("sim/arrays.py", "np.load"): "the simulator's own arrays files (the sim is outside this rule's change)",
    ("view/app.py", "path.read_bytes"): "a plot egoworld has just drawn into a temporary folder",
    ("view/media.py", "path.read_bytes"): (
        "serves a benchmark image only when its bytes hash to the sha256 the request recorded; anything "
        "else is a 404"
    ),
    ("benchmarks/explore/cli.py", "path.read_text"): "prints the report egoworld has just written",
    (
        "benchmarks/beyond3d/build/depth.py",
        "np.load",
    ): "Beyond3D depth maps (not yet routed: the builder's owner)",
    (
        "benchmarks/beyond3d/build/depth.py",
        "Image.open",
    ): "Beyond3D depth maps (not yet routed: the builder's owner)",
    (
        "benchmarks/beyond3d/build/audit.py",
        "np.load",
    ): "Beyond3D depth maps (not yet routed: the builder's owner)",
}


def _writes(call: ast.Call) -> bool:
    modes = [a.value for a in call.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    modes += [k.value.value for k in call.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
    return any(isinstance(m, str) and set(m) & set("wax") for m in modes)


def _opens(call: ast.Call) -> bool:
    """True for a call that opens a file to read it: open(), .open(), .read_text(), .read_bytes(),
    json.load, np.load — not one that reads bytes already in memory (io.BytesIO)."""
    f = call.func
    if (
        call.args
        and isinstance(call.args[0], ast.Call)
        and ast.unparse(call.args[0].func).endswith("BytesIO")
    ):
        return False
    if isinstance(f, ast.Name):
        return f.id == "open" and not _writes(call)
    if not isinstance(f, ast.Attribute):
        return False
    if f.attr in ("read_text", "read_bytes"):
        return True
    if f.attr == "open":
        return not (isinstance(f.value, ast.Name) and f.value.id == "self") and not _writes(call)
    return (
        f.attr == "load" and isinstance(f.value, ast.Name) and f.value.id in ("json", "np", "numpy", "pickle")
    )


def file_openings() -> list[tuple[str, str, int]]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == RULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _opens(node):
                found.append((rel, ast.unparse(node.func), node.lineno))
    return found


def test_no_file_is_opened_outside_the_rule_unless_allowed_with_a_reason():
    found = file_openings()
    bare = [f"{rel}:{line} {call}(…)" for rel, call, line in found if (rel, call) not in ALLOWED]
    assert not bare, (
        "read user input through egoworld.core.folders.files (read_input_bytes / read_input_text):\n"
        + ("\n".join(bare))
    )
    stale = sorted(set(ALLOWED) - {(rel, call) for rel, call, _ in found})
    assert not stale, f"allowlist entries that no longer match a call: {stale}"


def test_the_scan_sees_a_bare_open():
    tree = ast.parse(
        "import json\nwith open(p) as fh:\n    json.load(fh)\nPath(p).read_text()\nopen(q, 'w')\n"
    )
    calls = [ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and _opens(n)]
    assert sorted(calls) == ["Path(p).read_text", "json.load", "open"]


# -- behaviour: each reader routed through the rule names the file and the fix ------------------------------
FIX_FOLDER = "pass the file itself, not a folder"


def _folder(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


def _empty(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


def _latin1(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"caf\xe9,time_s\n1,2\n")
    return path


KINDS = {
    "folder": (_folder, ["is a folder", FIX_FOLDER]),
    "empty": (_empty, ["is empty (0 bytes)", "pass the complete file"]),
    "not UTF-8": (_latin1, ["not UTF-8 text", "save the file as UTF-8"]),
}


def _campaign_state(tmp: Path, make):
    from egoworld.campaign.cell_state import read_state, state_path

    path = make(state_path(tmp, "cell-a"))
    return path, lambda: read_state(tmp, "cell-a")


def _audit_marks(tmp: Path, make):
    from egoworld.view.audit_marks import AuditSession

    path = make(tmp / "marks.csv")
    session = object.__new__(AuditSession)  # (its items come from worlds; only the marks file is read here)
    session.marks, session.reviewer = path, "r1"
    return path, session.done


def _glb(tmp: Path, make):
    from egoworld.world.gltf import read_glb

    path = make(tmp / "scene.glb")
    return path, lambda: read_glb(path)


def _detector_config(tmp: Path, make):
    from egoworld.perception.detectors.hf_weights import check_weights_folder

    (tmp / "w").mkdir()
    (tmp / "w" / "model.safetensors").write_bytes(b"x")
    path = make(tmp / "w" / "config.json")
    return path, lambda: check_weights_folder(tmp / "w", "owlv2", "google/owlv2-base-patch16")


def _visibility(tmp: Path, make):
    from egoworld.compare.tracking_agreement import kitchen_truth

    path = make(tmp / "visibility.npz")
    return path, lambda: kitchen_truth(path, {})


def _actions(tmp: Path, make):
    from egoworld.scene_annotation.pipeline import read_actions

    path = make(tmp / "actions.txt")
    return path, lambda: read_actions(path)


def _scores(tmp: Path, make):
    from egoworld.runner.figures import correct_answers

    make(tmp / "run" / "scores.jsonl")
    return tmp / "run" / "scores.jsonl", lambda: correct_answers(tmp / "run")


READERS = {
    "campaign state": (_campaign_state, ("folder", "empty", "not UTF-8")),
    "audit marks": (_audit_marks, ("folder", "empty", "not UTF-8")),
    "glTF": (_glb, ("folder", "empty")),
    "HF detector config": (_detector_config, ("folder", "empty", "not UTF-8")),
    "visibility npz": (_visibility, ("folder", "empty")),
    "actions file": (_actions, ("folder", "empty", "not UTF-8")),
    "scores.jsonl": (_scores, ("folder", "not UTF-8")),
}


@pytest.mark.parametrize(
    ("reader", "kind"), [(r, k) for r, (_, kinds) in READERS.items() for k in kinds], ids=lambda x: x
)
def test_each_reader_names_the_file_and_the_fix(tmp_path, reader, kind):
    setup, _ = READERS[reader]
    make, said = KINDS[kind]
    path, read = setup(tmp_path, make)
    with pytest.raises(InputFileError) as got:
        read()
    message = str(got.value)
    assert str(path) in message, message
    for words in said:
        assert words in message, message


@pytest.mark.parametrize("kind", ["folder", "empty", "not UTF-8"])
def test_sweep_status_over_a_bad_cell_state_exits_non_zero_naming_it(tmp_path, kind):
    from conftest import egoworld, refused

    make, said = KINDS[kind]
    state = make(tmp_path / "c" / "cells" / "a.json")
    refused(egoworld("sweep", "status", tmp_path / "c"), str(state), *said)
