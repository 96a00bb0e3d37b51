"""``egoworld export inspect``: a run folder as an Inspect eval log (``inspect view`` opens it).

One Inspect sample per scored row (question × option order × epoch; epochs count from 1 as in Inspect, and a
question shown in several orders gets the id ``<id>@<order>``). Each sample holds the user message as the
run sent it (its text from the response store, its images rebuilt by the media engine in the run's input
setting and embedded as data URLs), the reply, the gold reply in the presented order, the score (with the
parsed answer and extraction rule) and the question's metadata. Failed requests are samples with an error.
The eval spec carries the run's settings (``run.json``) and the results the run's ``scores.json``, on
Inspect's scale (0–1, as its ``mean`` gives; egoworld's tables print percentages).

The model is named the way Inspect rebuilds it (``inspect score`` calls ``get_model(model, base_url=
model_base_url, **model_args)``): an ``openai`` run is ``openai/<name>`` with the server it was sent to in
``model_base_url``, an ``hf`` run ``hf/<name>``; backends Inspect has no provider for (random, prior, oracle,
imported logs) are ``none/<backend>-<name>`` (Inspect's model-less provider). The generation settings the run
used (``max_tokens``, ``temperature`` … from ``run.json``) are the log's generate config; egoworld's own
model options stay in the spec's metadata (``egoworld_run``), never in ``model_args``.
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


#: egoworld backends Inspect has a provider of the same name for
_INSPECT_PROVIDERS = ("openai", "hf")
#: run.json generation keys → Inspect ``GenerateConfig`` fields
_GENERATE = {"max_tokens": "max_tokens", "max_new_tokens": "max_tokens", "temperature": "temperature",
             "top_p": "top_p", "seed": "seed", "stop": "stop_seqs", "extra_body": "extra_body",
             "timeout": "timeout", "max_retries": "max_retries"}  # fmt: skip


def _model_name(spec: str) -> str:
    """Inspect's ``provider/model``: openai:Qwen/X → openai/Qwen/X; random → none/random (no Inspect provider)."""
    backend, _, name = spec.partition(":")
    if backend in _INSPECT_PROVIDERS and name:
        return f"{backend}/{name}"
    return f"none/{backend}-{name}" if name else f"none/{backend}"


def _generation(manifest: dict[str, Any]) -> dict[str, Any]:
    """The generation settings of a run: the model's recorded ones, else its ``--model-arg`` values."""
    args = dict(manifest.get("config", {}).get("model_args", {}))
    recorded = (manifest.get("model") or {}).get("generation") or {}
    out: dict[str, Any] = {}
    for key, field in _GENERATE.items():
        value = recorded.get(key, args.get(key))
        if value is None or field in out:
            continue
        out[field] = _typed(field, value)
    return out


def _typed(field: str, value: Any) -> Any:
    """``--model-arg`` values are strings: give each Inspect field its type."""
    import json

    if field in ("max_tokens", "seed", "max_retries", "timeout"):
        return int(float(value))
    if field in ("temperature", "top_p"):
        return float(value)
    if field == "stop_seqs":
        return [x for x in value.split("|") if x] if isinstance(value, str) else list(value)
    if field == "extra_body" and isinstance(value, str):
        return json.loads(value)
    return value


def model_fields(manifest: dict[str, Any]) -> dict[str, Any]:
    """``EvalSpec``'s model, model_base_url, model_args and model_generate_config (as keyword arguments)."""
    from inspect_ai.model import GenerateConfig

    spec = str(manifest.get("model_spec", "unknown"))
    backend = spec.partition(":")[0]
    args = dict(manifest.get("config", {}).get("model_args", {}))
    base_url = args.get("base_url") if backend == "openai" else None
    return {
        "model": _model_name(spec),
        "model_base_url": str(base_url) if base_url else None,
        "model_args": {},
        "model_generate_config": GenerateConfig(**_generation(manifest)),
    }


def inspect_metrics(summary: dict[str, Any], bench: Benchmark) -> dict[str, float]:
    """The run's results on Inspect's 0–1 scale: ``mean`` and ``stderr`` (as Inspect's own scorers name them),
    the macro mean over tasks, the parse rate and each task's metric."""
    names = {"overall": "mean", "overall_sem": "stderr", "macro": "macro", "parse_rate": "parse_rate"}
    out = {new: float(summary[old]) / 100.0 for old, new in names.items() if _number(summary.get(old))}
    for task, info in summary.get("tasks", {}).items():
        metric = bench.manifest.tasks[task].metric if task in bench.manifest.tasks else "score"
        if _number(info.get(metric)):
            out[task] = float(info[metric]) / 100.0
    return out


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and x == x


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
    model = model_fields(manifest)["model"]
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

    metrics = {n: EvalMetric(name=n, value=v) for n, v in inspect_metrics(summary, bench).items()}
    fields = model_fields(manifest)
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
            **fields,
            config=EvalConfig(epochs=int(manifest.get("epochs", 1))),
            packages={"egoworld": str(manifest.get("egoworld_version", ""))},
            metadata={"egoworld_run": manifest},
        ),
        plan=EvalPlan(name="egoworld run", config=fields["model_generate_config"]),
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
