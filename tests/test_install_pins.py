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
