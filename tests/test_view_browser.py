"""`egoworld view` in a real headless Chromium (Debian's, driven by Playwright; never `playwright install`):
sample list → filter → sample page with frames and a seeked video; compare; review with undo; human
answers scored like a model; hostile strings stay text. Also makes the README screenshot
(written when docs/view-sample.png is missing or EGOWORLD_UPDATE_SCREENSHOT is set)."""

from __future__ import annotations

import math
import os
import sqlite3
from pathlib import Path

import pytest

from view_helpers import (
    CHROMIUM_ARGS,
    XSS,
    Scripted,
    chromium_path,
    make_view_bench,
    run_model,
    start_view,
    stop,
)

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install 'egoworld[browser-test]'")
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("view")
    bench = make_view_bench(root / "bench", xss=True)
    wrong_first = {f"dir-{i:02d}": "D" for i in range(0, 12, 4)}  # gold A (i % 4 == 0): wrong
    wrong_first["dir-01"] = XSS + " I refuse"  # unparsed, hostile
    runs = {
        "gold": run_model(
            bench,
            root / "runs/gold",
            "oracle-ish",
            scripted=Scripted("oracle-ish"),
            setting="frames",
            frames=4,
            max_pixels=64 * 48,
        ),
        "mixed": run_model(
            bench,
            root / "runs/mixed",
            XSS,
            scripted=Scripted(XSS, wrong_first),
            setting="frames",
            frames=4,
            max_pixels=64 * 48,
            tasks=["DIR"],
        ),
    }
    return {"root": root, "bench": bench, **runs}


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    if exe is None:
        pytest.fail("chromium not found: `apt-get install -y chromium` (make test installs it)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(world, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    proc, url = start_view(
        [str(world["root"] / "runs"), str(world["bench"])], env={"EGOWORLD_CACHE": str(cache)}
    )
    yield url.rstrip("/")
    stop(proc)


def _no_xss(page) -> None:
    assert page.evaluate("window.__xss === undefined"), "a hostile string ran as script"


def test_sample_list_filter_frames_and_video_seek(server, browser, world) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(server + "/")
    assert "different question sets" in page.inner_text("[data-testid=sets-warning]")
    page.click("[data-testid=common-toggle]")
    assert "questions all of them answered" in page.inner_text("body")
    _no_xss(page)
    page.click("nav a:has-text('viewtoy')")
    assert "18 questions" in page.inner_text("[data-testid=count]")
    page.select_option("select[name=task]", "DIR")
    page.select_option("select[name=run]", label=f"{XSS} (frames, 4 fr)")
    page.select_option("select[name=verdict]", "wrong")
    page.click("[data-testid=apply]")
    assert "3 questions" in page.inner_text("[data-testid=count]")
    ids = page.eval_on_selector_all("a.sample-link", "els => els.map(e => e.textContent)")
    assert ids == ["dir-00", "dir-04", "dir-08"]
    _no_xss(page)
    page.click("a.sample-link >> nth=1")
    assert page.inner_text("[data-testid=sample-id]") == "dir-04"
    for img in page.query_selector_all("img.frame"):
        img.scroll_into_view_if_needed()
    page.wait_for_function(
        "[...document.querySelectorAll('img.frame')].every(e => e.complete)", timeout=30000
    )
    imgs = page.eval_on_selector_all(
        "img.frame", "els => els.map(e => [e.getAttribute('src'), e.complete && e.naturalWidth])"
    )
    assert len(imgs) >= 1 + 2 * 5, imgs  # listed query frame + 2 runs × (4 sampled + 1 listed)
    assert all(w and w > 0 for _, w in imgs), imgs
    page.evaluate("window.scrollTo(0, 0)")
    shot = page.screenshot(full_page=True, clip={"x": 0, "y": 0, "width": 1280, "height": 1500})
    assert shot.startswith(b"\x89PNG") and len(shot) > 10_000
    readme_shot = (
        REPO / "docs" / "view-sample.png"
    )  # the README's screenshot: made here when missing or asked
    if readme_shot.parent.is_dir() and (
        not readme_shot.exists() or os.environ.get("EGOWORLD_UPDATE_SCREENSHOT")
    ):
        readme_shot.write_bytes(shot)
    page.wait_for_function("document.getElementById('player').dataset.seeked !== undefined", timeout=15000)
    page.wait_for_function("!document.getElementById('player').seeking", timeout=15000)
    t = page.evaluate("document.getElementById('player').currentTime")
    assert math.isclose(t, 3.0 + 0.5 * 4, abs_tol=0.05), t
    _no_xss(page)
    assert not dialogs
    page.close()


