"""Every shell block of the getting-started page, the per-stage guides and the README runs, so the docs cannot rot.

A page's ```` ```bash ```` blocks run in order, in one temporary folder, against the installed `egoworld` (the
interpreter's own `bin/` first on PATH): a renamed flag, a changed output file or a failing command fails its
page. What a page's Markdown says steers the run:

* ```` ```bash title="needs …" ```` — a block that needs a model server, a GPU or real data: shown, not run;
* ```` ```yaml title="FILE" ```` (any language but bash) — written to FILE before the next blocks run;
* ``<!-- docs-test: after getting-started -->`` — the page starts in a copy of the getting-started folder
  (its world, benchmark and run), made once per test session;
* ``<!-- docs-test: slow -->`` — the page's test is marked slow (`make test-fast` leaves it out);
* ``<!-- docs-test: xfail REASON -->`` right above a block — a known bug: if the block fails, the page's test
  is an expected failure (put such a block last); once it passes, remove the comment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [DOCS / "getting-started.md", *sorted((DOCS / "guides").glob("*.md")), ROOT / "README.md"]
FENCE = re.compile(r"^(?P<fence>```+)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
TITLE = re.compile(r'title="([^"]*)"')
XFAIL = re.compile(r"<!-- docs-test: xfail (.*?) -->\s*$")
BLOCK_TIMEOUT_S = 300


def blocks(text: str) -> list[tuple[str, str | None, str]]:
    """(language, title, body) of each fenced block, in page order."""
    return [(lang, title, body) for lang, title, body, _ in _blocks(text)]


def _blocks(text: str) -> list[tuple[str, str | None, str, str | None]]:
    """(language, title, body, known-bug reason) of each fenced block, in page order."""
    out = []
    for m in FENCE.finditer(text):
        info = m["info"].strip()
        lang = info.split()[0] if info else ""
        title = TITLE.search(info)
        xfail = XFAIL.search(text[: m.start()].rstrip("\n"))
        out.append((lang, title.group(1) if title else None, m["body"], xfail.group(1) if xfail else None))
    return out


def runnable(lang: str, title: str | None) -> bool:
    return lang in ("bash", "sh") and not (title or "").startswith("needs")


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), src) if p)
    env.update(
        HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", MPLBACKEND="Agg", EGOWORLD_CACHE=str(home / ".cache")
    )
    env.pop("OPENAI_API_KEY", None)
    return env


def run_page(page: Path, folder: Path) -> None:
    text = page.read_text(encoding="utf-8")
    env = _env(folder)
    ran = 0
    for i, (lang, title, body, known_bug) in enumerate(_blocks(text)):
        if not runnable(lang, title):
            if lang not in ("bash", "sh") and title and not title.startswith("needs"):
                (folder / title).parent.mkdir(parents=True, exist_ok=True)
                (folder / title).write_text(body, encoding="utf-8")
            continue
        proc = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", body],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_S,
        )
        if proc.returncode != 0 and known_bug:
            pytest.xfail(f"{page.relative_to(ROOT)}, block {i + 1}: {known_bug}")
        assert proc.returncode == 0, (
            f"{page.relative_to(ROOT)}, block {i + 1} failed (exit {proc.returncode}):\n{body}\n"
            f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
        )
        ran += 1
    assert ran, f"{page.relative_to(ROOT)} has no runnable shell block"


@pytest.fixture(scope="session")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("getting-started")
    run_page(DOCS / "getting-started.md", folder)
    return folder


def _param(page: Path) -> object:
    marks = [pytest.mark.slow] if "<!-- docs-test: slow -->" in page.read_text(encoding="utf-8") else []
    return pytest.param(page, id=str(page.relative_to(ROOT)), marks=marks)


@pytest.mark.parametrize("page", [_param(p) for p in PAGES])
def test_page_commands_run(page: Path, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if page.name == "getting-started.md":
        request.getfixturevalue("started")  # runs the page (once per session)
        return
    folder = tmp_path / "work"
    if "<!-- docs-test: after getting-started -->" in text:
        shutil.copytree(request.getfixturevalue("started"), folder, symlinks=True)
    else:
        folder.mkdir()
    run_page(page, folder)


def test_few_blocks_are_skipped() -> None:
    """At most a third of the guides' shell blocks may need a server, a GPU, real data or a browser.

    (The README is left out of the count: its set-up blocks set up the checkout itself.)"""
    guides = [p for p in PAGES if p.parent != ROOT]
    skipped = [
        (p.name, body.splitlines()[0] if body else "")
        for p in guides
        for lang, title, body in blocks(p.read_text(encoding="utf-8"))
        if lang in ("bash", "sh") and not runnable(lang, title)
    ]
    total = sum(
        1 for p in guides for lang, _, _ in blocks(p.read_text(encoding="utf-8")) if lang in ("bash", "sh")
    )
    assert len(skipped) * 3 <= total, f"{len(skipped)} of {total} shell blocks are not run: {skipped}"


@pytest.mark.parametrize("name", ["beyond3d", "vsi_wild", "explore"])
def test_benchmark_quick_start_is_the_readmes(name: str) -> None:
    """Each benchmark page's quick start is the README's, which the README's test runs."""
    page = ROOT / "src" / "egoworld" / "benchmarks" / name / "README.md"
    quick = next(
        body for lang, title, body in blocks(page.read_text(encoding="utf-8")) if runnable(lang, title)
    )
    readme = [body for lang, title, body in blocks((ROOT / "README.md").read_text(encoding="utf-8"))]
    assert quick in readme, f"{page.relative_to(ROOT)}: its quick start differs from the README's"
