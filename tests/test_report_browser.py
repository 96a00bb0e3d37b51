"""The report in a real headless Chromium (Debian's, via Playwright's `executable_path`) at a 1,400 px window:
no table is wider than the page (wide ones scroll inside their own box) and the page never scrolls sideways.
The report holds the official Beyond3D aggregates (imported lmms-eval logs: 19 columns) and a toy benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks_factory import balanced_mc_bench
from egoworld.core.run_config import RunConfig
from egoworld.interchange.lmms_eval_log import import_lmms_eval_log
from egoworld.report.build import build_report
from egoworld.runner.run import run_benchmark
from view_helpers import CHROMIUM_ARGS, chromium_path

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install 'egoworld[browser-test]'")

MEASURE = """() => {
  const page = document.documentElement.clientWidth;
  const out = [];
  for (const t of document.querySelectorAll('table')) {
    let box = t;  // the table, or the sideways-scrolling box it sits in
    for (let e = t.parentElement; e; e = e.parentElement) {
      if (getComputedStyle(e).overflowX === 'auto') { box = e; break; }
    }
    const r = box.getBoundingClientRect();
    out.push({left: r.left, right: r.right, table: t.getBoundingClientRect().width, boxed: box !== t});
  }
  return {page, scroll: document.documentElement.scrollWidth, tables: out};
}"""


def test_report_tables_fit_a_1400px_window(data_dir: Path, tmp_path: Path) -> None:
    log = sorted((data_dir / "beyond3d-official/logs").glob("*/*.jsonl"))[3]
    official = import_lmms_eval_log(log, tmp_path / "imp").run
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4)
    runs = [official]
    for name in ("oracle", "random"):
        run_benchmark(RunConfig(bench=bench.root, model=name, out=tmp_path / name, progress=False))
        runs.append(tmp_path / name)
    index = build_report(runs, tmp_path / "report", pages="none")
    html = index.read_text()
    assert "Beyond3D — official release (lmms-eval log) · " in html  # the benchmark and what the build is
    assert "Object–Camera Direction" in html  # task titles
    exe = chromium_path()
    if exe is None:
        pytest.fail("chromium not found: `apt-get install -y chromium` (make test installs it)")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(index.as_uri())
        got = page.evaluate(MEASURE)
        browser.close()
    assert len(got["tables"]) >= 6
    assert got["scroll"] <= got["page"], got
    for t in got["tables"]:
        assert t["left"] >= 0 and t["right"] <= got["page"], t
    # the official aggregates' headers wrap: that table fits without its scroll box being needed
    assert max(t["table"] for t in got["tables"]) <= got["page"], got
