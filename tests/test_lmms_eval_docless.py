"""`egoworld import lmms-eval` of logs of the official ``vsi_super_wild`` task as lmms-eval 0.7.3 writes them:
no ``doc`` in the lines (``evaluation_tracker.save_results_samples`` pops it), ``doc_id`` the row of the official QA
file, ``filtered_resps`` flattened to the reply string, the harness's per-sample verdict under its metric key.
The question is found in ``--bench`` by ``doc_id``; failed requests become error rows."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from egoworld.cli import app
from egoworld.core.folders.files import InputFileError, iter_jsonl, read_json
from egoworld.interchange.lmms_eval_log import import_lmms_eval_log
from egoworld.scoring.score import score_run

QA = "vsi-super-wild/vsi_super_wild_qa.jsonl"
FAILED = "[LMMS_EVAL_REQUEST_FAILED after 2 retries] Connection error."


def _prompt(row: dict) -> str:
    """The prompt shape of the official doc_to_text (no VPO frame intro: no videos here)."""
    if row["options"]:
        opts = "\n".join(row["options"])
        return f"{row['question']}\n\nOptions:\n{opts}\n\nAnswer with only the letter (A, B, C, or D)."
    return f"{row['question']}\n\nAnswer with only a single integer number."


def _line(doc_id: int, row: dict, reply: str, verdict: float) -> dict:
    """One line as lmms-eval 0.7.3 writes it (key order included; ``doc`` and ``arguments`` popped)."""
    metric = "voc_mra" if row["task_type"] == "VOC" else f"{row['task_type'].lower()}_accuracy"
    doc_hash = hashlib.sha256(json.dumps(row, indent=2, ensure_ascii=False).encode()).hexdigest()
    return {"doc_id": doc_id, "target": str(row["answer"]), "filtered_resps": reply, "token_counts": [None],
            "doc_hash": doc_hash, metric: verdict, "overall": {"task_type": row["task_type"], "score": verdict},
            "input": _prompt(row)}  # fmt: skip


def _cases(rows: list[dict]) -> list[tuple[int, str, float]]:
    """(row, reply, the harness's verdict) for questions spread over the file, verdicts worked out by hand
    from the official process_results: extract_letter == answer for choices, linear MRA of the first digits."""
    out: list[tuple[int, str, float]] = []
    for task in ("VMR", "VPO", "VOO"):
        idx = [i for i, r in enumerate(rows) if r["task_type"] == task]
        for k, i in enumerate((idx[0], idx[len(idx) // 2], idx[-1])):
            gold = rows[i]["answer"]
            wrong = "A" if gold != "A" else "B"
            replies = [(gold, 1.0), (f"The answer is ({wrong}).", 0.0), (f"{wrong}. no, option {gold}", 1.0)]
            out.append((i, *replies[k]))
    voc = [i for i, r in enumerate(rows) if r["task_type"] == "VOC" and int(r["answer"]) >= 10]
    a, b, c = voc[0], voc[len(voc) // 2], voc[-1]
    ga, gb, gc = (int(rows[i]["answer"]) for i in (a, b, c))
    out += [
        (a, str(ga), 1.0),
        (b, f"About {gb + 5}.", max(0.0, 1 - 5 / gb)),
        (c, "none", max(0.0, 1 - gc / gc)),
    ]
    return out


def _write_log(path: Path, rows: list[dict], cases: list[tuple[int, str, float]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps(_line(i, rows[i], rep, v), ensure_ascii=False) + "\n" for i, rep, v in cases)
    )
    return path


@pytest.fixture(scope="module")
def rows(data_dir: Path) -> list[dict]:
    return [row for _, row in iter_jsonl(data_dir / QA)]


def test_docless_official_log_rescored_to_the_harness_verdicts(
    rows: list[dict], vsi_bench_dir: Path, tmp_path: Path
) -> None:
    cases = _cases(rows)
    log = _write_log(tmp_path / "qwen" / "2026-01-01T00-00-00_samples_vsi_super_wild.jsonl", rows, cases)
    res = import_lmms_eval_log(log, tmp_path / "imp", bench=vsi_bench_dir)
    assert res.kind == "vsi_wild" and res.lines == len(cases) and res.failed == 0
    refs = {r["sample"]: r for _, r in iter_jsonl(res.run / "reference.jsonl")}
    assert {r["doc_id"]: s for s, r in refs.items()} == {i: rows[i]["doc_id"] for i, _, _ in cases}
    summary = score_run(res.run, scoring="official")
    assert summary["reference_agreement"] == {
        "rows": len(cases), "agree": len(cases), "share": 100.0, "disagreeing": []
    }  # fmt: skip
    scores = {r["sample"]: r["score"] for _, r in iter_jsonl(res.run / "scores.jsonl")}
    assert {rows[i]["doc_id"]: v for i, _, v in cases} == pytest.approx(scores)


def test_harness_failures_are_error_rows(rows: list[dict], vsi_bench_dir: Path, tmp_path: Path) -> None:
    cases = _cases(rows)
    failed = [(i, FAILED, 0.0) for i, _, _ in cases[:2]]
    log = _write_log(tmp_path / "m" / "samples_vsi_super_wild.jsonl", rows, failed + cases[2:])
    result = CliRunner().invoke(
        app, ["import", "lmms-eval", str(log), "--bench", str(vsi_bench_dir), "--out", str(tmp_path / "imp")]
    )
    assert result.exit_code == 0, result.output
    assert "2 harness failures" in result.output and "WARNING: 2 of" in result.output
    manifest = read_json(tmp_path / "imp" / "run" / "run.json")
    assert manifest["counts"]["error"] == 2 and manifest["status"] == "incomplete"
    summary = score_run(tmp_path / "imp" / "run", scoring="official")
    assert summary["errors"] == 2 and not summary["complete"]
    assert summary["reference_agreement"]["rows"] == len(cases) - 2
    assert summary["reference_agreement"]["share"] == 100.0
    errors = [r for _, r in iter_jsonl(tmp_path / "imp" / "run" / "scores.jsonl") if r["status"] == "error"]
    assert {r["sample"] for r in errors} == {rows[i]["doc_id"] for i, _, _ in failed}
    assert all(r["score"] is None and "LMMS_EVAL_REQUEST_FAILED" in r["error"] for r in errors)


def test_docless_log_needs_the_whole_official_file(
    rows: list[dict], vsi_bench_dir: Path, tmp_path: Path
) -> None:
    cases = _cases(rows)
    log = _write_log(tmp_path / "m" / "samples_vsi_super_wild.jsonl", rows, cases)
    with pytest.raises(InputFileError, match=r"line 1: .* doc_id only .*pass --bench .*vsi-wild-qa"):
        import_lmms_eval_log(log, tmp_path / "a")
    shifted = [json.loads(x) for x in log.read_text().splitlines()]
    shifted[3]["doc_id"] += 1  # another version of the file: the row holds another question
    bad = tmp_path / "m2" / "samples_vsi_super_wild.jsonl"
    bad.parent.mkdir()
    bad.write_text("".join(json.dumps(x) + "\n" for x in shifted))
    with pytest.raises(InputFileError, match=r"line 4: doc_id \d+ is .* another QA file"):
        import_lmms_eval_log(bad, tmp_path / "b", bench=vsi_bench_dir)
    shifted[3]["doc_id"] = len(rows)
    bad.write_text("".join(json.dumps(x) + "\n" for x in shifted))
    with pytest.raises(InputFileError, match=r"line 4: doc_id 6980 is past the 6980 questions"):
        import_lmms_eval_log(bad, tmp_path / "c", bench=vsi_bench_dir)


def test_docless_log_refuses_a_benchmark_not_in_file_order(rows: list[dict], tmp_path: Path) -> None:
    """A benchmark built from another log's docs holds a subset: its rows are not the QA file's."""
    cases = _cases(rows)
    with_docs = tmp_path / "a" / "samples_vsi_super_wild.jsonl"
    _write_log(with_docs, rows, cases)
    lines = [
        json.loads(x) | {"doc": rows[c[0]]}
        for x, c in zip(with_docs.read_text().splitlines(), cases, strict=True)
    ]
    with_docs.write_text("".join(json.dumps(x) + "\n" for x in lines))
    subset = import_lmms_eval_log(with_docs, tmp_path / "sub").bench
    docless = _write_log(tmp_path / "b" / "samples_vsi_super_wild.jsonl", rows, cases)
    with pytest.raises(
        InputFileError, match=r"line 1: doc_id is the row of the official QA file, .* built by lmms-eval"
    ):
        import_lmms_eval_log(docless, tmp_path / "c", bench=subset.root)
