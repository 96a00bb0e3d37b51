"""The sample list: filter, sort and page the questions of one benchmark (server side)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from egoworld.core.schema import Sample
from egoworld.view.workspace import BenchView, RunView

PAGE_SIZE = 50
SORTS = ("file", "task", "video", "score", "score-desc")


@dataclass
class SampleFilter:
    """Query parameters of the sample list; empty strings mean "any"."""

    task: str = ""
    verdict: str = ""  # correct | wrong | unparsed | error (of ``run``)
    run: str = ""  # run id the verdict and score refer to (default: the first run)
    video: str = ""
    group: str = ""  # "key=value" over `GROUP_KEYS`
    disagree: bool = False
    text: str = ""
    review: str = ""  # accept | reject | flag | none (with a review log)
    sort: str = "file"
    page: int = 1

    @classmethod
    def from_query(cls, q: Any) -> SampleFilter:
        def get(name: str) -> str:
            return str(q.get(name, "") or "").strip()

        try:
            page = max(1, int(get("page") or 1))
        except ValueError:
            page = 1
        sort = get("sort") or "file"
        return cls(
            task=get("task"),
            verdict=get("verdict"),
            run=get("run"),
            video=get("video"),
            group=get("group"),
            disagree=get("disagree") in ("1", "on", "true"),
            text=get("q"),
            review=get("review"),
            sort=sort if sort in SORTS else "file",
            page=page,
        )

    def query(self, **changes: Any) -> dict[str, str]:
        """The filter as query parameters (with ``changes``), for links."""
        d = {
            "task": self.task,
            "verdict": self.verdict,
            "run": self.run,
            "video": self.video,
            "group": self.group,
            "disagree": "1" if self.disagree else "",
            "q": self.text,
            "review": self.review,
            "sort": self.sort if self.sort != "file" else "",
            "page": str(self.page) if self.page > 1 else "",
        }
        d.update({k: str(v) for k, v in changes.items()})
        return {k: v for k, v in d.items() if v}


@dataclass
class SamplePage:
    rows: list[dict[str, Any]]
    total: int
    page: int
    pages: int
    run: RunView | None
    counts: dict[str, int] = field(default_factory=dict)


def disagree(sample: Sample, runs: list[RunView]) -> bool:
    preds = {
        repr(r.results[sample.id].pred)
        for r in runs
        if sample.id in r.results and r.results[sample.id].score is not None
    }
    return len(preds) > 1


def list_samples(bv: BenchView, f: SampleFilter, reviews: dict[str, str] | None = None) -> SamplePage:
    run = next((r for r in bv.runs if r.id == f.run), bv.runs[0] if bv.runs else None)
    gkey, _, gval = f.group.partition("=")
    text = f.text.lower()
    chosen: list[Sample] = []
    for s in bv.bench.samples:
        if f.task and s.task != f.task:
            continue
        if f.video and s.cluster_id != f.video:
            continue
        if gkey and str(s.metadata.get(gkey)) != gval:
            continue
        if text and text not in s.question.lower() and text not in s.id.lower():
            continue
        if f.verdict:
            res = run.results.get(s.id) if run else None
            if res is None or res.verdict != f.verdict:
                continue
        if f.disagree and not disagree(s, bv.runs):
            continue
        if f.review and reviews is not None and reviews.get(s.id, "none") != f.review:
            continue
        chosen.append(s)
    if f.sort == "task":
        chosen.sort(key=lambda s: s.task)
    elif f.sort == "video":
        chosen.sort(key=lambda s: s.cluster_id)
    elif f.sort in ("score", "score-desc") and run is not None:

        def score(s: Sample) -> float:
            res = run.results.get(s.id)
            return -1.0 if res is None or res.score is None else res.score

        chosen.sort(key=score, reverse=f.sort == "score-desc")
    total = len(chosen)
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(f.page, pages)
    rows = []
    for s in chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]:
        per_run = []
        for r in bv.runs:
            res = r.results.get(s.id)
            per_run.append(
                {
                    "run": r,
                    "verdict": res.verdict if res else "",
                    "score": None if res is None or res.score is None else res.score,
                }
            )
        rows.append({"sample": s, "runs": per_run, "review": (reviews or {}).get(s.id, "")})
    return SamplePage(rows=rows, total=total, page=page, pages=pages, run=run)
