"""`egoworld leaderboard`: Markdown / CSV / LaTeX equal a table recomputed here from scores.jsonl; ties come
from the paired cluster bootstrap; runs over different questions are refused unless allowed; the papers'
layouts (Beyond3D chance row, VSI-Super-Wild ± SEM and duration groups, EXPLORE partitions)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks_factory import balanced_mc_bench
from egoworld.core.folders.bench_folder import save_benchmark
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Sample, TaskInfo
from egoworld.render import board_formats as render
from egoworld.runner.run import run_benchmark
from egoworld.scoring.leaderboard import DifferentQuestions, build_board, gather
from egoworld.scoring.score import score_run

CLI = "from egoworld.cli import main; main()"


def _cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", CLI, "leaderboard", *args], capture_output=True, text=True, check=check
    )


def _recompute(run: Path) -> list[float]:
    """Per task (manifest order: MC, COUNT) the mean over questions of the mean over rows, then the macro."""
    per_q: dict[str, tuple[str, list[float]]] = {}
    for line in (run / "scores.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["score"] is not None:
            per_q.setdefault(r["sample"], (r["task"], []))[1].append(r["score"])
    tasks: dict[str, list[float]] = {"MC": [], "COUNT": []}
    for task, scores in per_q.values():
        tasks[task].append(sum(scores) / len(scores))
    values = [100 * sum(v) / len(v) for v in tasks.values()]
    return [round(v, 1) for v in values] + [round(sum(values) / len(values), 1)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lb")
    bench = balanced_mc_bench(tmp / "b", n_mc=40, n_int=12)
    out = {}
    for name, perms in (("oracle", "none"), ("random", "none"), ("prior", "none")):
        run_benchmark(
            RunConfig(bench=bench.root, model=name, out=tmp / name, permutations=perms, progress=False)
        )
        score_run(tmp / name)
        out[name] = tmp / name
    twin = tmp / "random-twin"  # the same answers as `random` in another folder
    shutil.copytree(out["random"], twin)
    out["twin"] = twin
    return tmp, bench, out


def _md_values(md: str, model: str) -> list[float]:
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {model} |"))
    cells = [c.strip() for c in line.split("|")[3:-1]]
    return [float(re.sub(r"[*<>/u]", "", c)) for c in cells]


def test_markdown_csv_latex_equal_the_recomputed_table(runs, tmp_path):
    _, _, r = runs
    proc = _cli(
        "--run",
        str(r["oracle"]),
        "--run",
        str(r["random"]),
        "--run",
        str(r["prior"]),
        "--format",
        "all",
        "--out",
        str(tmp_path),
    )
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["leaderboard_toy.csv", "leaderboard_toy.md", "leaderboard_toy.tex"], proc.stdout
    md = (tmp_path / "leaderboard_toy.md").read_text()
    rows = list(csv.reader(io.StringIO((tmp_path / "leaderboard_toy.csv").read_text())))
    tex = (tmp_path / "leaderboard_toy.tex").read_text()
    assert rows[0][:5] == ["Model", "Setting", "MC", "COUNT", "Macro"]
    # the prior was fitted on these very questions: its row says so in every format
    labels = {"oracle": "oracle", "random": "random", "prior": "prior (fitted on these questions)"}
    for name, label in labels.items():
        want = _recompute(r[name])
        assert _md_values(md, label) == want
        row = next(x for x in rows if x[0] == label)
        assert [float(x) for x in row[2:5]] == want and row[-1] == name
        tex_row = next(ln for ln in tex.splitlines() if ln.startswith(label + " &"))
        assert [float(re.search(r"\d+\.\d", x).group()) for x in tex_row.split("&")[2:]] == want
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    # the oracle is best everywhere (bold), clearly so: no other run shares the mark
    table = "\n".join(ln for ln in md.splitlines() if not ln.startswith("> "))  # the warning line is bold too
    assert "**100.0**" in table and table.count("**") == 2 * 3
    assert "5 cluster(s)" in md and "too few" in md  # 52 questions from 5 videos
    assert next(x for x in rows if x[0] == "oracle")[5:8] == ["best", "best", "best"]
    assert r"\textbf{100.0}" in tex and r"\underline{" in tex
    # the chance row: MC's manifest chance, COUNT has none
    chance = next(x for x in rows if x[0] == "Chance")
    assert chance[2:5] == ["25.0", "—", "—"]
    # the function h6's sweep test may call gives the same numbers
    board = build_board(gather([r["oracle"], r["random"], r["prior"]])[0])
    assert [round(c.value, 1) for c in board.rows[0][1]] == _recompute(r["oracle"])


def test_identical_answers_tie_and_clearly_different_ones_do_not(runs):
    _, _, r = runs
    entries, _ = gather([r["random"], r["twin"], r["oracle"]])
    for e in entries:
        e.setting = "same"  # one setting block, so the three are ranked together
    board = build_board(entries, seed=3)
    marks = [[c.mark for c in cells] for _, cells in board.rows]
    assert marks[2] == ["best"] * 3  # oracle
    assert marks[0] == marks[1] == ["second"] * 3  # random and its twin tie for second
    again = build_board(entries, seed=3)
    assert [[c.mark for c in cells] for _, cells in again.rows] == marks  # seeded: the same marks
    assert render.latex(again) == render.latex(board) and render.to_csv(again) == render.to_csv(board)


def test_different_questions_are_refused_or_warned(runs, tmp_path):
    tmp, bench, r = runs
    short = tmp_path / "short"
    run_benchmark(RunConfig(bench=bench.root, model="oracle", out=short, limit=20, progress=False))
    score_run(short)
    proc = _cli("--run", str(r["oracle"]), "--run", str(short), check=False)
    assert (
        proc.returncode == 2
        and "different questions" in proc.stderr
        and "--allow-different-questions" in proc.stderr
    )
    with pytest.raises(DifferentQuestions):
        build_board(gather([r["oracle"], short])[0])
    ok = _cli("--run", str(r["oracle"]), "--run", str(short), "--allow-different-questions")
    assert "warning" in ok.stderr and "Warning: the runs answered different questions" in ok.stdout
    assert "only the 20 questions" in ok.stdout
    # the report says it too, in tables.md as in the HTML; its section is named by benchmark and setting
    from egoworld.report.build import build_report

    build_report([r["oracle"], short], tmp_path / "report", pages="none")
    md = (tmp_path / "report" / "tables.md").read_text()
    assert (
        "## toy — unknown origin · text\n" in md
        and "> **Warning:** These runs scored different question sets" in md
    )


def _hand_run(root: Path, bench, name: str, scores: dict[str, float], extra=None) -> Path:
    """A scored run folder written by hand (run.json + scores.jsonl + scores.json), for layouts whose builders
    need worlds."""
    run = root / name
    run.mkdir(parents=True)
    manifest = {
        "benchmark": bench.name,
        "benchmark_path": str(bench.root),
        "benchmark_hash": bench.hash,
        "model_spec": name,
        "inputs": {"setting": "text"},
        "permutations": "none",
    }
    (run / "run.json").write_text(json.dumps(manifest))
    rows = [
        {
            "sample": s.id,
            "task": s.task,
            "status": "ok",
            "score": scores[s.id],
            **((extra or {}).get(s.id, {})),
        }
        for s in bench.samples
    ]
    (run / "scores.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
    (run / "scores.json").write_text("{}")  # a finished scoring writes it last
    return run


def test_beyond3d_layout_has_eight_types_macro_and_chance(tmp_path):
    from egoworld.benchmarks.beyond3d import TASK_ORDER, TASK_TITLES

    chance = dict(zip(TASK_ORDER, (50.0, 20.0, 20.0, 22.7, 25.0, 33.3, 33.3, 33.3), strict=True))
    samples = [
        Sample(
            id=f"{t}-{i}",
            benchmark="beyond3d",
            task=t,
            episode=f"v{i % 3}",
            cluster=f"v{i % 3}",
            question="q?",
            answer_type="choice",
            choices=("a", "b"),
            answer=0,
        )
        for t in TASK_ORDER
        for i in range(6)
    ]
    tasks = {
        t: TaskInfo(answer_type="choice", metric="accuracy", title=TASK_TITLES[t], chance=chance[t])
        for t in TASK_ORDER
    }
    bench = save_benchmark(tmp_path / "b3d", name="beyond3d", tasks=tasks, samples=samples, seed=0)
    run = _hand_run(tmp_path, bench, "m", {s.id: float(int(s.id[-1]) % 2) for s in samples})
    board = build_board(gather([run])[0])
    assert render.header(board)[2:] == [*(TASK_TITLES[t] for t in TASK_ORDER), "Macro"]
    assert [round(c, 1) for c in board.chance] == [*chance.values(), 29.7]
    assert [round(c.value, 1) for c in board.rows[0][1]] == [50.0] * 9


def test_vsi_layout_overall_sem_and_duration_groups(tmp_path):
    samples = [
        Sample(
            id=f"{t}-{i}",
            benchmark="vsi_wild",
            task=t,
            episode=f"v{i % 4}",
            cluster=f"v{i % 4}",
            question="q?",
            answer_type="choice",
            choices=("a", "b", "c", "d"),
            answer=0,
            metadata={"duration_group": "0-10" if i % 2 else "10-30"},
        )
        for t in ("VMR", "VPO", "VOO", "VOC")
        for i in range(8)
    ]
    tasks = {
        t: TaskInfo(answer_type="choice", metric="accuracy", chance=25.0)
        for t in ("VMR", "VPO", "VOO", "VOC")
    }
    bench = save_benchmark(tmp_path / "vsi", name="vsi_wild", tasks=tasks, samples=samples, seed=0)
    scores = {s.id: 1.0 if s.metadata["duration_group"] == "0-10" else 0.0 for s in samples}
    run = _hand_run(tmp_path, bench, "m", scores)
    board = build_board(gather([run])[0])
    head = render.header(board)[2:]
    assert head[:5] == ["VMR", "VPO", "VOO", "VOC", "Overall"]
    cells = dict(zip(head, board.rows[0][1], strict=True))
    assert cells["Overall"].value == 50.0 and cells["Overall"].sem == pytest.approx(
        100 * (0.25 / 31) ** 0.5 * (32 / 32) ** 0.5, rel=0.05
    )
    assert cells["Duration (min) 0-10"].value == 100.0 and cells["Duration (min) 10-30"].value == 0.0
    assert " ± " in render.markdown(board)


def test_explore_layout_partitions(tmp_path):
    samples = [
        Sample(
            id=f"x{i}",
            benchmark="explore",
            task="scene",
            episode=f"v{i % 3}",
            cluster=f"v{i % 3}",
            question="a|b",
            answer_type="free",
            answer={"objects": []},
            metadata={"partition": p},
        )
        for i, p in enumerate(["short", "short", "medium", "long"])
    ]
    tasks = {"scene": TaskInfo(answer_type="free", metric="s_uni")}
    bench = save_benchmark(tmp_path / "ex", name="explore", tasks=tasks, samples=samples, seed=0)
    extra = {
        s.id: {"partition": s.metadata["partition"], "s_obj": 60.0 + i, "s_att": 2.0, "s_rel": 3.0}
        for i, s in enumerate(samples)
    }
    run = _hand_run(tmp_path, bench, "m", {s.id: 0.5 for s in samples}, extra)
    board = build_board(gather([run])[0])
    cells = dict(zip(render.header(board)[2:], board.rows[0][1], strict=True))
    assert cells["Short S_obj"].value == 60.5 and cells["Short S_att"].value == 40.0
    assert cells["Short S_uni"].value == pytest.approx(0.25 * 60.5 + 0.35 * 40 + 0.40 * 60)
    assert cells["Long S_obj"].value == 63.0
    tex = render.latex(board)
    assert r"\multicolumn{4}{c}{Short}" in tex and r"\cmidrule(lr){3-6}" in tex


def test_view_leaderboard_page_over_http_and_compare_baseline(runs, tmp_path):
    """`egoworld view` serves the same table (best bold) at /b/BENCH/leaderboard; the compare page measures
    against the run `--baseline` names (and `?baseline=` overrides it)."""
    import urllib.request

    from view_helpers import start_view, stop

    _, _, r = runs
    args = ["--run", str(r["oracle"]), "--run", str(r["random"]), "--run", str(r["prior"])]
    proc, url = start_view([*args, "--baseline", str(r["prior"])])
    try:
        base = url.rstrip("/")
        overview = urllib.request.urlopen(base + "/").read().decode()
        link = re.search(r'href="(/b/[^"]+/leaderboard)"', overview).group(1)
        page = urllib.request.urlopen(base + link).read().decode()
        assert (
            'data-testid="leaderboard"' in page and '<div class="scroll"><table class="leaderboard">' in page
        )
        assert '<td class="num" data-mark="best"><b>100.0</b></td>' in page
        assert "<th>MC</th><th>COUNT</th><th>Macro</th>" in page
        compare = urllib.request.urlopen(base + link.replace("leaderboard", "compare")).read().decode()
        assert "Paired differences (vs prior (text))" in compare
        chosen = urllib.request.urlopen(base + link.replace("leaderboard", "compare?baseline=oracle")).read()
        assert "Paired differences (vs oracle (text))" in chosen.decode()
    finally:
        stop(proc)
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "egoworld.cli",
            "view",
            "--run",
            str(r["oracle"]),
            "--baseline",
            str(r["prior"]),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "not among the runs shown" in refused.stderr


def test_explore_runs_scored_by_different_judges_are_flagged(tmp_path):
    samples = [
        Sample(id=f"x{i}", benchmark="explore", task="scene", episode="v", cluster="v", question="a|b",
               answer_type="free", answer={"objects": []}, metadata={"partition": "short"})
        for i in range(3)
    ]  # fmt: skip
    bench = save_benchmark(
        tmp_path / "ex", name="explore", tasks={"scene": TaskInfo(answer_type="free", metric="s_uni")},
        samples=samples, seed=0,
    )  # fmt: skip
    extra = {s.id: {"partition": "short", "s_obj": 50.0, "s_att": 2.0, "s_rel": 2.0} for s in samples}
    runs = []
    for name, judge in (("a", "lexical"), ("b", "openai:qwen3-8b")):
        run = _hand_run(tmp_path, bench, name, {s.id: 0.5 for s in samples}, extra)
        (run / "scores.json").write_text(json.dumps({"explore": {"judge": {"label": judge}}}))
        runs.append(run)
    board = build_board(gather(runs)[0])
    assert "different judges scored these runs (a: lexical; b: openai:qwen3-8b)" in render.markdown(board)
    assert not build_board(gather(runs[:1])[0]).warning()


def test_too_few_clusters_are_said_in_every_format(tmp_path):
    """Two runs on questions from 2 videos: the bootstrap cannot separate them, and each format says so."""
    bench = balanced_mc_bench(tmp_path / "b", n_mc=16, n_int=0, videos=2)
    for name in ("oracle", "random"):
        run_benchmark(RunConfig(bench=bench.root, model=name, out=tmp_path / name, progress=False))
        score_run(tmp_path / name)
    board = build_board(gather([tmp_path / "oracle", tmp_path / "random"])[0])
    assert board.n_clusters == 2 and "too few" in board.warning()
    from egoworld.render import board_formats

    for fmt in ("md", "csv", "latex"):
        assert "too few for the paired bootstrap" in board_formats.render(board, fmt), fmt
    assert "too few for the paired bootstrap" in board_formats.html(board)


def test_a_run_whose_scores_json_is_missing_is_left_out_by_name(runs, tmp_path):
    """Rows without their scores.json (another scoring's, or half written) are never tabled."""
    _, _, r = runs
    half = tmp_path / "half"
    shutil.copytree(r["random"], half)
    (half / "scores.json").unlink()
    entries, unscored = gather([r["oracle"], half])
    assert [e.dir for e in entries] == [r["oracle"]] and unscored == [str(half)]
