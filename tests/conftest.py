"""Shared fixtures: the real data folder, the imported VSI-Super-Wild benchmark and small hand-made ones."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
# the viewer's and the report's index files go to a throwaway folder, never the user's ~/.cache
os.environ.setdefault("EGOWORLD_CACHE", tempfile.mkdtemp(prefix="egoworld-cache-"))

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("EGOWORLD_DATA", REPO.parent / "shared" / "data"))
VSI_QA = DATA / "vsi-super-wild" / "vsi_super_wild_qa.jsonl"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    assert DATA.is_dir(), f"shared data folder not found at {DATA} (set EGOWORLD_DATA)"
    return DATA


@pytest.fixture(scope="session")
def vsi_bench_dir(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    from egoworld.benchmarks.vsi_wild.importer import import_vsi_wild_qa

    out = tmp_path_factory.mktemp("vsi_wild")
    import_vsi_wild_qa(data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl", out)
    return out
