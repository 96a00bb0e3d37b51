"""One presentation across the report and the viewer, in Debian's headless Chromium at a 1,400 px window:
no table wider than the page (folded sections opened), no snake_case task id in a heading, caption, legend
or column header of the report, the viewer's overview, compare and leaderboard pages, nor in any plot's
text; one colour per model across every plot of the report; the compare page's default baseline is the
first run named and its header glyph is one Debian's fonts have. Runs: the official Beyond3D aggregates
(an imported lmms-eval log) and a toy benchmark whose task ids are snake_case."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import matplotlib.figure
import pytest

from benchmarks_factory import balanced_mc_bench
from egoworld.core.folders.bench_folder import load_benchmark
from egoworld.core.run_config import RunConfig
from egoworld.interchange.lmms_eval_log import import_lmms_eval_log
from egoworld.report.build import build_report
from egoworld.runner.run import run_benchmark
from view_helpers import CHROMIUM_ARGS, chromium_path, start_view, stop

pytestmark = pytest.mark.slow
playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install 'egoworld[browser-test]'")

WIDTH = 1400
#: every table's own box (not a scroll box around it) and every visible heading-like text
MEASURE = """() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const tables = [...document.querySelectorAll('table')].map(t => {
    const r = t.getBoundingClientRect();
    return {left: r.left, right: r.right, text: t.innerText.slice(0, 80)};
  });
  const sel = 'h1, h2, h3, h4, caption, th, summary, nav, label, legend, img[alt]';
  const texts = [...document.querySelectorAll(sel)].map(e => e.alt || e.innerText);
  return {page: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth,
          tables, texts};
}"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory, data_dir: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("present")
    log = sorted((data_dir / "beyond3d-official/logs").glob("*/*.jsonl"))[3]
    out = {"official": import_lmms_eval_log(log, root / "imp").run}
    bench = balanced_mc_bench(root / "b", n_mc=8, n_int=4, task_names=("camera_turn_side", "object_count"))
    for name in ("random", "oracle"):  # the first named is not the alphabetically first
        run_benchmark(
            RunConfig(bench=bench.root, model=name, out=root / name, permutations="shuffle24", progress=False)
        )
        out[name] = root / name
    return out


def _task_ids(run_dirs: list[Path]) -> set[str]:
    """The snake_case task ids of the runs' benchmarks."""
    from egoworld.core.folders.files import read_json_object

    ids: set[str] = set()
    for rd in run_dirs:
        bench = load_benchmark(read_json_object(rd / "run.json")["benchmark_path"])
        ids |= {t for t in bench.manifest.tasks if "_" in t}
    assert ids, "the fixture should hold snake_case task ids"
    return ids


def _snake(texts: list[str], ids: set[str]) -> list[str]:
    pattern = re.compile(r"(?<![\w/])(" + "|".join(sorted(map(re.escape, ids))) + r")(?![\w/])")
    return [t for t in texts if pattern.search(t)]


def _check_page(page, url: str, ids: set[str]) -> dict:
    page.goto(url)
    got = page.evaluate(MEASURE)
    assert got["scroll"] <= got["page"], (url, got["scroll"], got["page"])
    for t in got["tables"]:
        assert t["left"] >= 0 and t["right"] <= WIDTH, (url, t)
    assert not _snake(got["texts"], ids), (url, _snake(got["texts"], ids))
    return got


def test_report_and_viewer_fit_1400px_and_name_tasks_by_title(runs, tmp_path, monkeypatch) -> None:
    order = [runs["official"], runs["random"], runs["oracle"]]
    ids = _task_ids(order)
    figures: list[dict] = []
    real_savefig = matplotlib.figure.Figure.savefig

    def recording_savefig(fig, *args, **kwargs):
        texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
        colours = {}
        for ax in fig.axes:
            handles, labels = ax.get_legend_handles_labels()
            for h, lab in zip(handles, labels, strict=True):
                if lab in ("chance", "uniform guess"):
                    continue
                artist = h.patches[0] if hasattr(h, "patches") else h
                colour = artist.get_facecolor() if hasattr(artist, "get_facecolor") else artist.get_color()
                colours[lab] = matplotlib.colors.to_hex(colour)
        figures.append({"texts": texts, "colours": colours})
        return real_savefig(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", recording_savefig)
    index = build_report(order, tmp_path / "report", pages="none")
    monkeypatch.undo()

    # plots: task titles on every axis, tick and legend; one colour per model across the report's plots
    assert len(figures) >= 3
    assert not _snake([t for f in figures for t in f["texts"]], ids)
    by_model: dict[str, set[str]] = defaultdict(set)
    for f in figures:
        for lab, colour in f["colours"].items():
            by_model[lab.split(" (")[0]].add(colour)
    assert {"random", "oracle"} <= set(by_model), by_model
    assert all(len(c) == 1 for c in by_model.values()), by_model
    assert len({next(iter(c)) for c in by_model.values()}) == len(by_model), by_model

    html = index.read_text()
    assert "Beyond3D — official release (lmms-eval log) · " in html and "<details>" in html
    assert "Camera turn side" in html and "build " in html

    exe = chromium_path()
    if exe is None:
        pytest.fail("chromium not found: `apt-get install -y chromium` (make test installs it)")
    proc, url = start_view([*(a for r in order for a in ("--run", str(r)))])
    try:
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            got = _check_page(page, index.as_uri(), ids)
            assert len(got["tables"]) >= 6
            base = url.rstrip("/")
            page.goto(base + "/")
            links = sorted(set(re.findall(r'href="(/b/[^"/]+)/samples"', page.content())))
            assert len(links) == 2, links
            for link in links:
                _check_page(page, base + "/", ids)
                _check_page(page, base + link + "/leaderboard", ids)
                compare = _check_page(page, base + link + "/compare", ids)
                assert not any("＼" in t for t in compare["texts"])
            toy = next(link for link in links if "toy" in link)
            page.goto(base + toy + "/compare")
            assert "Paired differences (vs random" in page.inner_text("body")
            page.goto(base + toy + "/compare?runs=oracle&runs=random")  # the first run the URL names
            assert "Paired differences (vs oracle" in page.inner_text("body")
            overview = page.goto(base + "/") and page.inner_text("body")
            assert "Beyond3D — official release (lmms-eval log)" in overview and "build " in overview
            assert re.search(r"\b\d+\.\d\d\b", page.inner_text("table.main")) is None  # one decimal
            browser.close()
    finally:
        stop(proc)
