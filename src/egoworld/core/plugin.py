"""The benchmark plug-in protocol: everything a benchmark may customise without touching the runner, the
scorer, the report or the viewer.

A benchmark registers its `BenchmarkPlugin` under the ``egoworld.benchmarks`` entry-point group
(`egoworld.core.registry`); a benchmark folder whose name no package registers runs with the defaults (the
standard prompt layout, accuracy for choices, linear MRA for numbers). Every hook is optional and typed
below; the runner, the scorer, the report and the viewer call the hooks and never name a benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from egoworld.core.chains import ChainPlan
from egoworld.core.input_protocol import PROTOCOL, PROTOCOLS, OfficialInputs
from egoworld.core.prompts import PromptBuilder
from egoworld.core.run_config import RunConfig
from egoworld.core.schema import Sample

if TYPE_CHECKING:
    from egoworld.core.folders.bench_folder import Benchmark


@dataclass(frozen=True)
class ReportSection:
    """A titled block a plug-in adds to `egoworld report`: the same content as markdown and as HTML."""

    title: str
    markdown: str
    html: str


@dataclass(frozen=True)
class ViewerPanel:
    """A block the viewer shows on a sample's page (e.g. EXPLORE's reference final scene): a title and either
    ``rows`` (a list of records shown as a table) or ``html`` (already escaped)."""

    title: str
    rows: list[dict[str, Any]] | None = None
    html: str | None = None


class SampleMetric(Protocol):
    """An extra metric: the score in [0, 1] of an extracted answer (an original choice index or a number)."""

    def __call__(self, sample: Sample, value: int | float | None, /) -> float: ...


class RunScorer(Protocol):
    """Scores a whole run folder itself (free-form answers, e.g. judge-based) and returns the scores.json
    summary; ``egoworld score`` calls it with the benchmark, the run manifest and the scoring options."""

    def __call__(
        self,
        run_dir: Path,
        *,
        bench: Benchmark,
        manifest: dict[str, Any],
        options: dict[str, Any],
        write: bool,
    ) -> dict[str, Any]: ...


class SectionsHook(Protocol):
    """Extra report sections (analyses) for this benchmark's runs: scores.json summaries, run folders, row
    labels and the report folder (plots go in ``out/plots``)."""

    def __call__(
        self,
        summaries: Sequence[dict[str, Any]],
        run_dirs: Sequence[Path],
        labels: Sequence[str],
        out: Path,
        /,
    ) -> list[ReportSection]: ...


class OfficialAggregates(Protocol):
    """The official harness's aggregates beside ours (``scores.json["official"]``)."""

    def __call__(self, bench: Benchmark, rows: Sequence[dict[str, Any]], /) -> dict[str, Any]: ...


#: `OfficialResult.score` of a choice: decided by the scorer, once the presented index is mapped to the original
CHOICE = -1.0


@dataclass(frozen=True)
class OfficialResult:
    """One reply scored with an official harness's rules."""

    value: int | float | list[float | None] | None  #: presented choice index / number / [time, x, y]
    parsed: bool
    rule: str
    score: float


class OfficialScore(Protocol):
    """``--scoring official``: one reply scored with the official harness's per-sample rules (the presented
    ``choices``, in the order the model saw them)."""

    def __call__(self, sample: Sample, raw: str, choices: Sequence[str] | None, /) -> OfficialResult: ...


@dataclass(frozen=True)
class LoggedQuestion:
    """One line of an lmms-eval ``--log_samples`` file of the benchmark's official harness: the question doc
    the line embeds, the question's id and the harness's own verdict (``reference``)."""

    doc: dict[str, Any]
    sample_id: str
    reference: dict[str, Any]


