"""Reports: the paper's table layout, Shuffle24 table, plots and escaped HTML."""

from __future__ import annotations

import csv
import io

from benchmarks_factory import balanced_mc_bench
from egoworld.core.model import Generation, Model, Request
from egoworld.core.run_config import RunConfig
from egoworld.report.build import build_report
from egoworld.runner.run import run_benchmark

EVIL = "<script>alert('pwned')</script> The answer is B & not <b>C</b>."


class Evil(Model):
    backend = "test"

    def identity(self):
        return {"backend": "test", "model": "<img src=x onerror=alert(1)>"}

    async def generate(self, request: Request) -> Generation:
        return Generation(text=EVIL if request.choices else "<i>4</i>")


def test_report_tables_plots_and_escaping(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4)
    runs = []
    for name, model in (("oracle", None), ("random", None)):
        out = tmp_path / name
        run_benchmark(
            RunConfig(bench=bench.root, model=name, out=out, permutations="shuffle24", progress=False),
            model=model,
        )
        runs.append(out)
    evil = tmp_path / "evil"
    run_benchmark(RunConfig(bench=bench.root, model="evil", out=evil, progress=False), model=Evil())
    runs.append(evil)

    index = build_report(runs, tmp_path / "report")
    report = tmp_path / "report"
    page = index.read_text()
    assert "<script>" not in page and "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page  # the model identity, escaped
    samples = next((report / "runs").glob("*evil*/samples.html")).read_text()
    assert "<script>" not in samples and "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in samples

    rows = list(csv.reader(io.StringIO((report / "toy_main.csv").read_text())))
    assert rows[0][:5] == ["Model", "MC", "COUNT", "Overall", "Macro"]
    oracle = next(r for r in rows if r[0].startswith("oracle"))
    assert oracle[1] == "100.0 ± 0.0" and oracle[3] == "100.0 ± 0.0"
    evil_row = next(r for r in rows if r[0].startswith("evil"))
    # answers B: right on 2 of 8 questions; SEM = sqrt((2·0.75² + 6·0.25²) / 7) / sqrt(8) = 16.37 %
    assert evil_row[1] == "25.0 ± 16.4"
    shuffle = list(csv.reader(io.StringIO((report / "toy_shuffle24.csv").read_text())))
    assert [r[0].split(" ")[0] for r in shuffle[1:]] == ["oracle", "random"]
    assert (report / "plots" / "toy_tasks.png").stat().st_size > 5000
    assert (report / "plots" / "toy_shuffle24.png").stat().st_size > 5000
    assert "| Model | MC | COUNT | Overall |" in (report / "tables.md").read_text()
    assert 'href="runs/' in page


def _broken_links(report):
    """Relative href/src targets of every HTML file in the report folder that do not exist."""
    import re
    from pathlib import Path

    broken = []
    for page in Path(report).rglob("*.html"):
        for target in re.findall(r'(?:href|src)="([^"#?]+)', page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                broken.append((page.name, target))
    return broken


def _three_runs(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=40, n_int=12)
    runs = []
    for name in ("oracle", "random", "prior"):
        run_benchmark(RunConfig(bench=bench.root, model=name, out=tmp_path / name, progress=False))
        runs.append(tmp_path / name)
    return bench, runs


def test_report_pages_auto_all_none_link_only_to_written_pages(tmp_path, monkeypatch):
    from egoworld.report import sample_pages

    bench, runs = _three_runs(tmp_path)
    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))
    full = tmp_path / "all"
    build_report(runs, full, pages="all", workers=2)
    assert len(list((full / "samples" / "toy").glob("*.html"))) == len(bench.samples)
    assert not _broken_links(full)

    monkeypatch.setattr(sample_pages, "PAGES_PER_TASK", 2)
    monkeypatch.setattr(sample_pages, "PAGES_PER_KIND", 3)
    auto = tmp_path / "auto"
    build_report(runs, auto, pages="auto", workers=2)
    written = {p.name for p in (auto / "samples" / "toy").glob("*.html")}
    # per task: the first 2, up to 3 disagreements, up to 3 wrong answers (they overlap) — never all 52
    assert 2 * 2 <= len(written) <= 2 * 8 < len(bench.samples)
    assert sample_pages.page_name("mc-000") in written and sample_pages.page_name("int-001") in written
    assert not _broken_links(auto)
    linked = (
        (next((auto / "runs").glob("*random*")) / "samples.html").read_text().count('href="../../samples/')
    )
    assert linked == len(written)
    # the tables do not depend on which pages were written
    for name in ("toy_main.csv", "toy_ci95.csv", "tables.md"):
        assert (auto / name).read_text() == (full / name).read_text()

    none = tmp_path / "none"
    build_report(runs, none, pages="none")
    assert not list((none / "samples").rglob("*.html")) and not _broken_links(none)


def test_two_builds_in_folders_of_one_name_keep_their_own_sections(tmp_path):
    """``a/bench`` and ``b/bench`` (two builds of one benchmark): each has its section and its table files."""
    runs = []
    for where, n in (("a", 8), ("b", 12)):
        bench = balanced_mc_bench(tmp_path / where / "bench", n_mc=n, n_int=4)
        out = tmp_path / where / "runs" / "oracle"
        run_benchmark(RunConfig(bench=bench.root, model="oracle", out=out, progress=False))
        runs.append(out)
    build_report(runs, tmp_path / "report")
    mains = sorted(p.name for p in (tmp_path / "report").glob("*_main.csv"))
    assert len(mains) == 2, mains
    counts = sorted(
        len(list(csv.reader(io.StringIO(p.read_text())))) for p in (tmp_path / "report").glob("*_main.csv")
    )
    assert counts[0] == counts[1] == 2  # header + the oracle's row, in each
