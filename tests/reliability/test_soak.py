"""Soak (issue 24 item 5), the 10k version of `bench/soak.py`: 10,000 requests at 64 in flight against the
127.0.0.1 test server with 429s, 500s and timeouts (once per prompt each) leave every row written once."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_ten_thousand_requests_with_faults_lose_and_duplicate_nothing(tmp_path: Path):
    path = Path(__file__).resolve().parents[2] / "bench" / "soak.py"
    spec = importlib.util.spec_from_file_location("soak", path)
    soak = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(soak)
    result = soak.one(10_000, tmp_path)
    assert result["requests"] >= 10_000
    assert result["lost"] == 0 and result["duplicated"] == 0, result
    assert result["rows_written"] == result["requests"], result