class LmmsEvalLog(Protocol):
    """Reading the lmms-eval logs of the benchmark's official harness (``egoworld import lmms-eval``)."""

    #: how its lines are recognised, for the error on a line no benchmark reads (``Beyond3D (oos_score)``)
    label: str

    def parse(self, line: dict[str, Any], where: str) -> LoggedQuestion | None:
        """The question of one log line (``where``: file and line, for errors); None: not this benchmark's."""
        ...

    def benchmark(
        self, docs: Sequence[tuple[dict[str, Any], str]], out: Path, source: dict[str, Any]
    ) -> Benchmark:
        """A benchmark folder written at ``out`` from the logged docs (each with where it was logged)."""
        ...

    def logged_scoring(self, docs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The scoring settings the logged docs record (e.g. tolerances), for the run's ``run.json``."""
        ...


class QueryTime(Protocol):
    """The time (seconds into the video) a time + point question is asked at; the random baseline draws its
    times up to it. Without the hook: the clip end, else the latest gold candidate."""

    def __call__(self, sample: Sample, /) -> float: ...


class PlanRequests(Protocol):
    """The benchmark's own plan of a run (`egoworld.core.chains`): chains of dependent requests, e.g. EXPLORE's
    stepwise strategies, built from the run's options (``cfg.options`` holds the benchmark's own, e.g.
    ``{"strategy": "stepwise", "segment_num": 3}``). None leaves the run to the standard plan, one request
    per (sample, option order, epoch); raise ValueError for options the benchmark does not take."""

    def __call__(self, bench: Benchmark, cfg: RunConfig, /) -> ChainPlan | None: ...


@dataclass(frozen=True)
class LeaderboardColumn:
    """One column of a benchmark's leaderboard (the paper's table): the mean over questions of ``field``
    (a question's value: the mean over its scores rows) times ``scale``, over the questions of ``tasks`` (all
    when empty) whose scores row or sample metadata holds every ``where`` value; or, with ``combine``, a
    weighted sum of earlier columns (by ``key``), e.g. the macro average or S_uni."""

    title: str
    group: str = ""  #: header above a run of columns (a partition, "Duration (min)")
    tasks: tuple[str, ...] = ()
    where: tuple[tuple[str, str], ...] = ()
    field: str = "score"
    scale: float = 100.0
    combine: tuple[tuple[str, float], ...] = ()
    sem: bool = False  #: print ± SEM over questions
    key: str = ""  #: what ``combine`` names this column by (default: ``group/title``)

    @property
    def id(self) -> str:
        return self.key or f"{self.group}/{self.title}"


class LeaderboardLayout(Protocol):
    """The benchmark's leaderboard columns for the tasks its runs cover (in the manifest's order)."""

    def __call__(self, tasks: Sequence[str], /) -> list[LeaderboardColumn]: ...


@dataclass(frozen=True)
class RunOption:
    """One run option a benchmark takes (``egoworld run --option NAME=VALUE``, a run config's ``options:``):
    its name, type (str, int, float or bool), default (what the plan uses when the option is not given; None:
    none), help and, for a str option, the allowed values. Given options reach ``plan_requests`` as
    ``RunConfig.options``, parsed by ``type``."""

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] = ()

    def parse(self, value: Any) -> Any:
        """``value`` (the text after ``=``, or a config file's scalar) as this option's type; a ValueError
        names the option, the value and what it takes (``turns 'x': expected single or multi``)."""
        if self.type is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE | _FALSE:
                return text in _TRUE
            raise ValueError(f"{self.name} {value!r}: expected true or false")
        if self.type in (int, float):
            if not isinstance(value, bool):
                try:
                    return self.type(str(value).strip())
                except ValueError:
                    pass
            expected = "an integer" if self.type is int else "a number"
            raise ValueError(f"{self.name} {value!r}: expected {expected}")
        text = str(value)
        if self.choices and text not in self.choices:
            raise ValueError(f"{self.name} {text!r}: expected {_one_of(self.choices)}")
        return text

    def describe(self) -> str:
        """``strategy=one-go | stepwise (default one-go): help`` for help texts."""
        values = " | ".join(self.choices) if self.choices else self.type.__name__.upper()
        default = f" (default {self.default})" if self.default is not None else ""
        return f"{self.name}={values}{default}: {self.help}".rstrip(": ")


_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}

