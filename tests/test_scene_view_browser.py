"""`egoworld view --scene DIR --review NAME` in a real headless Chromium (Debian's, driven by Playwright):
the image with its boxes, per object and relation accept / edit / delete / add, undo, a hostile string kept as
text; then `egoworld scene apply` writes exactly the corrections made in the browser."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.world.scene_file import load_scene
from view_helpers import CHROMIUM_ARGS, XSS, chromium_path, start_view, stop

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install 'egoworld[browser-test]'")


def make_scene(folder: Path) -> Path:
    (folder / "images").mkdir(parents=True)
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)).save(folder / "images/final.png")
    Image.fromarray(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)).save(folder / "images/initial.png")
    objects = [
        {
            "id": "bowl.1",
            "category": "bowl",
            "description": "a red bowl",
            "relation": ["on the table", "next to the cup"],
            "image": 0,
            "bbox": [10, 20, 60, 70],
        },
        {
            "id": "cup.1",
            "category": "cup",
            "description": XSS,
            "relation": ["on the table"],
            "image": 0,
            "bbox": [80, 30, 120, 90],
        },
    ]
    scene = {
        "version": 1,
        "images": ["images/final.png"],
        "initial_image": "images/initial.png",
        "actions": ["C picks up the cup", "C puts the cup on the table"],
        "objects": objects,
    }
    (folder / "scene.json").write_text(json.dumps(scene))
    return folder


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    if exe is None:
        pytest.fail("chromium not found: `apt-get install -y chromium` (make test installs it)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _click(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def test_scene_correction_round_trip(tmp_path, browser) -> None:
    scene_dir = make_scene(tmp_path / "s1")
    proc, url = start_view(["--scene", str(scene_dir), "--review", "ana"])
    try:
        page = browser.new_page()
        page.goto(url)
        page.wait_for_function("document.querySelector('[data-testid=scene-image-0]').naturalWidth > 0")
        assert page.eval_on_selector_all("rect[data-box]", "els => els.map(e => e.dataset.box)") == [
            "bowl.1",
            "cup.1",
        ]
        assert page.evaluate("document.querySelector('svg').getAttribute('viewBox')") == "0 0 160 120"
        assert XSS in page.input_value("[data-testid='object-cup.1'] input[name=description]")
        assert page.evaluate("window.__xss === undefined")
        row = "[data-testid='object-bowl.1']"
        _click(page, f"{row} button[data-op=accept]")
        assert page.inner_text("[data-testid='state-bowl.1']") == "accepted"
        _click(page, f"{row} li[data-rel='next to the cup'] button[data-op=rel_delete]")
        page.fill(f"{row} li[data-rel='on the table'] input[name=rel]", "on the wooden table")
        _click(page, f"{row} li[data-rel='on the table'] button[data-op=rel_edit]")
        page.fill(f"{row} input[name=new_rel]", "left of the cup")
        _click(page, f"{row} button[data-op=rel_add]")
        assert page.inner_text("[data-testid='state-bowl.1']") == "edited"
        cup = "[data-testid='object-cup.1']"
        page.fill(f"{cup} input[name=description]", "a white cup")
        _click(page, f"{cup} button[data-op=edit]")
        page.fill("[data-testid=add-object] input[name=category]", "spoon")
        page.fill("[data-testid=add-object] input[name=description]", "a steel spoon")
        page.fill("[data-testid=add-object] input[name=new_rel]", "next to the bowl")
        _click(page, "[data-testid=add-object] button[data-op=add]")
        assert page.inner_text("[data-testid='state-spoon.1']") == "added"
        _click(page, f"{cup} button[data-op=delete]")
        assert page.query_selector(cup) is None and "cup.1" in page.inner_text("[data-testid=deleted]")
        _click(page, "[data-testid=undo]")  # the delete is taken back
        assert page.inner_text("[data-testid='state-cup.1']") == "edited"
        assert "6 edits" in page.inner_text("[data-testid=scene-progress]")
        page.close()
    finally:
        stop(proc)
    log = scene_dir / "reviews" / "ana.sqlite"
    with sqlite3.connect(log) as db:  # append-only: the undo is a row, the delete is still there
        ops = [r[0] for r in db.execute("SELECT op FROM edits ORDER BY id")]
    assert ops == ["accept", "rel_delete", "rel_edit", "rel_add", "edit", "add", "delete", "undo"]
    res = CliRunner().invoke(app, ["scene", "apply", str(log)])
    assert res.exit_code == 0, res.output
    fixed = load_scene(scene_dir / "corrected.json")
    assert fixed.to_official() == [
        {
            "category": "bowl",
            "description": "a red bowl",
            "relation": ["on the wooden table", "left of the cup"],
        },
        {"category": "cup", "description": "a white cup", "relation": ["on the table"]},
        {"category": "spoon", "description": "a steel spoon", "relation": ["next to the bowl"]},
    ]
    assert fixed.extra["review"]["reviewers"] == ["ana"] and fixed.extra["review"]["edits"] == 6
