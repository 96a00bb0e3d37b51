"""Fuzz the sample schema: any JSON a file can hold is either a valid sample or one `InputFileError`.

A valid sample must also be safe downstream: every number in it is finite and in range (so it can be written
back as strict JSON and scored), and a loaded sample round-trips to the same sample.
"""

from __future__ import annotations

import json
import math

import pytest

from conftest import sample_row, write_bench

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from egoworld.core.folders.files import InputFileError  # noqa: E402
from egoworld.core.folders.hashing import canonical_json  # noqa: E402
from egoworld.core.schema import Sample  # noqa: E402

NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.sampled_from([0, 1, -1, 3.7, 2**53, 2**53 + 1, 1e308, -0.0]),
)
SCALARS = st.one_of(
    st.none(), NUMBERS, st.text(max_size=12), st.sampled_from(["../x.png", "/etc/passwd", ""])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = [
    "id", "task", "answer_type", "choices", "answer", "episode", "cluster", "question", "metadata", "media",
    "trajectory",
]  # fmt: skip
MEDIA_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "video": st.fixed_dictionaries(
            {"path": st.sampled_from(["videos/a.mp4", "../a.mp4"])},
            optional={"start_s": NUMBERS, "end_s": NUMBERS, "duration_s": NUMBERS},
        ),
        "frames": st.lists(
            st.fixed_dictionaries(
                {}, optional={"index": NUMBERS, "time_s": NUMBERS, "marker": st.lists(NUMBERS)}
            ),
            max_size=3,
        ),
    },
)


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


def _mutations():
    field = st.sampled_from(FIELDS)
    return st.one_of(
        st.tuples(field, JSON),
        st.tuples(st.just("answer"), NUMBERS),
        st.tuples(st.just("media"), MEDIA_VALUES),
    )


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["choice", "integer", "number"]),
    changes=st.lists(_mutations(), min_size=1, max_size=3),
)
def test_a_sample_is_valid_and_safe_or_refused_with_a_field(kind, changes):
    row = sample_row()
    if kind != "choice":
        row.update(answer_type=kind, choices=None, answer=3)
    for name, value in changes:
        row[name] = value
    try:
        sample = Sample.model_validate(row)
    except ValidationError as exc:
        assert exc.errors(), exc
        return
    dumped = sample.model_dump(mode="json")
    assert _finite(dumped["media"]) and _finite(dumped["answer"]), dumped
    if sample.answer_type in ("integer", "number"):
        a = sample.answer
        assert not isinstance(a, bool) and isinstance(a, int | float) and abs(a) <= 2**53
    if sample.answer_type == "choice":
        assert all(0 <= i < len(sample.choices or ()) for i in sample.correct_indices)
    for f in sample.media.frames:
        assert f.index is None or (type(f.index) is int and f.index >= 0)
    if _finite(dumped):  # metadata is free-form; strict JSON refuses NaN there at the file door
        assert Sample.model_validate(json.loads(canonical_json(dumped))) == sample


@settings(
    max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    line=st.one_of(st.text(max_size=40), JSON.map(json.dumps), st.sampled_from(["NaN", '{"id": Infinity}']))
)
def test_any_line_of_samples_jsonl_loads_or_is_refused_by_line(tmp_path, line):
    from egoworld.core.folders.bench_folder import load_benchmark

    root = tmp_path / f"fuzz{len(list(tmp_path.iterdir()))}"
    write_bench(root, [json.dumps(sample_row("first")), line.replace("\n", " ") or "{}"])
    try:
        bench = load_benchmark(root)
    except InputFileError as exc:
        assert "samples.jsonl" in str(exc) or "manifest.json" in str(exc), exc
        return
    assert bench.samples[0].id == "first"
