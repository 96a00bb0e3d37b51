"""The sample list: filter, sort and page the questions of one benchmark (server side, over its index)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from egoworld.view.bench_index import DOUBT_ORDER
from egoworld.view.workspace import BenchView, RunView

PAGE_SIZE = 50
SORTS = ("file", "task", "video", "doubt", "score", "score-desc")


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
    sort: str = "file"  # "doubt": most doubtful first (the default of a review session when samples have one)
    page: int = 1
    default_sort: str = "file"  # the sort a query without ``sort`` gets (links leave it out)

    @classmethod
    def from_query(cls, q: Any, default_sort: str = "file") -> SampleFilter:
        def get(name: str) -> str:
            return str(q.get(name, "") or "").strip()

        try:
            page = max(1, int(get("page") or 1))
        except ValueError:
            page = 1
        sort = get("sort") or default_sort
        return cls(
            task=get("task"),
            verdict=get("verdict"),
            run=get("run"),
            video=get("video"),
            group=get("group"),
            disagree=get("disagree") in ("1", "on", "true"),
            text=get("q"),
            review=get("review"),
            sort=sort if sort in SORTS else default_sort,
            page=page,
            default_sort=default_sort,
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
            "sort": self.sort if self.sort != self.default_sort else "",
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


def _where(bv: BenchView, f: SampleFilter) -> tuple[str, list[Any]]:
    """The SQL condition over the benchmark index's columns for the filters that depend on the sample alone
    (task, video, group, text)."""
    conds: list[str] = []
    params: list[Any] = []
    if f.task:
        conds.append("task = ?")
        params.append(f.task)
    if f.video:
        conds.append("video = ?")
        params.append(f.video)
    gkey, _, gval = f.group.partition("=")
    if gkey:
        if gval == "None":  # the value str() gives a missing key, as the filter always compared
            conds.append(
                "(ord IN (SELECT ord FROM groups WHERE key = ? AND (value IS NULL OR value = 'None')) "
                "OR ord NOT IN (SELECT ord FROM groups WHERE key = ?))"
            )
            params += [gkey, gkey]
        else:
            conds.append("ord IN (SELECT ord FROM groups WHERE key = ? AND value = ?)")
            params += [gkey, gval]
    text = f.text.lower()
    if text:
        conds.append("(instr(qlow, ?) > 0 OR instr(idlow, ?) > 0)")
        params += [text, text]
    return (" WHERE " + " AND ".join(conds)) if conds else "", params


_ORDER = {"task": "task, ord", "video": "video, ord", "doubt": DOUBT_ORDER}


def list_samples(bv: BenchView, f: SampleFilter, reviews: dict[str, str] | None = None) -> SamplePage:
    """One page of the sample list: the benchmark's own filters and sorts run as SQL over its index; a
    run's verdict, the runs' disagreement, review decisions and the score sort over the runs' results."""
    run = next((r for r in bv.runs if r.id == f.run), bv.runs[0] if bv.runs else None)
    where, params = _where(bv, f)
    order = _ORDER.get(f.sort, "ord")
    by_run = bool(f.verdict) or f.disagree or (bool(f.review) and reviews is not None)
    by_score = f.sort in ("score", "score-desc") and run is not None
    if not by_run and not by_score:  # the index pages it
        ((total,),) = bv.bench.select(f"SELECT COUNT(*) FROM samples{where}", params)
        pages = max(1, -(-total // PAGE_SIZE))
        page = min(f.page, pages)
        got = bv.bench.select(
            f"SELECT ord FROM samples{where} ORDER BY {order} LIMIT ? OFFSET ?",
            [*params, PAGE_SIZE, (page - 1) * PAGE_SIZE],
        )
        shown = [k for (k,) in got]
    else:
        chosen = bv.bench.select(f"SELECT ord, id FROM samples{where} ORDER BY {order}", params)
        if f.verdict:
            verdict_of = run.results.verdict_of if run else lambda sid: None
            chosen = [(k, sid) for k, sid in chosen if verdict_of(sid) == f.verdict]
        if f.disagree:
            differ = bv.disagreeing()
            chosen = [(k, sid) for k, sid in chosen if sid in differ]
        if f.review and reviews is not None:
            chosen = [(k, sid) for k, sid in chosen if reviews.get(sid, "none") == f.review]
        if by_score and run is not None:
            score_of = run.results.score_of

            def score(item: tuple[int, str]) -> float:
                got = score_of(item[1])
                return -1.0 if got is None else got

            chosen.sort(key=score, reverse=f.sort == "score-desc")
        total = len(chosen)
        pages = max(1, -(-total // PAGE_SIZE))
        page = min(f.page, pages)
        shown = [k for k, _ in chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]]
    rows = []
    for s in bv.bench.samples_at(shown):
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
