"""Where the peer harnesses run: lmms-eval 0.7 lives in its own environment (`make peers`: it pins PyAV < 16
and pulls a CUDA torchvision), named by ``EGOWORLD_LMMS_EVAL_PYTHON``; Inspect is in the test environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LMMS_EVAL_PYTHON = "EGOWORLD_LMMS_EVAL_PYTHON"


def lmms_eval_python() -> str:
    """The interpreter that runs ``python -m lmms_eval``. Named by the environment variable (as `make test`
    does): it must work, or the test fails; not named: this interpreter if it has lmms-eval, else skip."""
    named = os.environ.get(LMMS_EVAL_PYTHON)
    if named:
        if not Path(named).is_file():
            pytest.fail(f"{LMMS_EVAL_PYTHON}={named} does not exist: run `make peers` to create it")
        probe = subprocess.run([named, "-c", "import lmms_eval, egoworld"], capture_output=True, text=True)
        if probe.returncode != 0:
            pytest.fail(f"{named} cannot import lmms_eval and egoworld: {probe.stderr.strip()[-600:]}")
        return named
    try:
        import lmms_eval  # noqa: F401
    except ImportError:
        pytest.skip(f"lmms-eval is not installed here and {LMMS_EVAL_PYTHON} is not set (`make peers`)")
    return sys.executable
