"""The sample page's content: the inputs each run sent (from its request store), every reply per option
order with the extraction rule that fired, gold, the trajectory around the question and the panels the
benchmark's plug-in adds (e.g. a reference scene)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from egoworld.core.folders.store import ResponseStore
from egoworld.core.letters import letters_for
from egoworld.core.permutations import order_index, parse_permutation_id
from egoworld.core.plugin import ViewerPanel, plugin_for
from egoworld.core.run_config import STORE_FILE
from egoworld.core.schema import Sample
from egoworld.view.workspace import BenchView, RunView


def query_time(sample: Sample) -> float | None:
    """The moment a question asks about: the clip end, else a ``query_time_s`` in the metadata."""
    v = sample.media.video
    if v is not None and v.end_s is not None:
        return float(v.end_s)
    for k in ("query_time_s", "query_s", "time_s"):
        if isinstance(sample.metadata.get(k), int | float):
            return float(sample.metadata[k])
    return None


def gold_text(sample: Sample) -> str:
    if sample.answer_type == "choice":
        letters = letters_for(len(sample.choices or ()))
        return ", ".join(f"{letters[i]}) {sample.choices[i]}" for i in sample.correct_indices)  # type: ignore[index]
    if sample.answer_type == "free":
        return ""
    return str(sample.answer)


def option_text(sample: Sample, pred: Any) -> str:
    if pred is None:
        return ""
    if (
        sample.answer_type == "choice"
        and sample.choices
        and isinstance(pred, int)
        and 0 <= pred < len(sample.choices)
    ):
        return sample.choices[pred]
    return str(pred)


@dataclass
class SentPart:
    kind: str  # text | image | video
    text: str = ""
    sha256: str = ""
    mime: str = ""
    label: str = ""
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunDetail:
    run: RunView
    prompt: str
    parts: list[SentPart]
    rows: list[dict[str, Any]]
    score: float | None
    verdict: str
    order_count: int


class RunRequests:
    """A run's request store open read-only, with the first planned request key of every sample read in
    one pass: the parts of many samples without reopening the store or scanning the plan per sample."""

    def __init__(self, run: RunView):
        path = run.dir / STORE_FILE
        self.store = ResponseStore(path, readonly=True) if path.is_file() else None
        self.keys: dict[str, str] = {}
        if self.store is not None:
            for sid, key in self.store.db.execute(
                "SELECT sample_id, key FROM plan ORDER BY sample_id DESC, permutation DESC, epoch DESC"
            ):
                self.keys[sid] = key  # the last write per sample is its first planned request

    def request(self, sample_id: str) -> dict[str, Any] | None:
        key = self.keys.get(sample_id)
        return None if key is None or self.store is None else self.store.request(key)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


class OpenStore:
    """A run's request store opened read-only once (its integrity check run once, not per page) and asked
    for one sample's first planned request at a time: what the viewer's sample page keeps per run."""

    def __init__(self, run: RunView):
        path = run.dir / STORE_FILE
        self.store = ResponseStore(path, readonly=True, threads=True) if path.is_file() else None
        self._lock = threading.Lock()

    def request(self, sample_id: str) -> dict[str, Any] | None:
        if self.store is None:
            return None
        with self._lock:
            row = self.store.db.execute(
                "SELECT key FROM plan WHERE sample_id = ? ORDER BY permutation, epoch LIMIT 1", (sample_id,)
            ).fetchone()
            return self.store.request(row[0]) if row else None

    def close(self) -> None:
        if self.store is not None:
            with self._lock:
                self.store.close()


def request_parts(
    run: RunView, sample_id: str, requests: RunRequests | OpenStore | None = None
) -> list[SentPart]:
    """The media and text parts of the first planned request of ``sample_id`` (as the store recorded it);
    ``requests``: the run's store already open, else it is opened for this call."""
    path = run.dir / STORE_FILE
    if requests is not None:
        req = requests.request(sample_id)
    elif not path.is_file():
        return []
    else:
        with ResponseStore(path, readonly=True) as store:
            row = store.db.execute(
                "SELECT key FROM plan WHERE sample_id = ? ORDER BY permutation, epoch LIMIT 1", (sample_id,)
            ).fetchone()
            req = store.request(row[0]) if row else None
    if not req:
        return []
    parts: list[SentPart] = []
    for msg in req.get("messages", []):
        for p in msg.get("content", []):
            kind = p.get("type", "text")
            if kind == "text":
                parts.append(SentPart("text", text=str(p.get("text", ""))))
            else:
                info = {k: v for k, v in p.items() if k not in ("type", "sha256", "mime", "label")}
                parts.append(
                    SentPart(
                        kind,
                        sha256=str(p.get("sha256", "")),
                        mime=str(p.get("mime", "")),
                        label=str(p.get("label") or ""),
                        info=info,
                    )
                )
    return parts


