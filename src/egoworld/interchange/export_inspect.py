"""``egoworld export inspect``: a run folder as an Inspect eval log (``inspect view`` opens it).

One Inspect sample per scored row (question × option order × epoch; epochs count from 1 as in Inspect, and a
question shown in several orders gets the id ``<id>@<order>``). Each sample holds the user message as the
run sent it (its text from the response store, its images rebuilt by the media engine in the run's input
setting and embedded as data URLs), the reply, the gold reply in the presented order, the score (with the
parsed answer and extraction rule) and the question's metadata. Failed requests are samples with an error.
The eval spec carries the run's settings (``run.json``) and the results the run's ``scores.json``.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path
from typing import Any

from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.files import InputFileError, read_json
from egoworld.core.folders.hashing import canonical_json, sha256_json
from egoworld.core.folders.store import ResponseStore
from egoworld.core.model import ImagePart, VideoPart
from egoworld.core.permutations import parse_permutation_id
from egoworld.core.plugin import plugin_for
from egoworld.core.run_config import RUN_MANIFEST, STORE_FILE
from egoworld.runner.inputs import InputSettings, open_inputs


def _iso(ts: float | None) -> str:
    return dt.datetime.fromtimestamp(ts or 0.0, tz=dt.UTC).isoformat()


def _model_name(spec: str) -> str:
    """Inspect names models provider/model: openai:Qwen/X → openai/Qwen/X; random → egoworld/random."""
    backend, _, name = spec.partition(":")
    return f"{backend}/{name}" if name else f"egoworld/{backend}"


def _times(store: ResponseStore) -> tuple[float | None, float | None]:
    row = store.db.execute("SELECT MIN(created_at), MAX(updated_at) FROM responses").fetchone()
    return (row[0], row[1]) if row else (None, None)


def _load_bench(run_dir: Path, manifest: dict[str, Any], bench_dir: Path | None) -> Benchmark:
    bench = load_benchmark(bench_dir or manifest["benchmark_path"])
    if bench.hash != manifest["benchmark_hash"]:
        raise InputFileError(
            f"{bench.root}: benchmark differs from the one run {run_dir} used; pass --bench with the original folder"
        )
    return bench


def export_inspect(
    run_dir: str | Path, out: str | Path, *, bench_dir: str | Path | None = None
) -> tuple[Path, int]:
    """Write the log ``out`` (``.eval`` or ``.json``); returns its path and the number of samples."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalResults,
        EvalSample,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageUser,
        ContentImage,
        ContentText,
        ContentVideo,
        ModelOutput,
    )
    from inspect_ai.scorer import Score

    from egoworld.core.run_config import SCORES_JSON
    from egoworld.interchange.export_parquet import run_rows

    run_dir, out = Path(run_dir), Path(out)
    if out.suffix not in (".eval", ".json"):
        raise ValueError(f"--out {out}: an Inspect log ends in .eval or .json")
    manifest = read_json(run_dir / RUN_MANIFEST)
    bench = _load_bench(run_dir, manifest, Path(bench_dir) if bench_dir else None)
    rows, _ = run_rows(run_dir)
    summary = read_json(run_dir / SCORES_JSON)
    prompt = plugin_for(bench.name).prompt
    orders = Counter(r["sample"] for r in rows if r["epoch"] == 0)
    model = _model_name(str(manifest.get("model_spec", "unknown")))
    settings = InputSettings(**manifest.get("inputs", {"setting": "text"}))
    inputs = open_inputs(bench, settings)
    media_cache: dict[str, list[Any]] = {}
    samples = []
    with ResponseStore(run_dir / STORE_FILE, readonly=True) as store:
        keys = {(s, p, e): k for s, p, e, k, _ in store.planned()}
        started, completed = _times(store)
        try:
            for row in rows:
                s = bench.sample(row["sample"])
                pid, epoch = row["permutation"], int(row["epoch"])
                perm = parse_permutation_id(pid)
                choices = prompt.presented_choices(s, perm)
                key = keys.get((s.id, pid, epoch))
                sent = store.request(key) if key else None
                if sent is not None:
                    text = "\n".join(
                        p["text"] for m in sent["messages"] for p in m["content"] if p.get("type") == "text"
                    )
                else:
                    text = prompt.question_text(s, choices)
                if s.id not in media_cache:
                    media_cache[s.id] = [
                        ContentVideo(video=p.data_url(), format="mp4")
                        if isinstance(p, VideoPart)
                        else ContentImage(image=p.data_url())
                        for p in inputs.parts(bench, s)
                        if isinstance(p, ImagePart | VideoPart)
                    ]
                content = [*media_cache[s.id], ContentText(text=text)]
                user = ChatMessageUser(content=content if media_cache[s.id] else text)
                raw = row.get("raw")
                messages: list[Any] = [user]
                output = ModelOutput(model=model)
                if raw is not None:
                    messages.append(ChatMessageAssistant(content=raw, model=model))
                    output = ModelOutput.from_content(model=model, content=raw)
                score = None
                error = None
                if row["status"] == "ok":
                    extra = {k: v for k, v in row.items() if k not in ("raw", "score", "pred", "sample")}
                    score = {
                        "egoworld": Score(
                            value=float(row["score"]),
                            answer=None if row.get("pred") is None else canonical_json(row["pred"]),
                            explanation=f"extracted by rule {row.get('rule')}" if row.get("rule") else None,
                            metadata=extra,
                        )
                    }
                else:
                    reason = row.get("error") or row["status"]
                    error = EvalError(message=str(reason), traceback="", traceback_ansi="")
                sid = s.id if orders[s.id] <= 1 else f"{s.id}@{pid}"
                samples.append(
                    EvalSample(
                        id=sid,
                        epoch=epoch + 1,
                        input=[user],
                        choices=list(choices) if choices else None,
                        target=prompt.gold_reply(s, perm) or "",
                        messages=messages,
                        output=output,
                        scores=score,
                        error=error,
                        metadata={
                            "egoworld_sample": s.id,
                            "task": s.task,
                            "permutation": pid,
                            "episode": s.episode,
                            "cluster": s.cluster,
                            "gold": s.answer if s.answer_type != "free" else None,
                            **{f"meta_{k}": v for k, v in s.metadata.items()},
                        },
                    )
                )
        finally:
            inputs.close()

    metrics = {
        name: EvalMetric(name=name, value=float(summary[name]))
        for name in ("overall", "overall_sem", "macro", "parse_rate")
        if isinstance(summary.get(name), int | float)
    }
    for task, info in summary.get("tasks", {}).items():
        metric = bench.manifest.tasks[task].metric if task in bench.manifest.tasks else "score"
        value = info.get(metric)
        if isinstance(value, int | float):
            metrics[task] = EvalMetric(name=task, value=float(value))
    ok = sum(1 for r in rows if r["status"] == "ok")
    run_config = (manifest.get("command") or {}).get("config") or manifest.get("config", {})
    ident = sha256_json(
        {"bench": manifest["benchmark_hash"], "model": manifest.get("model"), "run": run_dir.name}
    )
    log = EvalLog(
        version=2,
        status="success" if ok == len(rows) else "error",
        eval=EvalSpec(
            eval_id=ident[:22],
            run_id=ident[22:44],
            created=_iso(started),
            task=f"egoworld/{bench.name}",
            task_id=bench.hash[:22],
            task_version=bench.manifest.version,
            task_args=run_config,
            dataset=EvalDataset(
                name=bench.name,
                location=str(Path(bench.root).resolve()),
                samples=len({r["sample"] for r in rows}),
                sample_ids=sorted({r["sample"] for r in rows}),
                shuffled=False,
            ),
            model=model,
            model_args=dict(manifest.get("config", {}).get("model_args", {})),
            config=EvalConfig(epochs=int(manifest.get("epochs", 1))),
            packages={"egoworld": str(manifest.get("egoworld_version", ""))},
            metadata={"egoworld_run": manifest},
        ),
        plan=EvalPlan(name="egoworld run"),
        results=EvalResults(
            total_samples=len(rows),
            completed_samples=ok,
            scores=[EvalScore(name="egoworld", scorer="egoworld", metrics=metrics)],
        ),
        stats=EvalStats(started_at=_iso(started), completed_at=_iso(completed)),
        samples=samples,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    return out, len(samples)
