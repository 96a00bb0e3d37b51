"""`egoworld view` without a browser: the sample list's filters and paging, the review log, `bench filter`,
human answers as a run, the token when the app listens beyond this machine, and report plot names."""

from __future__ import annotations

from pathlib import Path

import pytest

from view_helpers import XSS, Scripted, make_view_bench, run_model

starlette_testclient = pytest.importorskip("starlette.testclient", reason="pip install 'egoworld[view]'")


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("viewunit")
    bench = make_view_bench(root / "bench")
    gold = run_model(bench, root / "runs/gold", "gold", scripted=Scripted("gold"))
    wrong = {f"dir-{i:02d}": "B" for i in range(12)}  # right only where gold is B (i % 4 == 1)
    wrong["count-00"] = "no idea"
    mixed = run_model(
        bench, root / "runs/mixed", "mixed", scripted=Scripted("mixed", wrong), permutations="shuffle24"
    )
    return {"root": root, "bench": bench, "gold": gold, "mixed": mixed}


def test_sample_list_filters_and_pages(world) -> None:
    from egoworld.view.queries import PAGE_SIZE, SampleFilter, list_samples
    from egoworld.view.workspace import Workspace

    ws = Workspace([world["root"] / "runs"])
    (bv,) = ws.benches.values()
    assert [r.id for r in bv.runs] == ["gold", "mixed"]
    everything = list_samples(bv, SampleFilter())
    assert everything.total == 18 and everything.pages == 1 and PAGE_SIZE >= 18
    wrong = list_samples(bv, SampleFilter(task="DIR", verdict="wrong", run="mixed"))
    # shuffle24: "B" is a different option in each order, so some orders are right; never all 24
    assert wrong.total == 12 and all(r["sample"].task == "DIR" for r in wrong.rows)
    unparsed = list_samples(bv, SampleFilter(verdict="unparsed", run="mixed"))
    assert [r["sample"].id for r in unparsed.rows] == ["count-00"]
    assert list_samples(bv, SampleFilter(video="v1")).total == 6
    assert list_samples(bv, SampleFilter(group="horizon_bucket=short")).total == 6
    assert list_samples(bv, SampleFilter(disagree=True)).total > 0
    by_score = list_samples(bv, SampleFilter(run="mixed", sort="score", task="COUNT"))
    assert by_score.rows[0]["sample"].id == "count-00"


def test_sample_page_and_compare_render(world) -> None:
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.workspace import Workspace

    app = create_app(ViewApp(Workspace([world["root"]])))
    with starlette_testclient.TestClient(app) as client:
        page = client.get("/b/viewtoy-bench/s/dir-01")
        assert page.status_code == 200
        assert page.text.count('<tr><td class="num">') >= 25  # 24 orders of the Shuffle24 run + 1
        assert "matched" not in page.text and "Trajectory t1" in page.text
        assert client.get("/b/viewtoy-bench/compare").status_code == 200
        assert client.get("/b/viewtoy-bench/s/nope").status_code == 404
        assert client.get("/b/viewtoy-bench/video/dir-01").headers["content-type"] == "video/mp4"
        ranged = client.get("/b/viewtoy-bench/video/dir-01", headers={"Range": "bytes=0-99"})
        assert ranged.status_code == 206 and len(ranged.content) == 100  # seeking needs ranges
        assert client.get("/plot/viewtoy-bench.png").content[:4] == b"\x89PNG"


def test_token_when_listening_beyond_localhost(world) -> None:
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.workspace import Workspace

    app = create_app(ViewApp(Workspace([world["bench"]]), token="s3cret"))
    with starlette_testclient.TestClient(app) as client:
        assert client.get("/").status_code == 403
        assert client.get("/?token=wrong").status_code == 403
        assert client.get("/?token=s3cret").status_code == 200
        assert client.get("/b/viewtoy-bench/samples").status_code == 200  # the cookie it set


def test_review_log_is_append_only_with_undo(tmp_path) -> None:
    from egoworld.view.review import ReviewLog

    log = ReviewLog(tmp_path / "r.sqlite", reviewer="ana", bench_hash="h1")
    log.decide("a", "accept")
    log.decide("a", "reject", "wrong gold")
    log.decide("b", "flag", "blurry")
    assert log.current()["a"]["decision"] == "reject"
    log.undo("a")
    assert log.current()["a"]["decision"] == "accept"  # back to the earlier decision
    log.undo("a")
    assert "a" not in log.current()
    assert log.undo("a") is None
    assert len(log.history("a")) == 4
    with pytest.raises(ValueError):
        log.decide("a", "maybe")
    log.close()
    from egoworld.core.folders.files import InputFileError

    with pytest.raises(InputFileError, match="another version"):
        ReviewLog(tmp_path / "r.sqlite", reviewer="ana", bench_hash="h2")


