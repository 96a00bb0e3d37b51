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

PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "egoworld-toyland"
version = "0.1.0"

[project.entry-points."egoworld.benchmarks"]
toyland = "toyland.plugin:PLUGIN"

[project.entry-points."egoworld.backends"]
toyecho = "toyland.backend:BACKEND"

[project.entry-points."egoworld.commands"]
"build toyland" = "toyland.build:build_cmd"

[tool.setuptools]
packages = ["toyland"]
"""

BUILD = '''\
"""`egoworld build toyland`: a benchmark of fruit words (choices) and near counts (integers)."""

from pathlib import Path
from typing import Annotated

import typer

FRUITS = ("apple", "pear", "plum", "fig")


def build_cmd(
    out: Annotated[Path, typer.Option("--out", help="Benchmark folder to write.")],
    questions: Annotated[int, typer.Option(help="Questions per task.")] = 8,
) -> None:
    """Build the toyland benchmark."""
    from egoworld.core.bench_folder import save_benchmark
    from egoworld.core.schema import Sample, TaskInfo

    samples = [
        Sample(id=f"pick-{i}", benchmark="toyland", task="PICK", episode=f"e{i % 4}", cluster=f"e{i % 4}",
               question=f"Which fruit is written here: '{FRUITS[i % 4]}'?", answer_type="choice",
               choices=FRUITS, answer=i % 4)
        for i in range(questions)
    ] + [
        Sample(id=f"near-{i}", benchmark="toyland", task="NEAR", episode=f"e{i % 4}", cluster=f"e{i % 4}",
               question=f"Guess the count (count: {i + 3}).", answer_type="integer", answer=i + 3)
        for i in range(questions)
    ]
    tasks = {
        "PICK": TaskInfo(answer_type="choice", metric="accuracy", chance=25.0),
        "NEAR": TaskInfo(answer_type="integer", metric="within_one"),
    }
    save_benchmark(out, name="toyland", tasks=tasks, samples=samples, seed=0)
    print(f"wrote {out}: {len(samples)} samples")
'''

PLUGIN = '''\
"""The toyland plug-in: a metric of its own (an integer within one of the answer) and a report section."""

from egoworld.core.plugin import BenchmarkPlugin, ReportSection


def within_one(sample, value):
    return 1.0 if abs(float(value) - float(sample.answer)) <= 1 else 0.0


def sections(summaries, run_dirs, labels, out):
    rows = ", ".join(f"{label}: {s['n']} rows" for label, s in zip(labels, summaries))
    return [ReportSection("Toyland analysis", f"Toyland analysis: {rows}\\n", f"<p>Toyland analysis: {rows}</p>")]


PLUGIN = BenchmarkPlugin(
    name="toyland", metrics={"within_one": within_one}, report_columns=("NEAR", "PICK"), report_sections=sections
)
'''

BACKEND = '''\
"""The toyecho backend: reads the request only (its messages and presented choices), never the sample."""

import re

from egoworld.core.model import Backend, Generation, Model


class EchoModel(Model):
    backend = "toyecho"

    def identity(self):
        return {"backend": "toyecho", "model": "toyecho", "version": 1}

    async def generate(self, request):
        text = " ".join(m.text for m in request.messages)
        if request.choices:
            i = next(i for i, c in enumerate(request.choices) if f"'{c}'" in text)
            return Generation(text="ABCD"[i])
        return Generation(text=str(int(re.search(r"count: (\\d+)", text).group(1)) + 1))


BACKEND = Backend(name="toyecho", factory=lambda name, options, context: EchoModel(), help="echoes the request")
'''


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
    (pkg / "pyproject.toml").write_text(PYPROJECT)
    (pkg / "toyland" / "__init__.py").write_text('"""A third-party egoworld benchmark."""\n')
    (pkg / "toyland" / "build.py").write_text(BUILD)
    (pkg / "toyland" / "plugin.py").write_text(PLUGIN)
    (pkg / "toyland" / "backend.py").write_text(BACKEND)
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