#: the run option of a plug-in with ``official_inputs`` (`egoworld.core.input_protocol`)
PROTOCOL_OPTION = RunOption(
    PROTOCOL, str, "egoworld", "inputs: egoworld's layout | the official harness's", PROTOCOLS
)


def _one_of(choices: Sequence[str]) -> str:
    return " or ".join(choices) if len(choices) == 2 else "one of " + ", ".join(choices)


class UnknownRunOption(ValueError):
    """A run option the benchmark does not declare."""


def parse_run_options(plugin: BenchmarkPlugin, given: dict[str, Any]) -> dict[str, Any]:
    """The options ``given`` (name → text or scalar) parsed by the types ``plugin`` declares, in the
    declared order; an undeclared name raises `UnknownRunOption` naming the benchmark's options."""
    declared = {o.name: o for o in plugin.run_options}
    unknown = [k for k in given if k not in declared]
    if unknown:
        listed = ", ".join(declared) if declared else "none"
        raise UnknownRunOption(
            f"benchmark {plugin.name!r} takes no run option {unknown[0]!r} (its options: {listed})"
        )
    return {k: declared[k].parse(given[k]) for k in declared if k in given}


class PanelsHook(Protocol):
    """Viewer panels for one sample."""

    def __call__(self, sample: Sample, /) -> list[ViewerPanel]: ...


@dataclass
class BenchmarkPlugin:
    """What one benchmark adds to the generic stages (see the hook protocols above)."""

    name: str
    #: the benchmark's name as its paper prints it (report sections, leaderboards); default: ``name``
    title: str = ""
    prompt: PromptBuilder = field(default_factory=PromptBuilder)
    #: extra metric functions by name (a task's ``metric`` in the manifest names one)
    metrics: dict[str, SampleMetric] = field(default_factory=dict)
    #: report column order, when it differs from the manifest's task order
    report_columns: tuple[str, ...] | None = None
    score_run: RunScorer | None = None
    report_sections: SectionsHook | None = None
    official_aggregates: OfficialAggregates | None = None
    official_score: OfficialScore | None = None
    viewer_panels: PanelsHook | None = None
    query_time: QueryTime | None = None
    lmms_eval_log: LmmsEvalLog | None = None
    plan_requests: PlanRequests | None = None
    #: the official harness's inputs of a sample (``--option protocol=official``; declare `PROTOCOL_OPTION`)
    official_inputs: OfficialInputs | None = None
    #: the run options ``plan_requests`` reads (``egoworld run --option NAME=VALUE``; listed in its --help)
    run_options: tuple[RunOption, ...] = ()
    #: the paper's leaderboard layout (default: one column per task and their macro average)
    leaderboard: LeaderboardLayout | None = None
    #: human titles of tasks and aggregates (default: the manifest's task titles)
    titles: dict[str, str] = field(default_factory=dict)

    def task_title(self, task: str, manifest_title: str | None = None) -> str:
        """The paper's name of a task (``titles``), else the manifest's, else the name made readable
        (``object_camera_direction`` → ``Object camera direction``; all-capital names stay)."""
        title = self.titles.get(task) or manifest_title
        if title:
            return title
        text = task.replace("_", " ").strip()
        return text if text.isupper() else text[:1].upper() + text[1:]


def plugin_for(name: str) -> BenchmarkPlugin:
    """The plug-in registered for benchmark ``name`` (the default plug-in when no package registers one)."""
    from egoworld.core import registry

    if registry.has(registry.BENCHMARKS, name):
        plugin = registry.load(registry.BENCHMARKS, name)
        if not isinstance(plugin, BenchmarkPlugin):
            raise registry.RegistryError(
                f"benchmark entry point {name!r} is a {type(plugin).__name__}, not a BenchmarkPlugin"
            )
        return plugin
    return _default(name)


_DEFAULTS: dict[str, BenchmarkPlugin] = {}


def _default(name: str) -> BenchmarkPlugin:
    return _DEFAULTS.setdefault(name, BenchmarkPlugin(name=name))
