"""A third-party package adds a fourth benchmark, its builder command and a model backend through its own
``pyproject.toml`` entry points, without touching ``src/egoworld``; the real ``egoworld`` console script then
builds, runs, scores, reports and views it. And every entry point egoworld registers for itself loads."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import types
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "egoworld"

DOC = REPO / "docs" / "architecture.md"


def package_files() -> dict[str, str]:
    """The toy package's files, as docs/architecture.md shows them (each block under its ``file:`` line)."""
    text = DOC.read_text(encoding="utf-8")
    files = dict(re.findall(r"^file: (\S+)\n```\w*\n(.*?)^```", text, flags=re.S | re.M))
    assert set(files) >= {"pyproject.toml", "toyland/plugin.py", "toyland/build.py", "toyland/backend.py"}
    return files


def _snapshot() -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(SRC.rglob("*")) if p.is_file()}


def _backends_are_entry_points() -> bool:
    import egoworld.core.model as model

    return hasattr(model, "Backend")


@pytest.fixture(scope="module")
def toyland(tmp_path_factory) -> dict[str, str]:
    """The toy package installed into its own folder; the environment that puts it on the path."""
    tmp = tmp_path_factory.mktemp("third_party")
    pkg = tmp / "pkg"
    (pkg / "toyland").mkdir(parents=True)
    for name, text in package_files().items():
        (pkg / name).write_text(text)
    (pkg / "toyland" / "__init__.py").write_text('"""A third-party egoworld benchmark."""\n')
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-q",
         "--target", str(tmp / "site"), str(pkg)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list((tmp / "site").glob("egoworld_toyland-*.dist-info"))
    import egoworld

    path = [
        str(tmp / "site"),
        str(Path(egoworld.__file__).resolve().parents[1]),
        os.environ.get("PYTHONPATH"),
    ]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, path)),
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "200",
        "TMP_ROOT": str(tmp),
    }


