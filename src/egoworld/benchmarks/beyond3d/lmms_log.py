"""Beyond3D's lmms-eval logs (task ``oos_videoqa`` of ``Beyond3D-bench/vlm-evaluation``): each line's
``oos_score`` holds the whole question doc and the harness's verdict (`egoworld import lmms-eval`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from egoworld.benchmarks.beyond3d import BENCHMARK_NAME
from egoworld.core.folders.bench_folder import Benchmark, save_benchmark
from egoworld.core.folders.files import InputFileError
from egoworld.core.plugin import LoggedQuestion


class Beyond3DLog:
    """The `egoworld.core.plugin.LmmsEvalLog` hook of Beyond3D."""

    label = "Beyond3D (oos_score)"

    def parse(self, line: dict[str, Any], where: str) -> LoggedQuestion | None:
        if not isinstance(line.get("oos_score"), dict):
            return None
        doc = dict(line["oos_score"])
        if doc.get("id") in (None, ""):
            raise InputFileError(f"{where}: field 'oos_score.id': the official question id is missing")
        ref = {
            "score": doc.get("accuracy"),
            "parsed": doc.get("parsed"),
            "scorable": doc.get("scorable"),
            "pred": doc.get("pred_idx") if doc.get("choices") else doc.get("pred_time_sec"),
        }
        return LoggedQuestion(doc, str(doc["id"]), ref)

    def benchmark(
        self, docs: Sequence[tuple[dict[str, Any], str]], out: Path, source: dict[str, Any]
    ) -> Benchmark:
        from egoworld.benchmarks.beyond3d.importer import ReleaseSettings, docs_to_samples, task_infos

        rows = [doc | {"_where": where} for doc, where in docs]
        samples = docs_to_samples(rows, ReleaseSettings())
        tol = sorted(
            {(d.get("time_tolerance_sec"), d.get("coord_tolerance_norm")) for d in rows} - {(None, None)}
        )
        builder: dict[str, Any] = {"importer": "lmms-eval", "task": "oos_videoqa"}
        if tol:
            builder["logged_tolerances"] = [{"time_tolerance_s": t, "point_tolerance": p} for t, p in tol]
        return save_benchmark(
            out, name=BENCHMARK_NAME, tasks=task_infos(samples), samples=samples, builder=builder,
            source=source, description="Beyond3D questions embedded in an lmms-eval log",
        )  # fmt: skip

    def logged_scoring(self, docs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The open steps' tolerances the harness scored with."""
        settings = sorted(
            {
                (d.get("time_tolerance_sec"), d.get("coord_tolerance_norm"))
                for d in docs
                if "time_tolerance_sec" in d
            }
        )
        return [{"time_tolerance_s": t, "point_tolerance": p} for t, p in settings]


LMMS_LOG = Beyond3DLog()
