"""The test environment keeps the pieces egoworld pins: no extra may pull PyAV below 16 or swap the CPU torch."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _major(version: str) -> int:
    return int(version.split(".")[0])


def test_pyav_is_the_pinned_major():
    av = pytest.importorskip("av")
    assert _major(av.__version__) >= 16, (
        f"PyAV {av.__version__} is installed: an extra pulled it below 16 (lmms-eval does); keep that extra out"
    )


def test_torch_is_the_cpu_build_the_makefile_installs():
    torch = pytest.importorskip("torch")
    pinned = next(
        line.split("torch==")[1].split()[0]
        for line in (REPO / "Makefile").read_text().splitlines()
        if line.startswith("TORCH ?=")
    )
    assert torch.__version__.split("+")[0] == pinned, f"torch {torch.__version__}, Makefile pins {pinned}"


def test_lmms_eval_stays_out_of_the_other_extras():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    holders = [name for name, reqs in extras.items() if any(r.startswith("lmms-eval") for r in reqs)]
    assert holders == ["lmms-eval"], f"lmms-eval (PyAV < 16) is required by extras {holders}"
    test_extras = next(
        line.split("?=")[1].strip()
        for line in (REPO / "Makefile").read_text().splitlines()
        if line.startswith("TEST_EXTRAS ?=")
    )
    assert "lmms-eval" not in test_extras.split(","), "the test extras must not install lmms-eval"


PINNED = ("torch", "av", "numpy")


def _dry_run(requirements: list[str], report: Path) -> dict[str, str]:
    """What `pip install REQS` would install or replace in this environment (name → version), resolved with
    the package index and nothing installed (``--dry-run --report``)."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "-q", "--report", str(report), *requirements],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"pip could not resolve {requirements}: {proc.stderr[-2000:]}"
    data = json.loads(report.read_text())
    return {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in data["install"]}


@pytest.mark.slow
def test_no_extra_replaces_torch_pyav_or_numpy(tmp_path: Path) -> None:
    """Each extra resolved on top of the test environment (where the Makefile put the CPU torch, PyAV 18 and
    numpy) keeps those three as they are — `pip install -e '.[export]'` once swapped torch for a CUDA build
    and PyAV 18 for 15. lmms-eval is its own environment's extra (it pins PyAV < 16) and is left out."""
    from concurrent.futures import ThreadPoolExecutor
    from importlib.metadata import version

    pytest.importorskip("torch")
    pytest.importorskip("av")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = {k: v for k, v in project["optional-dependencies"].items() if k != "lmms-eval"}
    installed = {name: version(name) for name in PINNED}

    def one(item: tuple[str, list[str]]) -> tuple[str, dict[str, str]]:
        name, reqs = item
        return name, _dry_run([*project["dependencies"], *reqs], tmp_path / f"{name}.json")

    with ThreadPoolExecutor(max_workers=4) as pool:
        changes = dict(pool.map(one, extras.items()))
    bad = {
        extra: {p: f"{installed[p]} → {got[p]}" for p in PINNED if p in got}
        for extra, got in changes.items()
        if any(p in got for p in PINNED)
    }
    assert not bad, f"extras that would replace a pinned package: {bad}"
