"""Class 4: every string that comes from data (judge labels, model names, benchmark and task names, questions,
replies) is escaped in the HTML report; a report over hostile input holds no element the input smuggled in."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from conftest import egoworld, write_bench

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts = 0
        self.handlers: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        self.handlers += [(tag, k) for k, _ in attrs if k.startswith("on")]


def assert_inert(html_text: str) -> None:
    tags = _Tags()
    tags.feed(html_text)
    assert tags.scripts == 0 and not tags.handlers, (tags.scripts, tags.handlers)


def _explore_summary(label: str) -> dict:
    return {
        "benchmark": "explore",
        "model_spec": "m",
        "strategy_label": "one-go",
        "explore": {
            "judge": {"label": label, "spec": label, "name": label, "comparable_to_paper": False},
            "partitions": {"full": {"s_obj": 1.0, "s_att20": 2.0, "s_rel20": 3.0, "s_uni": 4.0, "n": 1}},
            "cost": {
                "requests_per_sample": 1,
                "prompt_tokens_per_sample": 10,
                "completion_tokens_per_sample": 5,
            },
        },
    }


def test_explore_report_section_escapes_the_judge_label(tmp_path):
    """The audit's case: the judge label went into index.html as raw HTML."""
    from egoworld.core.plugin import plugin_for

    sections = plugin_for("explore").report_sections([_explore_summary(EVIL)], [tmp_path], ["m"], tmp_path)
    assert sections
    for sec in sections:
        assert_inert(sec.html)
        assert "&lt;script&gt;" in sec.html


def test_whole_report_over_a_hostile_benchmark_is_inert(tmp_path):
    """Benchmark name, task names, question, choices and the model's replies all carry markup."""
    tasks = {f"T{EVIL}": {"answer_type": "choice", "metric": "accuracy", "title": EVIL}}
    rows = [
        {
            "id": f"q{i}{EVIL}",
            "benchmark": EVIL,
            "task": f"T{EVIL}",
            "question": f"Question {EVIL}?",
            "answer_type": "choice",
            "choices": [f"a{EVIL}", "b", "c", "d"],
            "answer": i % 4,
        }
        for i in range(4)
    ]
    bench = write_bench(tmp_path / "bench", rows, tasks=tasks, name=EVIL)
    run = tmp_path / "run"
    res = egoworld("run", "--bench", bench, "--model", "random", "--out", run, "--no-progress")
    assert res.code == 0, res.output
    assert egoworld("score", "--run", run).code == 0
    res = egoworld("report", "--run", run, "--out", tmp_path / "report")
    assert res.code == 0, res.output
    pages = [tmp_path / "report" / "index.html", *sorted((tmp_path / "report").rglob("samples.html"))]
    assert len(pages) == 2
    for page in pages:
        text = page.read_text()
        assert_inert(text)
        assert "&lt;script&gt;" in text
    report = json.loads(Path(tmp_path / "report" / "report.json").read_text())
    assert report["runs"][0]["scores"]["benchmark"] == EVIL  # the data itself is kept, only escaped in HTML
