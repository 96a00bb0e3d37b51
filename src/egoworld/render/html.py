"""Static HTML: the report page and one per-sample page per run. Every model or data string is escaped."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from egoworld.render.tables import Table

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1300px;color:#222}
.scroll{overflow-x:auto;max-width:100%} nav.toc{margin:0.5em 0 1em}
.warn{background:#fff4d6;border:1px solid #e0b84a;padding:6px 10px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3;min-width:3em;font-size:12px}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{color:#666;font-size:11px} details{margin:0.6em 0} summary{cursor:pointer;font-weight:600}
pre{white-space:pre-wrap;margin:0;font-size:12px;max-width:520px}
.ok{color:#176317}.bad{color:#a31515}.muted{color:#777;font-size:13px}
img{max-width:100%;border:1px solid #ddd;margin:0.5em 0}
"""


def page(title: str, body: str) -> str:
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n"
    )


def table_html(table: Table, links: dict[int, str] | None = None) -> str:
    """``links`` maps a body row number (0-based) to an href for its first cell."""
    head, *body = table
    out = ["<table><thead><tr>", *(f"<th>{escape(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for i, row in enumerate(body):
        cells = []
        for j, cell in enumerate(row):
            num = j > 0 and _numeric(cell)
            text = number_html(cell) if num else escape(cell)
            if j == 0 and links and i in links:
                text = f'<a href="{escape(links[i], quote=True)}">{text}</a>'
            cls = ' class="num"' if num else ""
            cells.append(f"<td{cls}>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def note_html(text: str) -> str:
    """A muted paragraph of plain text (escaped: judge labels, model names and file names are data)."""
    return f"<p class=muted>{escape(text)}</p>"


def image_html(src: str, alt: str) -> str:
    """An image tag with both attributes escaped."""
    return f'<img src="{escape(src, quote=True)}" alt="{escape(alt, quote=True)}">'


def scroll(inner: str) -> str:
    """A wide table in a box that scrolls sideways instead of widening the page."""
    return f'<div class="scroll">{inner}</div>'


def warning_text(run_dirs: Sequence[Any], labels: Sequence[str]) -> str:
    """The different-questions warning as plain text ('' when every run scored the same questions); the
    report's HTML and ``tables.md`` both print it."""
    from egoworld.core.folders.files import iter_jsonl

    sets = []
    for rd in run_dirs:
        sets.append(
            {row["sample"] for _, row in iter_jsonl(rd / "scores.jsonl") if row.get("score") is not None}
        )
    if len(sets) < 2 or all(s == sets[0] for s in sets[1:]):
        return ""
    common = set.intersection(*sets)
    counts = "; ".join(f"{lab}: {len(s)}" for lab, s in zip(labels, sets, strict=True))
    return (
        f"These runs scored different question sets ({counts} questions; {len(common)} in common), so their "
        "columns are not directly comparable. `egoworld leaderboard --allow-different-questions` and "
        "`egoworld view` compare them on the common questions."
    )


def question_set_warning(run_dirs: Sequence[Any], labels: Sequence[str]) -> str:
    """A warning paragraph when the runs of a section scored different question sets ('' when equal)."""
    text = warning_text(run_dirs, labels)
    return f"<p class=warn>{escape(text)}</p>" if text else ""


def _numeric(cell: str) -> bool:
    """A value cell: a number (signed), or ``—`` for none."""
    head = cell[1:] if cell[:1] in ("-", "−", "+") else cell
    return bool(head) and (head[0].isdigit() or head[0] == "—")


def number_html(cell: str) -> str:
    """A value cell on one line and its spread (``± SEM``, ``[lo, hi]``, ``(n=…)``) on a second, smaller one:
    tables keep to the page's width without a value ever breaking."""
    cut = min((k for k in (cell.find(" ± "), cell.find(" ["), cell.find(" (")) if k > 0), default=-1)
    if cut < 0:
        return escape(cell)
    return f"{escape(cell[:cut])}<br><span class=ci>{escape(cell[cut + 1 :])}</span>"


def provenance_html(runs: Sequence[tuple[str, dict[str, Any], dict[str, Any]]]) -> str:
    rows = [
        "<table><thead><tr><th>Run</th><th>Model</th><th>Served model</th><th>Benchmark</th><th>Inputs</th>"
        "<th>Orders</th><th>Executor</th><th>egoworld</th><th>Status</th></tr></thead><tbody>"
    ]
    for label, summary, manifest in runs:
        model = manifest.get("model", {})
        rows.append(
            "<tr>"
            f"<td>{escape(label)}</td>"
            f"<td><code>{escape(str(model))}</code></td>"
            f"<td>{escape(', '.join(manifest.get('served_models') or []) or '—')}</td>"
            f"<td>{escape(summary['benchmark'])} <span class=muted>{escape(summary['benchmark_hash'][:12])}</span></td>"
            f"<td>{escape(str(summary.get('inputs')))}</td>"
            f"<td>{escape(str(summary.get('permutations')))}</td>"
            f"<td>{escape(str(manifest.get('executor', 'local')))}</td>"
            f"<td>{escape(str(manifest.get('egoworld_version')))}</td>"
            f"<td>{escape(str(manifest.get('status')))}</td>"
            "</tr>"
        )
    rows.append("</tbody></table>")
    return "".join(rows)


def _sample_cell(r: dict[str, Any]) -> str:
    if r.get("href"):
        return f'<a href="{escape(r["href"], quote=True)}">{escape(r["sample"])}</a>'
    return escape(r["sample"])


def samples_page(label: str, records: Sequence[dict[str, Any]], scores_href: str) -> str:
    """One row per question: task, question, choices, gold, mean score over orders, first reply."""
    parts = [
        f"<h1>{escape(label)}</h1>",
        f'<p class=muted>One row per question; every order and epoch is in <a href="{escape(scores_href, quote=True)}">'
        "scores.jsonl</a>. Score = mean over orders and epochs (blank: not answered).</p>",
        "<table><thead><tr><th>Sample</th><th>Task</th><th>Question</th><th>Gold</th><th>Score</th>"
        "<th>Parsed</th><th>First reply</th></tr></thead><tbody>",
    ]
    for r in records:
        score = "" if r["score"] is None else f"{100 * r['score']:.0f}"
        cls = "ok" if r["score"] == 1 else ("bad" if r["score"] is not None else "muted")
        parts.append(
            "<tr>"
            f"<td>{_sample_cell(r)}</td><td>{escape(r['task'])}</td>"
            f"<td><pre>{escape(r['question'])}</pre></td><td>{escape(str(r['gold']))}</td>"
            f'<td class="num {cls}">{score}</td><td class=num>{r["parsed"]}/{r["answered"]}</td>'
            f"<td><pre>{escape((r['raw'] or r.get('error') or '')[:400])}</pre></td>"
            "</tr>"
        )
    parts.append("</tbody></table>")
    return page(f"{label} — samples", "\n".join(parts))
