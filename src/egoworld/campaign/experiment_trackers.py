"""A scored run sent to the trackers people use: ``--track mlflow:URI`` or ``--track wandb[:DIR]``.

MLflow: URI a tracking store (``sqlite:///mlflow.db`` is MLflow's own offline default; ``file:PATH`` or a
plain folder is the file store, which MLflow 3 keeps in maintenance mode) — artifacts go beside the store.
W&B: offline (``WANDB_MODE`` decides otherwise), logs in DIR (default ``./wandb``), `wandb sync` uploads them.
Either gets the run's config as parameters, its scores and usage figures as metrics and its score table
(``scores.md``, ``scores.csv``) as an artifact.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from egoworld.core.folders.files import InputFileError, read_json_object
from egoworld.core.run_config import RUN_MANIFEST
from egoworld.runner.figures import score_table

TRACKERS = ("mlflow", "wandb")


def parse_track(spec: str) -> tuple[str, str | None]:
    """``mlflow:URI`` → ("mlflow", URI); ``wandb`` / ``wandb:DIR`` → ("wandb", DIR or None)."""
    kind, _, where = spec.partition(":")
    if kind not in TRACKERS or (kind == "mlflow" and not where):
        raise ValueError(
            f"--track {spec!r}: expected mlflow:URI (e.g. mlflow:sqlite:///mlflow.db) or wandb[:DIR]"
        )
    return kind, where or None


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value


def run_record(run_dir: Path) -> tuple[dict[str, str], dict[str, float], list[tuple[str, ...]]]:
    """(parameters, metrics, score-table rows with a header) of a scored run folder."""
    manifest = read_json_object(run_dir / RUN_MANIFEST)
    scores_path = run_dir / "scores.json"
    if not scores_path.is_file():
        raise InputFileError(
            f"{run_dir}: no scores.json to track (free-form answers need a judge): "
            f"egoworld score --run {run_dir} --judge JUDGE --track SPEC"
        )
    scored = read_json_object(scores_path)
    params: dict[str, Any] = {}
    _flat("", manifest.get("config") or {}, params)
    for key in ("benchmark", "benchmark_hash", "model_spec", "egoworld_version"):
        params[key] = manifest.get(key)
    metrics: dict[str, Any] = {k: scored.get(k) for k in ("overall", "macro", "parse_rate", "errors", "n")}
    for task, t in (scored.get("tasks") or {}).items():
        metrics[f"task.{task}"] = t.get(t.get("metric", ""))
        metrics[f"task.{task}.parse_rate"] = t.get("parse_rate")
    usage = manifest.get("usage") or {}
    for key in ("requests_per_second", "media_bytes_per_request", "tokens_per_correct", "requests_sent"):
        metrics[f"usage.{key}"] = usage.get(key)
    for key, value in (usage.get("tokens") or {}).items():
        metrics[f"tokens.{key}"] = value
    metrics["cost.usd"] = (usage.get("cost") or {}).get("usd")
    for key in ("hits", "misses"):
        metrics[f"cache.{key}"] = (manifest.get("cache") or {}).get(key)
    numbers = {
        k: float(v) for k, v in metrics.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }
    strings = {k: json.dumps(v) if not isinstance(v, str) else v for k, v in params.items() if v is not None}
    rows = [("task", "n", "score", "parse %", "errors"), *score_table(scored)]
    return strings, numbers, rows


def _write_table(rows: list[tuple[str, ...]], folder: Path) -> list[Path]:
    md = ["| " + " | ".join(rows[0]) + " |", "|---|" + "---:|" * (len(rows[0]) - 1)]
    md += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    (folder / "scores.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (folder / "scores.csv").write_text("\n".join(",".join(r) for r in rows) + "\n", encoding="utf-8")
    return [folder / "scores.md", folder / "scores.csv"]


def _mlflow(
    uri: str, experiment: str, name: str, params: dict[str, str], metrics: dict[str, float], files: list[Path]
) -> str:
    try:
        import mlflow
    except ModuleNotFoundError as exc:
        raise RuntimeError("--track mlflow needs MLflow: pip install 'egoworld[track]'") from exc
    if "://" not in uri and not uri.startswith("file:"):
        uri = Path(uri).resolve().as_uri()  # a plain folder: the file store
    if uri.startswith("file:"):
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri(uri)
    client = mlflow.MlflowClient(uri)
    found = client.get_experiment_by_name(experiment)
    if found is None:
        artifacts = None
        if uri.startswith("sqlite:///"):  # beside the database, not in whatever folder the command ran in
            artifacts = (Path(uri.removeprefix("sqlite:///")).resolve().parent / "mlartifacts").as_uri()
        exp_id = client.create_experiment(experiment, artifact_location=artifacts)
    else:
        exp_id = found.experiment_id
    with mlflow.start_run(experiment_id=exp_id, run_name=name) as run:
        mlflow.log_params(params)
        mlflow.log_metrics(metrics)
        for f in files:
            mlflow.log_artifact(str(f))
        return f"mlflow {uri} experiment {experiment!r} run {run.info.run_id}"


def _wandb(
    folder: str | None,
    project: str,
    name: str,
    params: dict[str, str],
    metrics: dict[str, float],
    files: list[Path],
) -> str:
    try:
        import wandb
    except ModuleNotFoundError as exc:
        raise RuntimeError("--track wandb needs wandb: pip install 'egoworld[track]'") from exc
    where = Path(folder or os.environ.get("WANDB_DIR") or ".").resolve()
    where.mkdir(parents=True, exist_ok=True)
    run = wandb.init(
        mode=os.environ.get("WANDB_MODE", "offline"),  # type: ignore[arg-type]
        dir=str(where),
        project=project,
        name=name,
        config=params,
        settings=wandb.Settings(silent=True, console="off", x_disable_stats=True),
    )
    run.log(metrics)
    art = wandb.Artifact(f"scores-{name}", type="scores")
    for f in files:
        art.add_file(str(f))
    run.log_artifact(art)
    run.finish()
    return f"wandb ({run.settings.mode}) {where / 'wandb'} run {run.id}"


def log_run(run_dir: Path, spec: str, *, experiment: str = "egoworld", name: str | None = None) -> str:
    """Send one scored run folder to the tracker ``spec``; returns where it went (for the console)."""
    kind, where = parse_track(spec)
    params, metrics, rows = run_record(run_dir)
    name = name or run_dir.resolve().name
    with tempfile.TemporaryDirectory(prefix="egoworld-track-") as tmp:
        files = _write_table(rows, Path(tmp))
        if kind == "mlflow":
            assert where is not None
            return _mlflow(where, experiment, name, params, metrics, files)
        return _wandb(where, experiment, name, params, metrics, files)
