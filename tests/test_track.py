"""`--track`: a run's config, scores and score table in MLflow (SQLite and file stores) and in W&B offline
logs, read back with MLflow's own client and W&B's own record format (its protobuf messages)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from test_sweep import _bench

CLI = "from egoworld.cli import main; main()"


def _run(tmp: Path, bench: Path, name: str, track: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`egoworld run … --track TRACK` in this process (the command's own code, without a fresh interpreter)."""
    from typer.testing import CliRunner

    from egoworld.cli import app

    out = tmp / name
    monkeypatch.chdir(tmp)
    argv = ["run", "--bench", str(bench), "--model", "random", "--seed", "3", "--out", str(out)]
    res = CliRunner().invoke(app, [*argv, "--no-progress", "--track", track])
    assert res.exit_code == 0, res.output
    assert "tracked:" in res.output
    return out


def _expected(run: Path) -> tuple[dict, dict]:
    scores = json.loads((run / "scores.json").read_text())
    return scores, {t: v[v["metric"]] for t, v in scores["tasks"].items()}


@pytest.mark.slow  # MLflow creates its SQLite schema with ~50 Alembic migrations (seconds)
def test_mlflow_sqlite_store_holds_metrics_config_and_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mlflow = pytest.importorskip("mlflow")
    pytest.importorskip("sqlalchemy")
    bench = _bench(tmp_path, "b1", 6)
    uri = f"sqlite:///{tmp_path / 'ml' / 'mlflow.db'}"
    (tmp_path / "ml").mkdir()
    run = _run(tmp_path, bench, "r-ml", f"mlflow:{uri}", monkeypatch)
    scores, per_task = _expected(run)
    client = mlflow.MlflowClient(uri)
    [found] = client.search_runs([client.get_experiment_by_name("egoworld").experiment_id])
    assert found.info.run_name == "r-ml"
    assert found.data.metrics["overall"] == pytest.approx(scores["overall"])
    assert {t: found.data.metrics[f"task.{t}"] for t in per_task} == pytest.approx(per_task)
    assert found.data.params["model"] == "random" and found.data.params["seed"] == "3"
    assert sorted(a.path for a in client.list_artifacts(found.info.run_id)) == ["scores.csv", "scores.md"]
    table = Path(client.download_artifacts(found.info.run_id, "scores.md", str(tmp_path))).read_text()
    assert f"| overall | {scores['n']} | {scores['overall']:.1f} |" in table
    assert not (tmp_path / "mlruns").exists() and (tmp_path / "ml" / "mlartifacts").is_dir()


def test_mlflow_file_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 reads its file store only when asked
    bench = _bench(tmp_path, "b1", 4)
    run = _run(tmp_path, bench, "r-file", f"mlflow:{tmp_path / 'mlruns-here'}", monkeypatch)
    scores, _ = _expected(run)
    client = mlflow.MlflowClient((tmp_path / "mlruns-here").as_uri())
    [found] = client.search_runs([client.get_experiment_by_name("egoworld").experiment_id])
    assert found.data.metrics["macro"] == pytest.approx(scores["macro"])


def wandb_records(path: Path) -> list:
    """Records of a W&B transaction log (``run-ID.wandb``): a 7-byte header (':W&B', magic, version), then
    32 KiB blocks of chunks (crc32 4 bytes, length 2, type 1: full / first / middle / last)."""
    from wandb.proto import wandb_internal_pb2 as pb

    data = path.read_bytes()
    assert data[:4] == b":W&B"
    records, pos, block, partial = [], 7, 32768, b""
    while pos + 7 <= len(data):
        left = block - pos % block
        if left < 7:
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos : pos + 7])
        if kind == 0 and length == 0:
            pos += left
            continue
        chunk = data[pos + 7 : pos + 7 + length]
        pos += 7 + length
        partial = chunk if kind in (1, 2) else partial + chunk
        if kind in (1, 4):
            rec = pb.Record()
            rec.ParseFromString(partial)
            records.append(rec)
    return records


def test_wandb_offline_log_holds_metrics_config_and_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("wandb")
    bench = _bench(tmp_path, "b1", 6)
    run = _run(tmp_path, bench, "r-wb", f"wandb:{tmp_path / 'wb'}", monkeypatch)
    scores, per_task = _expected(run)
    [log] = list((tmp_path / "wb" / "wandb").glob("offline-run-*/run-*.wandb"))
    records = wandb_records(log)
    kinds = [r.WhichOneof("record_type") for r in records]
    metas = [r.run for r in records if r.WhichOneof("record_type") == "run"]
    assert len(metas) == 1, f"records in {log}: {kinds}"
    meta = metas[0]
    assert meta.display_name == "r-wb" and meta.project == "egoworld"
    config = {i.key: json.loads(i.value_json) for i in meta.config.update}
    assert config["model"] == "random" and config["seed"] == "3"
    history = {
        i.key or ".".join(i.nested_key): json.loads(i.value_json)
        for r in records
        if r.HasField("history")
        for i in r.history.item
    }
    assert history["overall"] == pytest.approx(scores["overall"])
    assert {t: history[f"task.{t}"] for t in per_task} == pytest.approx(per_task)
    [art] = [r.artifact for r in records if r.HasField("artifact")]
    assert art.type == "scores" and sorted(e.path for e in art.manifest.contents) == [
        "scores.csv",
        "scores.md",
    ]
    assert "exit" in kinds


def test_track_refuses_an_unknown_tracker(tmp_path: Path) -> None:
    bench = _bench(tmp_path, "b1", 2)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CLI,
            "run",
            "--bench",
            str(bench),
            "--model",
            "random",
            "--out",
            str(tmp_path / "r"),
            "--track",
            "neptune:x",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0 and "mlflow:URI" in proc.stderr and not (tmp_path / "r").exists()