def test_xss_strings_are_text(server, browser) -> None:
    page = browser.new_page()
    page.goto(server + "/b/viewtoy-bench/s/dir-01")
    body = page.inner_text("body")
    assert XSS in body  # shown as text: question, model name, reply
    assert body.count(XSS) >= 3
    _no_xss(page)
    page.goto(server + "/b/viewtoy-bench/s/dir-00")
    assert XSS in page.inner_text("[data-testid=question]")
    _no_xss(page)
    page.goto(server + "/b/viewtoy-bench/compare")
    _no_xss(page)
    page.close()


def test_compare_two_runs(server, browser) -> None:
    page = browser.new_page()
    page.goto(server + "/b/viewtoy-bench/compare")
    paired = page.inner_text("[data-testid=paired]")
    # 12 DIR questions answered by both; 3 wrong + 1 unparsed in the second run: −4/12 = −33.33 points
    assert "-33.3" in paired and "-33.33" not in paired, paired  # one decimal
    assert "Confusion matrices" in page.inner_text("body")
    assert page.locator("table.confusion").count() == 2
    assert page.locator("[data-testid=per-video] tbody tr").count() == 3
    page.close()


def test_review_persists_and_undoes(world, browser, tmp_path) -> None:
    proc, url = start_view([str(world["bench"]), "--review", "ana"])
    try:
        page = browser.new_page()
        base = url.split("/b/")[0]
        for sid, decision in (("dir-02", "accept"), ("dir-03", "reject"), ("count-00", "flag")):
            page.goto(f"{base}/b/viewtoy-bench/s/{sid}")
            page.fill("#reason", f"because {sid}")
            page.click(f"button[data-decision={decision}]")
            page.wait_for_function(
                f"document.querySelector('[data-testid=review-state]').textContent == '{decision}'"
            )
        page.goto(f"{base}/b/viewtoy-bench/s/dir-03")  # reload: persisted
        assert page.inner_text("[data-testid=review-state]") == "reject"
        page.click("button[data-decision=undo]")
        page.wait_for_function("document.querySelector('[data-testid=review-state]').textContent == 'none'")
        page.reload()
        assert page.inner_text("[data-testid=review-state]") == "none"
        page.goto(f"{base}/b/viewtoy-bench/samples?review=accept")
        assert page.eval_on_selector_all("a.sample-link", "e => e.map(x => x.textContent)") == ["dir-02"]
        page.close()
    finally:
        stop(proc)
    log = world["bench"] / "reviews" / "ana.sqlite"
    with sqlite3.connect(log) as db:
        rows = db.execute("SELECT decision, undoes FROM decisions ORDER BY id").fetchall()
    assert [r[0] for r in rows] == ["accept", "reject", "flag", "undo"] and rows[3][1] == 2  # append-only


def test_human_answers_are_scored(world, browser, tmp_path) -> None:
    out = tmp_path / "human-ana"
    proc, url = start_view([str(world["bench"]), "--answer", "ana", "--out", str(out), "--per-task", "2"])
    try:
        page = browser.new_page()
        page.goto(url)
        body = page.inner_text("main")
        assert page.locator("[data-testid=gold]").count() == 0
        assert "Gold" not in body and "correct" not in body and "score" not in body.replace(str(out), "")
        for expected in ("dir-00", "dir-01", "count-00"):
            assert page.inner_text("[data-testid=sample-id]") == expected
            if expected.startswith("dir"):
                page.check("input[name=answer][value=A]")
            else:
                page.fill("input[name=answer]", "2")
            page.click("[data-testid=submit-answer]")
            page.wait_for_function(
                f"document.querySelector('[data-testid=sample-id]')?.textContent != '{expected}'"
            )
        assert "3 of 4 answered" in page.inner_text("[data-testid=progress]")
        page.close()
    finally:
        stop(proc)
    proc, url = start_view([str(out)])  # the human run, like any run
    try:
        page = browser.new_page()
        page.goto(url)
        text = page.inner_text("table.main")
        assert "human:ana" in text
        row = page.inner_text("table.main tbody tr >> nth=0")
        # dir-00 right (gold A), dir-01 wrong (gold B), count-00 exact (gold 2): DIR 50, COUNT 100
        assert "50.0\n" in row and "100.0\n" in row and "50.00" not in row, row  # one decimal
        page.close()
    finally:
        stop(proc)
