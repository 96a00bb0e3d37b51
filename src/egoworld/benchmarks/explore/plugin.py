"""EXPLORE plug-in: the strategies' request chains (`egoworld.benchmarks.explore.plan`), the one-go prompt
and gold reply of the standard plan, and the judge-based scorer.

`egoworld run` sends the chains of ``--option strategy=one-go | stepwise`` (one request per sample, or
several dependent ones; the options are `plan.RUN_OPTIONS`); without EXPLORE options in the text setting it keeps the standard plan (the one-go prompt,
one request per sample and epoch). Either run folder is scored by `egoworld score --run RUNDIR --judge …`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from egoworld.benchmarks.explore import BENCHMARK_NAME, TASK_ORDER, TASK_SCENE
from egoworld.benchmarks.explore.instances import instance_from_sample
from egoworld.benchmarks.explore.plan import RUN_OPTIONS, official_inputs, plan_requests
from egoworld.benchmarks.explore.prompts import describe_scene, one_go_prompt
from egoworld.core.permutations import Permutation
from egoworld.core.plugin import BenchmarkPlugin, LeaderboardColumn, ReportSection, ViewerPanel
from egoworld.core.prompts import PromptBuilder
from egoworld.core.schema import Sample


class ExplorePromptBuilder(PromptBuilder):
    """``question`` holds the official ``|``-joined actions; the prompt is the paper's one-go prompt."""

    def question_text(self, sample: Sample, choices: Sequence[str] | None) -> str:
        return one_go_prompt(sample.question)

    def gold_reply(self, sample: Sample, perm: Permutation | None) -> str | None:
        inst = instance_from_sample(sample)
        return describe_scene(inst.final.objects) if inst.final is not None else None


def _score_run(run_dir: Any, **kwargs: Any) -> dict[str, Any]:
    from egoworld.benchmarks.explore.score_run import score_explore_run

    return score_explore_run(run_dir, **kwargs)


def _sections(
    summaries: Sequence[dict[str, Any]], run_dirs: Sequence[Any], labels: Sequence[str], out: Any
) -> list:
    """Table 2 (by sequence length), Table 3 (abnormal cases) and the cost table in `egoworld report`."""
    from egoworld.benchmarks.explore import paper_tables as rep
    from egoworld.render.html import note_html, table_html
    from egoworld.render.tables import to_markdown

    scored = [s for s in summaries if "explore" in s]
    if not scored:
        return []
    labs = [lab for s, lab in zip(summaries, labels, strict=True) if "explore" in s]
    judges = sorted({rep._judge_label(s) for s in scored})
    note = "Judge: " + "; ".join(judges) + "."
    out_sections = []
    for title, table in (
        ("EXPLORE Table 2: final scene by sequence length (S_att, S_rel ×20)", rep.table2(scored, labs)),
        ("EXPLORE Table 3: abnormal cases", rep.table3(scored, labs)),
        ("EXPLORE inference cost", rep.cost_table(scored, labs)),
    ):
        if len(table) > 1:
            out_sections.append(
                ReportSection(
                    title,
                    to_markdown(table) + "\n" + note + "\n",
                    table_html(table) + note_html(note),
                )
            )
    return out_sections


def _panels(sample: Sample) -> list[ViewerPanel]:
    """The viewer's "Reference final scene" table, when the sample's answer is a list of objects."""
    a = sample.answer
    if sample.answer_type != "free":
        return []
    objs = a.get("objects", a.get("final_scene")) if isinstance(a, dict) else a
    if not isinstance(objs, list) or not objs:
        return []
    rows = []
    for o in objs:
        o = o if isinstance(o, dict) else {"description": str(o)}
        relations = o.get("relation") or []
        rows.append(
            {
                "Category": o.get("category", ""),
                "Description": o.get("description", ""),
                "Relations": "; ".join(str(r) for r in relations),
            }
        )
    return [ViewerPanel("Reference final scene", rows=rows)]


def _leaderboard(tasks: Sequence[str]) -> list[LeaderboardColumn]:
    """Table 2: S_obj, S_att ×20, S_rel ×20 and S_uni (the paper's weights over those three means) for the
    normal instances of each partition and in full."""
    from egoworld.benchmarks.explore.scorer import PAPER_WEIGHTS

    cols = []
    for part, title in (("short", "Short"), ("medium", "Medium"), ("long", "Long"), ("", "Full")):
        where = (("partition", part),) if part else ()
        base = [("S_obj", "s_obj", 1.0), ("S_att", "s_att", 20.0), ("S_rel", "s_rel", 20.0)]
        cols += [
            LeaderboardColumn(name, group=title, tasks=(TASK_SCENE,), where=where, field=f, scale=k)
            for name, f, k in base
        ]
        weights = tuple((f"{title}/{name}", w) for (name, _, _), w in zip(base, PAPER_WEIGHTS, strict=True))
        cols.append(LeaderboardColumn("S_uni", group=title, combine=weights))
    return cols


PLUGIN = BenchmarkPlugin(
    name=BENCHMARK_NAME,
    title="EXPLORE-Bench",
    prompt=ExplorePromptBuilder(),
    report_columns=TASK_ORDER,
    score_run=_score_run,
    report_sections=_sections,
    viewer_panels=_panels,
    plan_requests=plan_requests,
    official_inputs=official_inputs,
    run_options=RUN_OPTIONS,
    leaderboard=_leaderboard,
    titles={
        "scene": "Final scene (S_uni)",
        "abnormal": "Abnormal cases (S_abn)",
        "unannotated": "Without final annotation",
    },
)