def egoworld_script(env: dict[str, str], *argv: str | Path) -> subprocess.CompletedProcess:
    """The real ``egoworld`` console script of this environment."""
    script = Path(sys.executable).with_name("egoworld")
    return subprocess.run(
        [str(script), *map(str, argv)], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_third_party_benchmark_runs_scores_reports_and_views(toyland):
    before = _snapshot()
    tmp = Path(toyland["TMP_ROOT"])
    bench, run, rep = tmp / "bench", tmp / "runs" / "oracle", tmp / "report"

    r = egoworld_script(toyland, "build", "--help")
    assert r.returncode == 0 and "toyland" in r.stdout, r.stdout + r.stderr
    r = egoworld_script(toyland, "build", "toyland", "--out", bench, "--questions", "8")
    assert r.returncode == 0 and "16 samples" in r.stdout, r.stdout + r.stderr
    r = egoworld_script(toyland, "run", "--bench", bench, "--model", "oracle", "--out", run, "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    r = egoworld_script(toyland, "score", "--run", run)
    assert r.returncode == 0, r.stdout + r.stderr
    import json

    scores = json.loads((run / "scores.json").read_text())
    assert scores["benchmark"] == "toyland" and scores["n"] == 16
    assert scores["tasks"]["NEAR"]["metric"] == "within_one"  # the plug-in's own metric scored it
    r = egoworld_script(toyland, "report", "--run", run, "--out", rep)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Toyland analysis: " in (rep / "index.html").read_text()

    view = subprocess.Popen(
        [str(Path(sys.executable).with_name("egoworld")), "view", "--bench", bench, "--run", run,
         "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=toyland,
    )  # fmt: skip
    try:
        assert view.stdout is not None
        line = view.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert m, line + (view.stdout.read() if view.poll() is not None else "")
        overview = urllib.request.urlopen(m.group(1) + "/", timeout=30).read().decode()
        bench_id = re.search(r"/b/([^/\"']+)/samples", overview).group(1)
        with urllib.request.urlopen(f"{m.group(1)}/b/{bench_id}/s/pick-1", timeout=30) as page:
            assert page.status == 200
            assert "Which fruit is written here:" in page.read().decode()
    finally:
        view.terminate()
        view.wait(10)
    assert _snapshot() == before, "the third-party test wrote into src/egoworld"


@pytest.mark.skipif(
    not _backends_are_entry_points(), reason="model backends are read from egoworld.backends once H2 lands"
)
def test_a_third_party_backend_answers_from_the_request(toyland):
    tmp = Path(toyland["TMP_ROOT"])
    bench, run = tmp / "bench-echo", tmp / "runs" / "toyecho"
    assert egoworld_script(toyland, "build", "toyland", "--out", bench).returncode == 0
    r = egoworld_script(toyland, "models")
    assert r.returncode == 0 and re.search(r"^toyecho\s+echoes the request", r.stdout, re.M), r.stdout
    r = egoworld_script(toyland, "run", "--bench", bench, "--model", "toyecho", "--out", run, "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    r = egoworld_script(toyland, "score", "--run", run)
    assert r.returncode == 0, r.stdout + r.stderr
    import json

    tasks = json.loads((run / "scores.json").read_text())["tasks"]
    # PICK: the echo reads the word off the question; NEAR: one off the count, which only the plug-in's
    # own within_one metric accepts (accuracy would give 0)
    assert tasks["PICK"]["accuracy"] == pytest.approx(100.0)
    assert tasks["NEAR"]["metric"] == "within_one" and tasks["NEAR"]["within_one"] == pytest.approx(100.0)


def test_a_third_party_world_kind_synthesises_episodes(toyland):
    tmp = Path(toyland["TMP_ROOT"])
    worlds = tmp / "worlds"
    r = egoworld_script(
        toyland, "world", "synth", "garden", "--episodes", "2", "--minutes", "1", "--out", worlds
    )
    assert r.returncode == 0, r.stdout + r.stderr
    episodes = sorted(p for p in worlds.iterdir() if (p / "episode.json").is_file())
    assert len(episodes) == 2, list(worlds.iterdir())
    r = egoworld_script(toyland, "world", "show", episodes[0], "--no-picture")
    assert r.returncode == 0 and re.search(r"actions\s+6 \(first: 0\.0s C ", r.stdout + r.stderr), (
        r.stdout + r.stderr
    )
    bad = egoworld_script(toyland, "world", "synth", "garden", "--minutes", "-1", "--out", tmp / "w2")
    assert bad.returncode != 0 and "--minutes for a garden must be positive" in bad.stdout + bad.stderr


def _own_entry_points() -> list[tuple[str, str, str]]:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [
        (group, name, value)
        for group, entries in meta["entry-points"].items()
        for name, value in entries.items()
    ]


@pytest.mark.parametrize(("group", "name", "value"), _own_entry_points())
def test_every_own_entry_point_loads(group, name, value):
    from importlib.metadata import EntryPoint

    from egoworld.core import registry
    from egoworld.core.plugin import BenchmarkPlugin
    from egoworld.sim.kinds import WorldKind

    assert group in registry.GROUPS, f"{group} is not a registry group"
    obj = EntryPoint(name, value, group).load()
    expected = {
        registry.BENCHMARKS: BenchmarkPlugin,
        registry.WORLD_KINDS: WorldKind,
        registry.COMMANDS: (str, types.FunctionType),
        registry.IMPORTERS: types.FunctionType,
        registry.EXPORTERS: types.FunctionType,
    }.get(group)
    if expected is not None:
        assert isinstance(obj, expected), f"{group} {name} = {value} is a {type(obj).__name__}"
    if group == registry.COMMANDS:
        assert name == " ".join(name.split()) and all(re.fullmatch(r"[a-z0-9-]+", w) for w in name.split())
    assert registry.has(group, name), (
        f"{group} {name} is in pyproject.toml but not installed: reinstall egoworld (pip install -e .)"
    )
