"""`compare_worlds`: every figure of a perceived world against its truth, and the agreement table.

The figures (JSON): ``episodes`` (per episode: trajectory, places, objects; `compare`), ``summary`` (means
over episodes), ``questions`` (``vsi_wild`` and / or ``beyond3d`` per task; `compare_questions`) and
``unpaired`` (episode ids found in one world only). Walk episodes (both load as VSI-Super-Wild walks) get
the VSI-Super-Wild questions; episodes with Beyond3D geometry in both worlds get the Beyond3D ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from egoworld.benchmarks.vsi_wild.build.config import ANNOTATOR, BuildConfig, VisibilityRules
from egoworld.compare.episodes import episode_figures, pair_episodes
from egoworld.compare.question_agreement import beyond3d_agreement, walk_agreement
from egoworld.core.folders.files import InputFileError
from egoworld.render.tables import Table, fmt, to_markdown
from egoworld.world.episode_folder import load_episode

Say = Callable[[str], None]
SUMMARY_KEYS = {
    "trajectory": ("ate_pct", "ate_m", "rpe_pct", "registration_rate"),
    "places": ("time_agreement", "boundary_error_s"),
    "objects": ("count_mra", "hota", "idf1", "mota", "first_s_error", "last_s_error"),
}


def finite(obj: Any) -> Any:
    """``obj`` with every NaN / infinite float as None (JSON has no NaN)."""
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj


def _is_walk(folder: Path) -> bool:
    from egoworld.world.walk_source import load_source

    try:
        load_source(folder)
    except (InputFileError, KeyError, ValueError):
        return False
    return True


def _has_geometry(folder: Path) -> bool:
    from egoworld.benchmarks.beyond3d.build.common import has_geometry

    return has_geometry(load_episode(folder))


def summarise(episodes: dict[str, dict]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for part, keys in SUMMARY_KEYS.items():
        for k in keys:
            vals = [e[part][k] for e in episodes.values() if e.get(part) and e[part].get(k) is not None]
            vals = [v for v in vals if np.isfinite(v)]
            out[f"{part}.{k}" if part != "objects" else k] = float(np.mean(vals)) if vals else None
    return out


def compare_worlds(
    perceived: Path,
    truth: Path,
    say: Say | None = None,
    anchors: int = 1000,
    visibility: VisibilityRules = ANNOTATOR,
) -> dict:
    """Compare the two worlds (see the module docstring); refuses non-worlds and worlds sharing no episode.
    ``visibility``: the rule both worlds' instances pass before VSI-Super-Wild questions are made."""
    say = say or (lambda _m: None)
    pairs, only_p, only_t = pair_episodes(Path(perceived), Path(truth))
    if only_p or only_t:
        say(
            f"unpaired episodes: {len(only_p)} only perceived {only_p[:5]}, {len(only_t)} only truth {only_t[:5]}"
        )
    episodes = {}
    for pair in pairs:
        say(f"{pair.id}: trajectory, places, objects")
        episodes[pair.id] = episode_figures(pair)
    questions: dict[str, dict] = {}
    notes: list[str] = []
    walks = [p for p in pairs if _is_walk(p.perceived) and _is_walk(p.truth)]
    if walks:
        say(f"VSI-Super-Wild questions from {len(walks)} walk(s)")
        cfg = BuildConfig(visibility=visibility)
        questions["vsi_wild"] = walk_agreement([(p.perceived, p.truth) for p in walks], cfg)
    kitchens = [p for p in pairs if p not in walks and _has_geometry(p.perceived) and _has_geometry(p.truth)]
    if kitchens:
        say(f"Beyond3D questions from {len(kitchens)} episode(s)")
        questions["beyond3d"], why = beyond3d_agreement(
            [p.perceived for p in kitchens], [p.truth for p in kitchens], anchors
        )
        notes += [f"Beyond3D, {role} world: {text}" for role, text in why.items()]
    return {
        "perceived": str(perceived),
        "truth": str(truth),
        "pairs": len(pairs),
        "unpaired": {"perceived": only_p, "truth": only_t},
        "episodes": episodes,
        "summary": summarise(episodes),
        "questions": questions,
        "no_questions": [p.id for p in pairs if p not in walks and p not in kitchens],
        "notes": notes,
    }


def _pct(v: float | None) -> str:
    return fmt(None if v is None else 100 * v, digits=1)


