"""Static sample pages of `egoworld report`: one HTML page per question of a report section, with thumbnails
of the frames a run sent, every run's replies per option order (rule, parsed answer, score) and gold.

Pages and thumbnails live inside the report folder and link with relative paths only, so the folder can be
copied anywhere. Thumbnails are content-addressed (a frame shared by many questions is written once).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

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


#: ``--pages``: every question, the ones a reader will open, or none
PAGE_MODES = ("auto", "all", "none")
#: ``--pages auto``: per task, at most this many wrong answers and this many disagreements get pages …
PAGES_PER_KIND = 200
#: … plus the first questions of each task (in file order), right or wrong
PAGES_PER_TASK = 20


def chosen_pages(bv: BenchView, mode: str) -> list[str]:
    """The sample ids that get a page, in file order. ``auto``: per task, the first `PAGES_PER_TASK`
    questions, questions the runs answer differently (up to `PAGES_PER_KIND`) and questions some run got
    wrong, left unparsed or failed (up to `PAGES_PER_KIND`)."""
    if mode not in PAGE_MODES:
        raise ValueError(f"--pages {mode!r}: expected one of {', '.join(PAGE_MODES)}")
    answered = [s for s in bv.bench.samples if any(s.id in r.results for r in bv.runs)]
    if mode != "auto":
        return [s.id for s in answered] if mode == "all" else []
    taken: dict[tuple[str, str], int] = {}
    keep = []
    for s in answered:
        res = [r.results[s.id] for r in bv.runs if s.id in r.results]
        kinds = ["first"]
        if len({(x.verdict, repr(x.pred)) for x in res}) > 1:
            kinds.append("disagree")
        if any(x.verdict != "correct" for x in res):
            kinds.append("wrong")
        limits = {"first": PAGES_PER_TASK, "disagree": PAGES_PER_KIND, "wrong": PAGES_PER_KIND}
        hit = False
        for kind in kinds:
            n = taken.get((s.task, kind), 0)
            if n < limits[kind]:
                taken[(s.task, kind)] = n + 1
                hit = True
        if hit:
            keep.append(s.id)
    return keep


@dataclass(frozen=True)
class SectionJob:
    """What every worker of one section shares: the benchmark's view and where and how pages are written
    (handed to the forked workers of `map_processes` once, not pickled per chunk)."""

    bv: BenchView
    ids: list[str]
    out: Path
    folder: str
    style: str


def write_section_pages(
    ws: Workspace, out: Path, folder: str, style: str, pages: str = "auto", workers: int | None = None
) -> dict[str, str]:
    """Write ``out/folder/<sample>.html`` for the questions `chosen_pages` picks, over worker processes
    (one job per group of videos, so a frame's thumbnail is made by one worker, once); returns sample id →
    path relative to ``out``."""
    from egoworld.core.process.pool import cpu_workers, map_processes

    links: dict[str, str] = {}
    (out / folder).mkdir(parents=True, exist_ok=True)
    for bv in ws.benches.values():
        ids = chosen_pages(bv, pages)
        if not ids:
            continue
        by_video: dict[str, list[int]] = {}
        for k, sid in enumerate(ids):
            by_video.setdefault(bv.bench.sample(sid).cluster_id, []).append(k)
        n = workers or cpu_workers()
        chunks: list[list[int]] = [[] for _ in range(min(len(by_video), 4 * n))]
        for j, ks in enumerate(by_video.values()):
            chunks[j % len(chunks)].extend(ks)
        job = SectionJob(bv, ids, out, folder, style)
        notes = map_processes(_write_pages, [(c,) for c in chunks], workers=n, shared=job)
        for note in notes:
            if note:
                print(f"report: thumbnails unavailable ({note})")
                break
        links.update({sid: f"{folder}/{page_name(sid)}" for sid in ids})
    return links


def _write_pages(job: SectionJob, chunk: list[int]) -> str | None:
    """Write the pages of ``chunk`` (positions in the section's id list); returns why thumbnails failed."""
    bv, ids, out, folder, style = job.bv, job.ids, job.out, job.folder, job.style
    from egoworld.view.detail import RunRequests

    thumbs = Thumbs(out)
    requests = {run.id: RunRequests(run) for run in bv.runs}
    up = "../" * len(Path(folder).parts)
    try:
        for k in chunk:
            nav = {
                "prev": page_name(ids[k - 1]) if k > 0 else None,
                "next": page_name(ids[k + 1]) if k + 1 < len(ids) else None,
            }
            html = _page(bv, bv.bench.sample(ids[k]), thumbs, nav, style, up, requests)
            # a build output, rewritten whole on every report: no temporary file and fsync per page
            (out / folder / page_name(ids[k])).write_text(html, encoding="utf-8")
    finally:
        thumbs.close()
        for r in requests.values():
            r.close()
    return thumbs.failed


def _page(
    bv: BenchView,
    s: Any,
    thumbs: Thumbs,
    nav: dict[str, str | None],
    style: str,
    up: str,
    requests: dict[str, Any],
) -> str:
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
        d = run_detail(run, s, requests[run.id])
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
