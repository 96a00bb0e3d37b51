"""Shared fixtures: the real data folder, the imported VSI-Super-Wild benchmark, and the synthetic walks and the
VSI-Super-Wild benchmark built from them (built once per test run, also under pytest-xdist)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from shared_builds import shared_folder
from sim_worlds import VSI_SIM_PER_TASK, VSI_SIM_SEED, sim_walks

if TYPE_CHECKING:
    from egoworld.core.folders.bench_folder import Benchmark

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


@pytest.fixture(scope="session")
def vsi_walks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`sim_worlds.sim_walks`, built once per test run; tests only read them."""
    return shared_folder(tmp_path_factory, "vsi_walks", sim_walks)


@pytest.fixture(scope="session")
def vsi_sim_bench(vsi_walks: Path, tmp_path_factory: pytest.TempPathFactory) -> Benchmark:
    """VSI-Super-Wild built from `vsi_walks` (`VSI_SIM_PER_TASK` per task, seed `VSI_SIM_SEED`); read only."""
    from egoworld.benchmarks.vsi_wild.build.builder import build_vsi_wild
    from egoworld.benchmarks.vsi_wild.build.config import BuildConfig
    from egoworld.core.folders.bench_folder import load_benchmark

    cfg = BuildConfig(per_task=VSI_SIM_PER_TASK, seed=VSI_SIM_SEED)
    return load_benchmark(
        shared_folder(tmp_path_factory, "vsi_sim_bench", lambda p: build_vsi_wild([vsi_walks], p, cfg))
    )