def test_bench_filter_keeps_accepted_and_records_review(world, tmp_path) -> None:
    from typer.testing import CliRunner

    from egoworld.cli import app
    from egoworld.core.folders.bench_folder import load_benchmark
    from egoworld.view.review import ReviewLog

    bench = load_benchmark(world["bench"])
    log_path = tmp_path / "ana.sqlite"
    log = ReviewLog(log_path, reviewer="ana", bench_hash=bench.hash)
    for sid in ("dir-00", "dir-03", "dir-01", "count-02"):
        log.decide(sid, "accept")
    log.decide("dir-00", "reject", "ambiguous")  # dir-03 depends on dir-00: dropped with it
    log.decide("count-03", "flag")
    log.close()
    out = tmp_path / "reviewed"
    res = CliRunner().invoke(
        app, ["bench", "filter", "--bench", str(world["bench"]), "--review", str(log_path), "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    new = load_benchmark(out)
    assert [s.id for s in new.samples] == ["dir-01", "count-02"]
    review = new.manifest.source["review"]
    assert review["accepted"] == 3 and review["rejected"] == 1 and review["flagged"] == 1
    assert review["dropped_dependencies"] == 1 and review["reviewers"] == ["ana"]
    assert review["benchmark_hash"] == bench.hash
    assert (out / "videos" / "v1.mp4").is_file()  # media still readable from the new folder
    again = CliRunner().invoke(
        app,
        [
            "bench",
            "filter",
            "--bench",
            str(world["bench"]),
            "--review",
            str(tmp_path / "no.sqlite"),
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert again.exit_code == 2 and "not found" in again.output


def test_human_run_scores_like_a_model(world, tmp_path) -> None:
    from egoworld.scoring.score import score_run
    from egoworld.view.human import HumanRun

    out = tmp_path / "human"
    h = HumanRun(world["bench"], "bo", out, tasks=["DIR"])
    assert h.next_sample().id == "dir-00"
    with pytest.raises(ValueError):
        h.answer("dir-00", "Z")
    h.answer("dir-00", "A")
    h.answer("dir-01", "C")
    h.close()
    h = HumanRun(world["bench"], "bo", out, tasks=["DIR"])  # resumes
    assert h.next_sample().id == "dir-02" and h.progress() == (2, 12)
    h.close()
    summary = score_run(out)
    assert summary["model_spec"] == "human:bo"
    assert summary["tasks"]["DIR"]["n"] == 2 and summary["tasks"]["DIR"]["accuracy"] == 50.0
    assert summary["missing"] == 10


def test_hostile_strings_are_escaped(world, tmp_path) -> None:
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.workspace import Workspace

    root = tmp_path / "x"
    bench = make_view_bench(root / "bench", xss=True)
    run_model(bench, root / "runs" / "evil", XSS, scripted=Scripted(XSS, {"dir-00": XSS}), tasks=["DIR"])
    app = create_app(ViewApp(Workspace([root])))
    with starlette_testclient.TestClient(app) as client:
        for url in ("/", "/b/viewtoy-bench/samples", "/b/viewtoy-bench/s/dir-00", "/b/viewtoy-bench/compare"):
            text = client.get(url).text
            assert "<script>window" not in text, url
            assert "&lt;script&gt;window" in text, url


def test_section_plots_get_distinct_names(tmp_path) -> None:
    from egoworld.render.plots import section_plot_path

    a = section_plot_path(tmp_path, "beyond3d_cumulative", [tmp_path / "r1", tmp_path / "r2"])
    b = section_plot_path(tmp_path, "beyond3d_cumulative", [tmp_path / "r3"])
    assert a != b and a.parent == b.parent == tmp_path / "plots"
    assert a == section_plot_path(tmp_path, "beyond3d_cumulative", [tmp_path / "r1", tmp_path / "r2"])


def test_report_static_sample_pages_are_self_contained(world, tmp_path) -> None:
    import re
    import shutil

    from egoworld.report.build import build_report

    framed = run_model(
        world["bench"],
        tmp_path / "framed",
        "framed",
        scripted=Scripted("framed"),
        setting="frames",
        frames=4,
        max_pixels=64 * 48,
        tasks=["DIR"],
    )
    report = tmp_path / "report"
    index = build_report([world["gold"], world["mixed"], framed], report)
    page = index.read_text()
    assert "different question sets" in page and "95 % cluster-bootstrap CIs" in page
    assert (report / "viewtoy_ci95.csv").read_text().splitlines()[-1].startswith("chance,25.0")
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(report, moved)
    shutil.rmtree(report)
    htmls = list(moved.rglob("*.html"))
    assert len(list((moved / "samples").rglob("*.html"))) == 18
    for h in htmls:
        for link in re.findall(r'(?:href|src)="([^"#]+)"', h.read_text()):
            assert not link.startswith(("/", "file:", "http")), (h, link)
            assert (h.parent / link).resolve().is_file(), (h, link)  # resolves inside the copy
    from egoworld.report.sample_pages import page_name

    assert len({page_name(i) for i in ("a|b", "a_b", "x" * 70 + "1", "x" * 70 + "2")}) == 4
    samples = next((moved / "runs").glob("*framed*/samples.html")).read_text()
    assert f'href="../../samples/viewtoy/{page_name("dir-04")}"' in samples
    dir04 = (moved / "samples" / "viewtoy" / page_name("dir-04")).read_text()
    thumbs = re.findall(r'src="(\.\./\.\./thumbs/[0-9a-f]+\.jpg)"', dir04)
    assert len(thumbs) == 5  # 4 sampled frames + the listed query frame
    assert "rule" in dir04.lower() and "Gold: <b>A) front-left</b>" in dir04


def test_audit_marks_feed_beyond3d_audit(tmp_path) -> None:
    import csv

    from typer.testing import CliRunner

    from egoworld.cli import app
    from egoworld.media.testvideo import write_counter_video
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.audit_marks import AuditSession
    from egoworld.world import EpisodeMedia, save_episode
    from test_beyond3d_tracks import hand_made_episode

    world = tmp_path / "world" / "hand"
    save_episode(hand_made_episode(EpisodeMedia(video="video.mp4")), world)
    write_counter_video(world / "video.mp4", frames=600, fps=10, size=(160, 120))
    marks = tmp_path / "marks.csv"
    session = AuditSession([tmp_path / "world"], "ana", marks, per_episode=6, seed=1)
    assert [it.key for it in session.items] == [
        it.key
        for it in AuditSession([tmp_path / "world"], "x", tmp_path / "m2.csv", per_episode=6, seed=1).items
    ]  # seeded: the same items for everyone
    with starlette_testclient.TestClient(create_app(ViewApp(None, audit=session))) as client:
        for k in range(6):
            page = client.get("/audit")
            assert f'src="/audit/frame/{k}"' in page.text
            assert client.get(f"/audit/frame/{k}").content[:4] == b"\x89PNG"
            assert client.post("/audit", json={"index": k, "visible": k % 2 == 0}).status_code == 200
        assert "All items are marked" in client.get("/audit").text
        assert client.post("/audit", json={"index": 99, "visible": True}).status_code == 400
    rows = list(csv.DictReader(marks.open()))
    assert len(rows) == 6 and {r["reviewer"] for r in rows} == {"ana"}
    res = CliRunner().invoke(
        app, ["beyond3d", "audit", "--world", str(tmp_path / "world"), "--marks", str(marks)]
    )
    assert res.exit_code == 0, res.output
    assert "Table 5" in res.output and "Balanced acc." in res.output


def test_view_cli_refuses_bad_input(world, tmp_path) -> None:
    from typer.testing import CliRunner

    from egoworld.cli import app

    res = CliRunner().invoke(app, ["view", str(tmp_path / "nothing")])
    assert res.exit_code == 2 and "no such folder" in res.output
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(app, ["view", str(tmp_path / "empty")])
    assert res.exit_code == 2 and "holds no benchmark folder" in res.output
    res = CliRunner().invoke(app, ["view", str(world["bench"]), "--review", "a", "--answer", "b"])
    assert res.exit_code == 2 and "separate sessions" in res.output
    res = CliRunner().invoke(app, ["view", str(world["root"] / "runs"), "--review", "a"])
    assert res.exit_code == 2 and "exactly one benchmark folder" in res.output


def test_viewer_panels_come_from_the_benchmark_plugin() -> None:
    """The sample page shows what the plug-in's ``viewer_panels`` hook gives (EXPLORE: the reference scene)."""
    from egoworld.core.schema import Sample
    from egoworld.view.detail import viewer_panels

    scene = [
        {"category": "cup", "description": "a <red> cup", "relation": ["on table", "left of plate"]},
        "a lid",
    ]
    s = Sample(id="q", benchmark="explore", task="scene", question="open|close", answer_type="free",
               answer={"objects": scene})  # fmt: skip
    (panel,) = viewer_panels(s)
    assert panel.title == "Reference final scene"
    assert panel.rows == [
        {"Category": "cup", "Description": "a <red> cup", "Relations": "on table; left of plate"},
        {"Category": "", "Description": "a lid", "Relations": ""},
    ]
    assert viewer_panels(s.model_copy(update={"benchmark": "toy"})) == []
    assert viewer_panels(s.model_copy(update={"answer": {"objects": []}})) == []


def test_sample_page_renders_any_plugins_panels(world, monkeypatch) -> None:
    from egoworld.core.plugin import BenchmarkPlugin, ViewerPanel
    from egoworld.view import detail
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.workspace import Workspace

    panels = [
        ViewerPanel("Toy rows", rows=[{"Key": "k<1>", "Value": 2}]),
        ViewerPanel("Toy html", html="<b>x</b>"),
    ]
    plugin = BenchmarkPlugin(name="viewtoy-bench", viewer_panels=lambda s: panels)
    monkeypatch.setattr(detail, "plugin_for", lambda name: plugin)
    app = create_app(ViewApp(Workspace([world["root"]])))
    with starlette_testclient.TestClient(app) as client:
        page = client.get("/b/viewtoy-bench/s/dir-01").text
    assert "<h2>Toy rows</h2>" in page and "<th>Key</th><th>Value</th>" in page
    assert "<td>k&lt;1&gt;</td><td>2</td>" in page  # rows are escaped, html is not
    assert "<h2>Toy html</h2>" in page and "<b>x</b>" in page


def test_view_index_is_reused_and_rebuilt_when_scores_change(tmp_path, monkeypatch):
    import json
    import os

    from benchmarks_factory import balanced_mc_bench
    from egoworld.core.run_config import RunConfig
    from egoworld.runner.run import run_benchmark
    from egoworld.view import run_index as index
    from egoworld.view.workspace import Workspace

    monkeypatch.setenv("EGOWORLD_CACHE", str(tmp_path / "cache"))
    bench = balanced_mc_bench(tmp_path / "b", n_mc=8, n_int=4)
    run = tmp_path / "runs" / "oracle"
    run_benchmark(RunConfig(bench=bench.root, model="oracle", out=run, progress=False))
    built = []
    real = index.RunIndex._build
    monkeypatch.setattr(index.RunIndex, "_build", lambda self, *a: (built.append(1), real(self, *a)))
    ws = Workspace([tmp_path / "runs"])
    assert len(built) == 1 and index.index_path(run).is_file()
    (rv,) = ws.runs.values()
    assert rv.results["mc-001"].verdict == "correct" and rv.results["mc-001"].pred == 1
    Workspace([tmp_path / "runs"])
    assert len(built) == 1  # reused: scores.jsonl unchanged
    # a rescore that marks mc-001 wrong: the index is rebuilt and the viewer shows the new verdict
    lines = (run / "scores.jsonl").read_text().splitlines()
    rows = [json.loads(x) for x in lines]
    for r in rows:
        if r["sample"] == "mc-001":
            r["score"], r["pred"] = 0.0, 2
    (run / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    st = (run / "scores.jsonl").stat()
    os.utime(run / "scores.jsonl", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    os.utime(run / "scores.json", ns=(st.st_atime_ns, st.st_mtime_ns + 2 * 10**9))
    ws = Workspace([tmp_path / "runs"])
    assert len(built) == 2
    res = next(iter(ws.runs.values())).results["mc-001"]
    assert res.verdict == "wrong" and res.pred == 2 and res.rows[0]["score"] == 0.0


def test_indexed_sample_list_matches_a_scan_of_the_benchmark(world) -> None:
    """Every filter and sort of the SQL-backed list gives the ids, in the order, that scanning the loaded
    benchmark gives (the list's meaning before the index)."""
    from egoworld.core.folders.bench_folder import load_benchmark
    from egoworld.view.queries import PAGE_SIZE, SampleFilter, list_samples
    from egoworld.view.workspace import Workspace

    ws = Workspace([world["root"] / "runs"])
    (bv,) = ws.benches.values()
    samples = load_benchmark(world["bench"]).samples
    assert bv.bench.samples == samples and bv.bench.sample("dir-05") == samples[5]

    def scan(f: SampleFilter) -> list[str]:
        run = next((r for r in bv.runs if r.id == f.run), bv.runs[0])
        gkey, _, gval = f.group.partition("=")
        out = []
        for s in samples:
            res = run.results.get(s.id)
            preds = {
                repr(r.results[s.id].pred)
                for r in bv.runs
                if s.id in r.results and r.results[s.id].score is not None
            }
            if (
                (f.task and s.task != f.task)
                or (f.video and s.cluster_id != f.video)
                or (gkey and str(s.metadata.get(gkey)) != gval)
                or (
                    f.text and f.text.lower() not in s.question.lower() and f.text.lower() not in s.id.lower()
                )
                or (f.verdict and (res is None or res.verdict != f.verdict))
                or (f.disagree and len(preds) <= 1)
            ):
                continue
            out.append(s)
        if f.sort in ("task", "video"):
            out.sort(key=lambda s: s.task if f.sort == "task" else s.cluster_id)
        elif f.sort in ("score", "score-desc"):
            out.sort(
                key=lambda s: -1.0 if (r := run.results.get(s.id)) is None or r.score is None else r.score,
                reverse=f.sort == "score-desc",
            )
        return [s.id for s in out][:PAGE_SIZE]

    filters = [
        SampleFilter(),
        SampleFilter(sort="task"),
        SampleFilter(sort="video", task="DIR"),
        SampleFilter(sort="score-desc", run="mixed"),
        SampleFilter(sort="score", run="gold", video="v2"),
        SampleFilter(verdict="wrong", run="mixed", sort="video"),
        SampleFilter(disagree=True, sort="task"),
        SampleFilter(group="horizon_bucket=short"),
        SampleFilter(group="horizon_bucket=None"),
        SampleFilter(text="MUG", task="DIR"),
        SampleFilter(text="count-0"),
        SampleFilter(text="no such words"),
    ]
    for f in filters:
        assert [r["sample"].id for r in list_samples(bv, f).rows] == scan(f), f
    assert list_samples(bv, SampleFilter(group="horizon_bucket=None")).total > 0  # COUNT has no bucket


def test_review_offers_the_most_doubtful_first(tmp_path) -> None:
    """A review session lists and steps through the questions most-doubtful first (``metadata["doubt"]``);
    without a review the list keeps the file order."""
    from egoworld.core.folders.bench_folder import load_benchmark, save_benchmark
    from egoworld.view.app import ViewApp, create_app
    from egoworld.view.review import ReviewLog
    from egoworld.view.workspace import Workspace

    root = make_view_bench(tmp_path / "bench", name="doubty")
    b = load_benchmark(root)
    doubts = {"count-03": 0.9, "dir-05": 0.7, "dir-00": 0.2}
    samples = [
        s.model_copy(update={"metadata": s.metadata | {"doubt": doubts.get(s.id, 0.1)}}) for s in b.samples
    ]
    save_benchmark(root, name="doubty", tasks=b.manifest.tasks, samples=samples, seed=0)
    ws = Workspace([root])
    (bv,) = ws.benches.values()
    log = ReviewLog(tmp_path / "r.sqlite", reviewer="ana", bench_hash=load_benchmark(root).hash)
    with starlette_testclient.TestClient(create_app(ViewApp(ws, review=log, review_bench=bv.id))) as client:
        listed = client.get(f"/b/{bv.id}/samples").text
        order = [listed.index(sid) for sid in ("count-03", "dir-05", "dir-00", "dir-01")]
        assert order == sorted(order), "most doubtful first"
        page = client.get(f"/b/{bv.id}/s/count-03").text
        assert 'href="/b/doubty-bench/s/dir-05" data-testid="next-sample"' in page
        by_file = client.get(f"/b/{bv.id}/samples?sort=file").text
        assert by_file.index("dir-00") < by_file.index("count-03")
    with starlette_testclient.TestClient(create_app(ViewApp(Workspace([root])))) as client:
        plain = client.get(f"/b/{bv.id}/samples").text
        assert plain.index("dir-00") < plain.index("dir-05") < plain.index("count-03")


def test_compare_baseline_is_the_first_named_run_else_not_the_oracle(tmp_path) -> None:
    """``egoworld view runs/`` (found by scanning, in name order: oracle, prior, random) compares against the
    first run that is not the oracle; runs named on the command line keep their order, the first is the
    baseline."""
    from types import SimpleNamespace

    from egoworld.view.app import default_baseline

    runs = [
        SimpleNamespace(dir=tmp_path / "runs" / name, manifest={"model_spec": name})
        for name in ("oracle", "prior", "random")
    ]
    assert default_baseline(runs, [tmp_path / "runs"]).dir.name == "prior"  # type: ignore[arg-type]
    named = [runs[0].dir, runs[2].dir]
    assert default_baseline(runs, named).dir.name == "oracle"  # type: ignore[arg-type]
    only_oracle = runs[:1]
    assert default_baseline(only_oracle, [tmp_path / "runs"]).dir.name == "oracle"  # type: ignore[arg-type]
    assert default_baseline([], []) is None
