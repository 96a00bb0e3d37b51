"""The documentation site builds with `mkdocs build --strict` (a broken link, a missing page or include fails).

The CLI reference page is generated from the Typer app during the build (`docs/hooks/cli_reference.py`), so a
command whose help cannot render fails here too. mkdocs comes with the `test` extra.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocs")
pytest.importorskip("material")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), src) if p)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env["NO_MKDOCS_2_WARNING"] = "1"
    return env


def test_site_builds_strict(tmp_path: Path) -> None:
    out = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    cli = (out / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for words in ("egoworld world synth", "egoworld build beyond3d", "egoworld run", "egoworld sweep run"):
        assert words in cli, f"the CLI reference lacks {words!r}"
    for page in ("benchmarks/beyond3d", "benchmarks/vsi-wild", "benchmarks/explore"):
        html = (out / page / "index.html").read_text(encoding="utf-8")
        assert "--8&lt;--" not in html and "--8<--" not in html, f"{page}: the README was not included"


def test_readme_is_short() -> None:
    assert (ROOT / "README.md").stat().st_size <= 10_240, (
        "README.md is over 10 KB: move the detail into docs/"
    )
