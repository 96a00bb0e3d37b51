"""Static sample pages of `egoworld report`: one HTML page per question of a report section, with thumbnails
of the frames a run sent, every run's replies per option order (rule, parsed answer, score) and gold.

Pages and thumbnails live inside the report folder and link with relative paths only, so the folder can be
copied anywhere. Thumbnails are content-addressed (a frame shared by many questions is written once).
"""

from __future__ import annotations

import io
from html import escape
from pathlib import Path
from typing import Any

from egoworld.core.files import write_text
from egoworld.view.detail import gold_text, query_time, run_detail
from egoworld.view.workspace import BenchView, Workspace, slug

#: frames shown per run and question (evenly spaced over what was sent; listed frames always shown)
THUMBS_PER_RUN = 8
THUMB_WIDTH = 160


def page_name(sample_id: str) -> str:
    """A file name per sample id: readable, and unique even where ids differ only in characters a file
    name cannot hold or beyond the readable prefix."""
    import hashlib

    return f"{slug(sample_id)[:60]}-{hashlib.sha256(sample_id.encode()).hexdigest()[:8]}.html"


class Thumbs:
    """Writes ``report/thumbs/<sha>.jpg`` once per frame; missing media or PyAV means no thumbnails."""

    def __init__(self, out: Path):
        from egoworld.view.media import MediaSource

        self.dir = out / "thumbs"
        self.media = MediaSource()
        self.failed: str | None = None

    def get(self, bv: BenchView, run: Any, sample: Any, sha: str) -> str | None:
        if self.failed is not None:
            return None
        target = self.dir / f"{sha[:24]}.jpg"
        if target.is_file():
            return target.name
        try:
            got = self.media.sent_part(bv.bench, sample, run.manifest.get("inputs") or {}, sha)
        except Exception as exc:  # media moved, PyAV missing: pages without thumbnails, said once
            self.failed = f"{type(exc).__name__}: {exc}"
            return None
        if got is None or not got[1].startswith("image/"):
            return None
        from PIL import Image

        img = Image.open(io.BytesIO(got[0])).convert("RGB")
        img.thumbnail((THUMB_WIDTH, THUMB_WIDTH * 3))
        self.dir.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=80)
        target.write_bytes(buf.getvalue())
        return target.name

    def close(self) -> None:
        self.media.close()


def _spread(items: list[Any], k: int) -> list[Any]:
    if len(items) <= k:
        return items
    step = (len(items) - 1) / (k - 1)
    return [items[round(i * step)] for i in range(k)]


def write_section_pages(run_dirs: list[Path], out: Path, folder: str, style: str) -> dict[str, str]:
    """Write ``out/folder/<sample>.html`` for every question the runs answered; returns sample id → path
    relative to ``out``."""
    ws = Workspace(run_dirs)
    thumbs = Thumbs(out)
    links: dict[str, str] = {}
    try:
        for bv in ws.benches.values():
            ids = [s.id for s in bv.bench.samples if any(s.id in r.results for r in bv.runs)]
            for k, sid in enumerate(ids):
                s = bv.bench.sample(sid)
                nav = {
                    "prev": page_name(ids[k - 1]) if k > 0 else None,
                    "next": page_name(ids[k + 1]) if k + 1 < len(ids) else None,
                }
                html = _page(bv, s, thumbs, nav, style, "../" * len(Path(folder).parts))
                write_text(out / folder / page_name(sid), html)
                links[sid] = f"{folder}/{page_name(sid)}"
    finally:
        thumbs.close()
    return links


def _page(bv: BenchView, s: Any, thumbs: Thumbs, nav: dict[str, str | None], style: str, up: str) -> str:
    parts = [
        f'<p class=muted><a href="{up}index.html">report</a>'
        + (f' · <a href="{escape(nav["prev"])}">previous</a>' if nav["prev"] else "")
        + (f' · <a href="{escape(nav["next"])}">next</a>' if nav["next"] else "")
        + "</p>",
        f"<h1>{escape(s.id)}</h1>",
        f"<p class=muted>{escape(bv.bench.name)} · {escape(s.task)} · video {escape(s.cluster_id)}"
        + (f" · query time {query_time(s):.2f} s" if query_time(s) is not None else "")
        + "</p>",
        f"<pre>{escape(s.question)}</pre>",
    ]
    if s.choices:
        items = "".join(
            f"<li{' class=ok' if i in s.correct_indices else ''}>{escape(c)}</li>"
            for i, c in enumerate(s.choices)
        )
        parts.append(f'<ol type="A">{items}</ol>')
    gold = gold_text(s)
    if gold:
        parts.append(f"<p>Gold: <b>{escape(gold)}</b></p>")
    for run in bv.runs:
        d = run_detail(run, s)
        if not d.rows:
            continue
        score = "" if d.score is None else f" · score {100 * d.score if d.score <= 1 else d.score:.1f}"
        parts.append(
            f"<h2>{escape(run.label)} <span class={escape(d.verdict)}>{escape(d.verdict)}</span>{score}</h2>"
        )
        images = [p for p in d.parts if p.kind == "image"]
        listed = [p for p in images if p.info.get("role") not in ("sampled", None)]
        sampled = [p for p in images if p not in listed]
        shown = _spread(sampled, THUMBS_PER_RUN) + listed
        if shown:
            figs = []
            for p in shown:
                name = thumbs.get(bv, run, s, p.sha256)
                cap = " · ".join(
                    str(x)
                    for x in (
                        p.label or p.info.get("role", ""),
                        f"frame {p.info['frame']}" if "frame" in p.info else "",
                        f"{p.info['time_s']:.2f} s" if isinstance(p.info.get("time_s"), int | float) else "",
                    )
                    if x
                )
                img = (
                    f'<img src="{up}thumbs/{escape(name)}" alt="{escape(cap)}">'
                    if name
                    else "<i>(no thumbnail)</i>"
                )
                figs.append(f"<figure>{img}<figcaption>{escape(cap)}</figcaption></figure>")
            parts.append(
                f"<p class=muted>{len(images)} image(s) sent; showing {len(shown)}.</p><div class=thumbs>{''.join(figs)}</div>"
            )
        if d.prompt:
            parts.append(f"<details><summary>prompt as sent</summary><pre>{escape(d.prompt)}</pre></details>")
        rows = [
            "<table><thead><tr><th>Order</th><th>Epoch</th><th>Status</th><th>Reply</th><th>Rule</th>"
            "<th>Answer</th><th>Score</th></tr></thead><tbody>"
        ]
        for r in d.rows:
            sc = r["score"]
            sc_text = "" if sc is None else f"{100 * sc if sc <= 1 else sc:.0f}"
            answer = (f"{r['letter']}) " if r["letter"] else "") + r["parsed"]
            rows.append(
                f"<tr><td class=num>{r['order']}</td><td class=num>{r['epoch']}</td><td>{escape(r['status'])}</td>"
                f"<td><pre>{escape(r['raw'] or r['error'])}</pre></td><td>{escape(r['rule'])}</td>"
                f"<td>{escape(answer)}</td><td class=num>{sc_text}</td></tr>"
            )
        rows.append("</tbody></table>")
        parts.append("".join(rows))
    if thumbs.failed:
        parts.append(f"<p class=muted>Thumbnails unavailable: {escape(thumbs.failed)}</p>")
    extra = ".thumbs{display:flex;flex-wrap:wrap;gap:6px}.thumbs figure{margin:0;width:160px;font-size:11px}"
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(s.id)}</title>'
        f"<style>{style}{extra}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )
