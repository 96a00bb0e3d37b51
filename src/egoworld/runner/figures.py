"""The numbers at the end of a run: token totals, requests per second, media bytes per request, an optional
cost from a price table (``--price in=P,out=Q``, dollars per million tokens), tokens per correct answer and
the run's score table (scored in-process unless its free-form tasks need a judge)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark
from egoworld.core.folders.files import iter_jsonl
from egoworld.core.folders.store import ResponseStore
from egoworld.core.run_config import SCORES_JSONL
from egoworld.runner.summary import RunSummary


def parse_price(text: str | None) -> dict[str, float] | None:
    """``in=2.5,out=10`` → {"in": 2.5, "out": 10.0} (dollars per million prompt / completion tokens)."""
    if not text:
        return None
    price: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in ("in", "out") or not value.strip():
            raise ValueError(f"--price {text!r}: expected in=P,out=Q (dollars per million tokens)")
        try:
            price[name] = float(value)
        except ValueError:
            raise ValueError(f"--price {text!r}: {value!r} is not a number") from None
        if not math.isfinite(price[name]) or price[name] < 0:
            raise ValueError(f"--price {text!r}: prices are non-negative numbers")
    return {"in": price.get("in", 0.0), "out": price.get("out", 0.0)}


def usage_figures(store: ResponseStore, summary: RunSummary, price: str | None) -> dict[str, Any]:
    """Tokens of the planned requests' replies (all of them, also those of earlier commands on this folder),
    this command's throughput and media per request, and the cost when a price is given."""
    ok, totals = store.planned_tokens()
    tokens = {k: total for k, (total, _n) in totals.items()}
    reported = {k: n for k, (_total, n) in totals.items()}
    out: dict[str, Any] = {
        "ok_responses": ok,
        "tokens": {k: (v if reported[k] else None) for k, v in tokens.items()},
        "responses_reporting_tokens": reported,
        "requests_sent": summary.called,
        "seconds": round(summary.seconds, 3),
        "requests_per_second": round(summary.called / summary.seconds, 3) if summary.seconds > 0 else None,
        "media_bytes_per_request": round(summary.media_bytes / summary.called) if summary.called else None,
    }
    rates = parse_price(price)
    if rates is not None:
        cost = (tokens["prompt"] * rates["in"] + tokens["completion"] * rates["out"]) / 1e6
        out["cost"] = {"usd": round(cost, 6), "price_per_million": rates}
    return out


def judged(bench: Benchmark) -> bool:
    """True when the run's benchmark has free-form tasks its plug-in scores with a judge."""
    from egoworld.core.plugin import plugin_for

    plugin = plugin_for(bench.name)
    return plugin.score_run is not None and any(
        t.answer_type == "free" for t in bench.manifest.tasks.values()
    )


def correct_answers(run_dir: Path, rows: Iterable[dict[str, Any]] | None = None) -> float:
    """Sum of the per-response scores in ``scores.jsonl`` (1 per correct choice; MRA counts fractionally);
    ``rows``: those rows, as the scoring that wrote them returned them."""
    total = 0.0
    if rows is None:
        rows = (row for _line, row in iter_jsonl(run_dir / SCORES_JSONL))
    for row in rows:
        if row.get("status") == "ok" and isinstance(row.get("score"), int | float):
            total += float(row["score"])
    return total


def score_table(summary: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(task, n, score, parse rate, errors) rows and an overall row, numbers rounded as in the papers."""

    def num(x: Any) -> str:
        return "-" if x is None else f"{x:.1f}"

    rows = []
    for task in summary.get("task_order", []):
        t = summary["tasks"][task]
        rows.append((task, str(t["n"]), num(t.get(t["metric"])), num(t.get("parse_rate")), str(t["errors"])))
    rows.append(
        (
            "overall",
            str(summary.get("n")),
            num(summary.get("overall")),
            num(summary.get("parse_rate")),
            str(summary.get("errors")),
        )
    )
    return rows


def format_tokens(usage: dict[str, Any], per_correct: float | None) -> str:
    """``tokens: prompt 1.2M · completion 3.4k · reasoning - · 12.3 req/s · media 1.2 MB/req · $0.42``."""

    def short(x: float | None) -> str:
        if x is None:
            return "-"
        for unit, size in (("M", 1e6), ("k", 1e3)):
            if abs(x) >= size:
                return f"{x / size:.2f}{unit}"
        return f"{x:.0f}"

    t = usage["tokens"]
    parts = [f"tokens: prompt {short(t['prompt'])} · completion {short(t['completion'])}"]
    if t["reasoning"] is not None:
        parts.append(f"reasoning {short(t['reasoning'])}")
    if per_correct is not None:
        parts.append(f"{short(per_correct)} tokens per correct answer")
    if usage.get("requests_per_second") is not None:
        parts.append(f"{usage['requests_per_second']:.2f} requests/s")
    if usage.get("media_bytes_per_request"):
        parts.append(f"media {usage['media_bytes_per_request'] / 1e6:.2f} MB per request")
    if "cost" in usage:
        parts.append(f"cost ${usage['cost']['usd']:.4f}")
    return " · ".join(parts)
