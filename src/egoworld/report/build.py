"""`build_report`: score run folders if needed, then write tables, plots and ``index.html``."""

from __future__ import annotations

import os
import re
import shutil
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_json_object, write_json, write_text
from egoworld.core.letters import letters_for
from egoworld.core.plugin import plugin_for
from egoworld.core.run_config import RUN_MANIFEST, SCORES_JSONL
from egoworld.render import html, plots, tables
from egoworld.render.build_names import build_detail, build_kind
from egoworld.render.palette import model_of, report_palette
from egoworld.report.sample_pages import PAGE_MODES, write_section_pages
from egoworld.scoring.score import ensure_scored
from egoworld.view.workspace import Workspace


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80] or "run"


def section_title(summaries: list[dict[str, Any]], build: str, bench_hash: str | None = None) -> str:
    """``VSI-Super-Wild — official release · video, 128 fr``: the benchmark as its paper names it, what the
    build is (`egoworld.render.build_names`) and the runs' settings; ``bench_hash`` (given only where two
    builds would share that title) adds the build's short hash."""
    title = f"{plugin_for(summaries[0]['benchmark']).title or summaries[0]['benchmark']} — {build}"
    if bench_hash:
        title += f" (build {bench_hash[:8]})"
    settings = list(dict.fromkeys(tables.setting_label(s) for s in summaries))
    return f"{title} · {' / '.join(settings)}"


def _bench_manifest(run_manifest: dict[str, Any]) -> dict[str, Any]:
    """The ``manifest.json`` of a run's benchmark folder (scoring has just read it)."""
    return read_json_object(Path(run_manifest["benchmark_path"]) / "manifest.json")


def _fold(summary: str, inner: str) -> str:
    """A section the reader opens: ``<details>`` with its title as the summary line."""
    return f"<details><summary>{escape(summary)}</summary>\n{inner}\n</details>"


def _sample_records(run: Any, bench: Any) -> list[dict[str, Any]]:
    """One record per question of a run (`Workspace` view): question with its options, gold, mean score
    over orders and epochs, parsed/answered counts, first reply and first error."""
    out = []
    for sid, res in run.results.items():
        s = bench.sample(sid)
        question = s.question
        if s.choices:
            question += "\n" + "\n".join(
                f"{ch}) {c}" for ch, c in zip(letters_for(len(s.choices)), s.choices, strict=True)
            )
        gold = ", ".join(s.choices[i] for i in s.correct_indices) if s.answer_type == "choice" else s.answer
        rec: dict[str, Any] = {
            "sample": sid,
            "task": res.rows[0]["task"],
            "question": question,
            "gold": gold,
            "scores": [],
            "parsed": 0,
            "answered": 0,
            "raw": None,
            "error": None,
        }
        for row in res.rows:
            if row["score"] is not None:
                rec["scores"].append(row["score"])
                rec["answered"] += 1
                rec["parsed"] += int(row["parsed"])
            if rec["raw"] is None and row.get("raw") is not None:
                rec["raw"] = row["raw"]
            if rec["error"] is None and row.get("error"):
                rec["error"] = f"[{row['status']}] {row['error']}"
        rec["score"] = sum(rec["scores"]) / len(rec["scores"]) if rec["scores"] else None
        out.append(rec)
    return out