def figure_table(res: dict) -> Table:
    s = res["summary"]
    rows: Table = [["figure", "value"]]
    names = {
        "trajectory.ate_pct": "ATE, % of path (Sim(3))",
        "trajectory.ate_m": "ATE, truth units",
        "trajectory.rpe_pct": "RPE, % of path",
        "trajectory.registration_rate": "frames registered",
        "places.time_agreement": "place timeline agreement",
        "places.boundary_error_s": "place boundary error, s",
        "count_mra": "count MRA (per view × category)",
        "hota": "HOTA (TrackEval)",
        "idf1": "IDF1 (motmetrics)",
        "mota": "MOTA (motmetrics)",
        "first_s_error": "first appearance error, s",
        "last_s_error": "last appearance error, s",
    }
    for k, label in names.items():
        rows.append([label, fmt(s.get(k), digits=3)])
    return rows


def question_table(res: dict) -> Table:
    """Per benchmark and task: gold agreement over the truth's questions asked of the perceived world,
    coverage, the answered-only, both-built and perceived-side figures (`question_agreement`)."""
    rows: Table = [
        ["benchmark", "task", "truth", "perceived", "gold agreement (of truth)", "coverage",
         "agreement of answered", "built by both", "agreement of perceived"]
    ]  # fmt: skip
    for bench, tasks in res["questions"].items():
        for task, f in tasks.items():
            rows.append([bench, task, str(f["truth"]), str(f["perceived"]), _pct(f["agreement"]),
                         _pct(f["coverage"]), _pct(f["agreement_answered"]), str(f["matched"]),
                         _pct(f.get("agreement_perceived"))])  # fmt: skip
    return rows


QUESTION_NOTE = (
    "gold agreement (of truth): the truth's questions asked of the perceived world, answered with the truth's "
    "gold / truth questions (one it cannot answer counts against; Beyond3D: one the perceived build does not "
    "ask); coverage: answerable / truth questions; agreement of answered: same gold / answerable; built by "
    "both: questions both builds made (same anchor); agreement of perceived: the perceived build's questions "
    "whose gold the truth gives when re-answered / perceived questions"
)


def render(res: dict) -> str:
    """The readable agreement table (Markdown) and the loud lines about what could not be compared."""
    parts = [f"{res['pairs']} episode(s) compared: {res['perceived']} against {res['truth']}", "",
             to_markdown(figure_table(res))]  # fmt: skip
    if res["questions"]:
        parts += ["", to_markdown(question_table(res)), "", QUESTION_NOTE]
    warn = []
    for bench, tasks in res["questions"].items():
        for task, f in tasks.items():
            if f["unmatched_perceived"] or f["unmatched_truth"]:
                warn.append(f"{bench} {task}: {f['unmatched_perceived']} perceived question(s) without a truth-built "
                            f"twin, {f['unmatched_truth']} truth-built question(s) without a perceived twin")  # fmt: skip
            if f.get("same_anchor_other_question"):
                warn.append(
                    f"{bench} {task}: {f['same_anchor_other_question']} anchor(s) asked another question "
                    "(another reference object) in the two builds"
                )
            if f.get("unanswerable"):
                warn.append(
                    f"{bench} {task}: {f['unanswerable']} perceived question(s) the truth cannot answer"
                )
    vis = next(iter(res["questions"].get("vsi_wild", {}).values()), {}).get("visibility") or {}
    if vis:
        parts += [
            "",
            "visibility rule (both worlds) left out: "
            + "; ".join(
                f"too {word}: truth {vis.get(f'truth_{k}', 0)}, perceived {vis.get(f'perceived_{k}', 0)}"
                for k, word in (("small", "small"), ("short", "brief"))
            ),  # fmt: skip
        ]
    for side in ("perceived", "truth"):
        if vis.get(f"{side}_unmeasured"):
            warn.append(f"{vis[f'{side}_unmeasured']} {side} appearance(s) record no size: the visibility rule "
                        "could not measure them (kept)")  # fmt: skip
    for task, f in res["questions"].get("vsi_wild", {}).items():
        c = f.get("doubt_catch")
        if c and c["wrong"]:
            parts.append(f"{task} doubt order: its first 10 % holds {c['first_10pct']} and its first 20 % "
                         f"{c['first_20pct']} of the {c['wrong']} wrong golds ({c['questions']} perceived questions)")  # fmt: skip
    up = res["unpaired"]
    if up["perceived"] or up["truth"]:
        warn.append(f"unpaired episodes: perceived only {up['perceived']}, truth only {up['truth']}")
    if res["no_questions"]:
        warn.append(
            f"no questions compared for {res['no_questions']} (neither walks nor Beyond3D worlds in both)"
        )
    warn += res.get("notes", [])
    if warn:
        parts += [""] + [f"warning: {w}" for w in warn]
    return "\n".join(parts) + "\n"