def run_detail(run: RunView, sample: Sample, requests: RunRequests | OpenStore | None = None) -> RunDetail:
    res = run.results.get(sample.id)
    parts = request_parts(run, sample.id, requests)
    prompt = "\n".join(p.text for p in parts if p.kind == "text")
    rows = []
    for r in res.rows if res else []:
        perm = parse_permutation_id(r.get("permutation", "")) if r.get("permutation") else None
        letter = ""
        if r.get("pred_position") is not None and sample.choices:
            letter = letters_for(len(sample.choices))[int(r["pred_position"])]
        rows.append(
            {
                "order": order_index(perm) if perm else 0,
                "shown": " ".join(str(i) for i in perm) if perm else "as in the file",
                "epoch": r.get("epoch", 0),
                "status": r.get("status", ""),
                "raw": r.get("raw") or "",
                "error": r.get("error") or "",
                "rule": r.get("rule") or "",
                "letter": letter,
                "parsed": option_text(sample, r.get("pred")),
                "score": r.get("score"),
                "prediction": r.get("prediction") if r.get("prediction") != r.get("raw") else None,
                "objects": r.get("objects") if isinstance(r.get("objects"), list) else None,
                "extra": {
                    k: v
                    for k, v in r.items()
                    if k in ("s_obj", "s_att", "s_rel", "s_uni", "matched", "missed", "hallucinated")
                },
            }
        )
    rows.sort(key=lambda x: (x["order"], x["epoch"]))
    return RunDetail(
        run=run,
        prompt=prompt,
        parts=parts,
        rows=rows,
        score=res.score if res else None,
        verdict=res.verdict if res else "",
        order_count=len({x["order"] for x in rows}),
    )


def trajectory(bv: BenchView, sample: Sample) -> list[dict[str, Any]]:
    """The steps of the sample's trajectory in order, with each run's answer and verdict."""
    if sample.trajectory is None:
        return []
    steps = [bv.bench.sample(sid) for sid in bv.bench.trajectory_ids(sample.trajectory.id)]
    out = []
    for s in steps:
        answers = []
        for r in bv.runs:
            res = r.results.get(s.id)
            answers.append(
                {
                    "run": r,
                    "text": option_text(s, res.pred) if res else "",
                    "verdict": res.verdict if res else "",
                }
            )
        out.append({"sample": s, "gold": gold_text(s), "answers": answers, "current": s.id == sample.id})
    return out


def viewer_panels(sample: Sample) -> list[ViewerPanel]:
    """The blocks the sample's benchmark adds to its page (its plug-in's ``viewer_panels`` hook)."""
    hook = plugin_for(sample.benchmark).viewer_panels
    return hook(sample) if hook is not None else []


def missing_media(bench: Any, s: Any) -> list[str]:
    """Media paths of a sample that are not on disk (e.g. a text-only import without --videos)."""
    paths = ([s.media.video.path] if s.media.video else []) + [i.path for i in s.media.images]
    return [p for p in paths if not bench.resolve(p).is_file()]


def listed_descr(s: Any) -> list[dict[str, Any]]:
    """What `MediaSource.listed` returns for a sample, described for the template (same order)."""
    out: list[dict[str, Any]] = []
    if s.media.video is None and not s.media.images:
        return out
    if s.media.frames or s.media.video is None:
        for k, f in enumerate(s.media.frames, start=1):
            out.append(
                {
                    "label": f.label or f"Frame {k}",
                    "role": f.role or "frame",
                    "marker": f.marker,
                    "time_s": f.time_s,
                    "index": f.index,
                }
            )
    else:
        marks = [f.marker for f in s.media.frames if f.marker is not None]
        out.append(
            {
                "label": "last frame of the clip",
                "role": "last-frame",
                "marker": marks[-1] if marks else None,
                "time_s": None,
                "index": None,
            }
        )
    for img in s.media.images:
        out.append(
            {
                "label": img.label or Path(img.path).name,
                "role": "image",
                "marker": None,
                "time_s": None,
                "index": None,
            }
        )
    return out