def build_report(run_dirs: list[Path], out: Path, *, pages: str = "auto", workers: int | None = None) -> Path:
    """Write the report for ``run_dirs`` into ``out``; returns the path of ``index.html``.

    ``pages``: which questions get a static page (`sample_pages.PAGE_MODES`): ``auto`` the ones a reader
    will open (wrong answers, disagreements, the first of each task), ``all`` or ``none``; ``workers``:
    processes writing them (default: the CPUs)."""
    if pages not in PAGE_MODES:
        raise ValueError(f"--pages {pages!r}: expected one of {', '.join(PAGE_MODES)}")
    if not run_dirs:
        raise InputFileError("no run folders given")
    out = Path(out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    runs = []
    for rd in run_dirs:
        rd = Path(rd)
        summary = ensure_scored(rd)
        runs.append((rd, summary, read_json_object(rd / RUN_MANIFEST)))
    # one section per benchmark folder (two builds of one benchmark are different tables)
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, (_, s, _) in enumerate(runs):
        groups[(s["benchmark"], s["benchmark_hash"])].append(i)
    names: dict[str, int] = defaultdict(int)
    for name, _ in groups:
        names[name] += 1
    by_bench: dict[str, list[int]] = {}  # file slug → runs (slugs as before: the name, or name (folder))
    titles: dict[str, str] = {}  # slug → the section's title: the benchmark as its paper names it, settings
    details: dict[str, str] = {}  # slug → the build's hash and folder
    kinds: dict[tuple[str, str], str] = {}
    for (name, bench_hash), idx in groups.items():
        bench_manifest = _bench_manifest(runs[idx[0]][2])
        kinds[(name, bench_hash)] = build_kind(
            bench_manifest.get("builder") or {}, bench_manifest.get("source") or {}
        )

    def folder_of(idx: list[int]) -> str:
        return Path(runs[idx[0]][2]["benchmark_path"]).name

    # two builds in folders of one name (a/bench, b/bench) are told apart by their hash as well
    folders: dict[tuple[str, str], int] = defaultdict(int)
    for (name, _), idx in groups.items():
        folders[(name, folder_of(idx))] += 1
    for (name, bench_hash), idx in groups.items():
        key = name
        folder = folder_of(idx)
        if names[name] > 1:
            key = (
                f"{name} ({folder})"
                if folders[(name, folder)] == 1
                else f"{name} ({folder} {bench_hash[:8]})"
            )
        by_bench[key] = idx
        kind = kinds[(name, bench_hash)]
        twin = sum(1 for (n, _), k in kinds.items() if n == name and k == kind) > 1  # same name, same kind
        titles[key] = section_title([runs[i][1] for i in idx], kind, bench_hash if twin else None)
        details[key] = build_detail(bench_hash, folder)
    labels = [""] * len(runs)
    for idx in by_bench.values():
        base = [tables.run_label(runs[i][1]) for i in idx]
        for i, lab in zip(idx, base, strict=True):
            labels[i] = f"{lab} [{runs[i][0].name}]" if base.count(lab) > 1 else lab

    md = ["# egoworld report\n"]
    body = ["<h1>egoworld report</h1>", "<!--toc-->", "<!--summary-->"]
    toc: list[str] = []
    summary: list[str] = []
    with report_palette(model_of(s) for _, s, _ in runs):  # one colour per model in every plot
        for bench_name, idx in by_bench.items():
            sums = [runs[i][1] for i in idx]
            labs = [labels[i] for i in idx]
            slug = _slug(bench_name)
            title = titles[bench_name]
            body += _section(
                runs, idx, labs, bench_name, slug, title, details[bench_name], out, md, pages, workers
            )
            toc.append(f'<a href="#{escape(slug)}">{escape(title)}</a>')
            summary.append(_summary_line(sums, labs, slug, title))
    body.append(
        '<h2 id="provenance">Provenance</h2>'
        + _fold(
            "Every run: model, served model, benchmark build, inputs, executor, egoworld version",
            html.scroll(html.provenance_html([(labels[i], s, m) for i, (_, s, m) in enumerate(runs)])),
        )
    )
    write_text(out / "tables.md", "\n".join(md))
    write_json(
        out / "report.json",
        {"runs": [{"label": labels[i], "dir": str(rd), "scores": s} for i, (rd, s, _) in enumerate(runs)]},
    )
    index = out / "index.html"
    nav = "<nav class=toc>" + " · ".join([*toc, '<a href="#provenance">Provenance</a>']) + "</nav>"
    head = "<h2>Summary</h2><ul class=summary>" + "".join(summary) + "</ul>"
    page = "\n".join(body).replace("<!--toc-->", nav, 1).replace("<!--summary-->", head, 1)
    write_text(index, html.page("egoworld report", page))
    return index


def _summary_line(sums: list[dict[str, Any]], labs: list[str], slug: str, title: str) -> str:
    """One item of the report's opening summary: the section, its runs and the best Overall."""
    scored = [(s["overall"], lab) for s, lab in zip(sums, labs, strict=True) if s.get("overall") is not None]
    best = max(scored, key=lambda x: x[0], default=None)  # the first run among equals
    tail = f"; best Overall: {escape(best[1])} {tables.fmt(best[0])}" if best else ""
    return f'<li><a href="#{escape(slug)}">{escape(title)}</a>: {len(sums)} run(s){tail}</li>'


def _section(
    runs: list[tuple[Path, dict[str, Any], dict[str, Any]]],
    idx: list[int],
    labs: list[str],
    bench_name: str,
    slug: str,
    title: str,
    detail: str,
    out: Path,
    md: list[str],
    pages: str,
    workers: int | None,
) -> list[str]:
    """One benchmark's section: its files, its ``tables.md`` part (appended to ``md``) and its HTML — the
    main table and the per-task plot open, every further table folded."""
    sums = [runs[i][1] for i in idx]
    warn = html.warning_text([runs[i][0] for i in idx], labs)
    main = tables.main_table(sums, labs)
    shuffle = tables.shuffle_table(sums, labs)
    write_text(out / f"{slug}_main.csv", tables.to_csv(main))
    md.append(f"## {title}\n")
    if warn:
        md.append(f"> **Warning:** {warn}\n")
    md += [tables.to_markdown(main), tables.metric_legend(sums) + "\n"]
    sample_links: dict[int, str] = {}
    ws = Workspace([runs[i][0] for i in idx])
    written = write_section_pages(ws, out, f"samples/{slug}", html.STYLE, pages, workers)
    views = {rv.dir: (rv, bv) for bv in ws.benches.values() for rv in bv.runs}
    for row_no, (i, label) in enumerate(zip(idx, labs, strict=True)):
        rd = runs[i][0]
        page_dir = out / "runs" / _slug(f"{bench_name}_{label}")
        page_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(rd / SCORES_JSONL, page_dir / SCORES_JSONL)  # the report folder stands alone
        rv, bv = views[rd]
        records = _sample_records(rv, bv.bench)
        for rec in records:
            rec["task"] = tables.task_title(sums, rec["task"])
            if rec["sample"] in written:
                rec["href"] = os.path.relpath(out / written[rec["sample"]], page_dir)
        write_text(page_dir / "samples.html", html.samples_page(label, records, SCORES_JSONL))
        sample_links[row_no] = os.path.relpath(page_dir / "samples.html", out)
    bars = plots.task_bars(sums, labs, out / "plots" / f"{slug}_tasks.png")
    ci = tables.ci_table(sums, labs)
    write_text(out / f"{slug}_ci95.csv", tables.to_csv(ci))
    md += ["95 % cluster-bootstrap CIs:\n", tables.to_markdown(ci)]
    body = [
        f'<h2 id="{escape(slug)}">{escape(title)}</h2>',
        f"<p class=muted>{escape(detail)}</p>",
        f"<p class=warn>{escape(warn)}</p>" if warn else "",
        html.scroll(html.table_html(main, links=sample_links)),
        f"<p class=muted>{escape(tables.metric_legend(sums))} Model names link to per-sample records; "
        "each question links to its page with the frames sent and every reply.</p>",
        f'<img src="plots/{escape(bars.name)}" alt="per-task scores">',
        _fold("95 % cluster-bootstrap CIs and chance", html.scroll(html.table_html(ci))),
    ]
    if len(shuffle) > 1:
        write_text(out / f"{slug}_shuffle24.csv", tables.to_csv(shuffle))
        md += ["### Shuffle24\n", tables.to_markdown(shuffle)]
        curves = plots.shuffle_curves(sums, labs, out / "plots" / f"{slug}_shuffle24.png")
        inner = [
            html.scroll(html.table_html(shuffle)),
            "<p class=muted>Top-K: share of questions right in at least one of the first K orders. Pass@K: "
            "share right in at least K of 24. Bias std: standard deviation of accuracy across the 24 orders. "
            "Pick: share of answers choosing each display position.</p>",
        ]
        if curves:
            inner.append(f'<img src="plots/{escape(curves.name)}" alt="Top-K and Pass@K">')
            md.append(f"\n![Top-K / Pass@K](plots/{curves.name})\n")
        body.append(_fold("Shuffle24 (all 24 option orders)", "\n".join(inner)))
    md.append(f"\n![per-task scores](plots/{bars.name})\n")
    hook = plugin_for(sums[0]["benchmark"]).report_sections
    if hook is not None:
        for sec in hook(sums, [runs[i][0] for i in idx], labs, out):
            md += [f"### {sec.title}\n", sec.markdown]
            body.append(_fold(sec.title, html.scroll(sec.html)))
    return body
