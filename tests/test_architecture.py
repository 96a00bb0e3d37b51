"""The house rule, read from the code's own imports (an `ast` pass over ``src/egoworld``): imports only look
down the floors of ``docs/architecture.md``, no two top-level packages import each other, and no module
imports another module's ``_private`` name. And the rooms inside the floors: world formats live in
``world/`` (perception and the viewer import no benchmark), no package's top level holds more than
`MAX_MODULES` modules, and one file name does one job."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "egoworld"

#: bottom to top; a package may import its own floor's modules only when it is the same package
FLOORS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("geometry", "metrics"),
    ("media",),
    ("world",),
    ("sim",),
    ("models",),
    ("scoring",),
    ("runner",),
    ("render",),
    ("benchmarks",),
    ("solvers",),
    ("view",),
    ("report",),
    ("interchange",),
    ("campaign",),
    ("perception",),
    ("compare", "scene_annotation"),
    ("demo",),
    ("commands", "cli_examples"),
    ("cli",),
)
FLOOR = {pkg: i for i, names in enumerate(FLOORS) for pkg in names}


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, imported module, imported names) of every import in the file, function-level ones included."""
    mod = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name, []) for a in node.names)
    return out


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "egoworld" and len(parts) > 1 else None


def _edges() -> dict[tuple[str, str], list[str]]:
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        src = _top(_module_name(path))
        for line, target, _ in _imports(path):
            dst = _top(target)
            if src and dst and src != dst:
                edges[(src, dst)].append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    return edges


def test_every_package_has_a_floor() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    packages |= {p.stem for p in SRC.glob("*.py") if p.stem != "__init__"}
    missing = sorted(packages - set(FLOOR))
    assert not missing, f"give {missing} a floor in FLOORS (and in docs/architecture.md)"


def test_no_import_cycle_between_packages() -> None:
    edges = _edges()
    pairs = [
        f"{a} <-> {b}: {edges[(a, b)][0]}; {edges[(b, a)][0]}"
        for (a, b) in sorted(edges)
        if (b, a) in edges and a < b
    ]
    assert not pairs, "packages that import each other:\n" + "\n".join(pairs)


def test_no_import_cycle_between_files() -> None:
    """No two modules reach each other through imports (function-level ones count: they only hide a cycle)."""
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for mod, path in modules.items():
        deps = set()
        for _, target, names in _imports(path):
            deps |= {f"{target}.{n}" for n in names if f"{target}.{n}" in modules} or {target}
        graph[mod] = {d for d in deps if d in modules and d != mod}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    cycles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and reaches(b, a))
    assert not cycles, "modules in an import cycle:\n" + "\n".join(cycles)


def test_imports_only_look_down() -> None:
    edges = _edges()
    upward = [
        f"{a} (floor {FLOOR.get(a)}) -> {b} (floor {FLOOR.get(b)}): {where[0]}"
        for (a, b), where in sorted(edges.items())
        if a in FLOOR and b in FLOOR and FLOOR[a] <= FLOOR[b]
    ]
    assert not upward, "imports that do not look down:\n" + "\n".join(upward)


def test_no_private_name_imported_from_another_module() -> None:
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        for line, target, names in _imports(path):
            if not target.startswith("egoworld"):
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private or any(p.startswith("_") for p in target.split(".")[1:] if p != "__init__"):
                bad.append(f"{path.relative_to(SRC.parent)}:{line} from {target} import {', '.join(names)}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


@pytest.mark.parametrize("floors", [FLOORS])
def test_floors_are_documented(floors: tuple[tuple[str, ...], ...]) -> None:
    doc = (SRC.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [pkg for names in floors for pkg in names if f"`{pkg}" not in doc]
    assert not missing, f"docs/architecture.md does not name {missing}"


@pytest.mark.slow
def test_core_is_clean_under_mypy_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make lint`'s type check: ``mypy`` with pyproject.toml's ``[tool.mypy]`` (strict on ``core/``)."""
    api = pytest.importorskip("mypy.api", reason="pip install 'egoworld[test]'")
    root = SRC.parents[1]
    monkeypatch.chdir(root)  # the config's paths are relative to the checkout
    out, err, status = api.run(["--config-file", str(root / "pyproject.toml"), "--cache-dir", str(tmp_path)])
    assert status == 0, out + err


#: packages that work on worlds and must not reach into a benchmark: the pipeline is world → benchmark
WORLD_SIDE = ("perception", "view")


def test_perception_and_view_import_no_benchmark() -> None:
    bad = [
        f"{path.relative_to(SRC.parent)}:{line} imports {target}"
        for pkg in WORLD_SIDE
        for path in sorted((SRC / pkg).rglob("*.py"))
        for line, target, _ in _imports(path)
        if target == "egoworld.benchmarks" or target.startswith("egoworld.benchmarks.")
    ]
    assert not bad, "world formats belong in egoworld.world, not a benchmark package:\n" + "\n".join(bad)


#: a package's own top level (sub-packages hold the rest): past this, group modules into rooms
MAX_MODULES = 20


def test_no_package_top_level_holds_more_than_max_modules() -> None:
    crowded = []
    for init in sorted(SRC.rglob("__init__.py")):
        modules = [p for p in init.parent.glob("*.py") if p.name != "__init__.py"]
        if len(modules) > MAX_MODULES:
            crowded.append(f"{init.parent.relative_to(SRC.parent)}: {len(modules)} modules")
    assert not crowded, f"more than {MAX_MODULES} modules at one level; make sub-packages:\n" + "\n".join(
        crowded
    )


#: file names that several packages use for the same job (the shape every package of a kind shares)
SAME_JOB: dict[str, str] = {
    "cli": "a package's commands",
    "plugin": "a benchmark's plug-in",
    "prompts": "prompt text (the default layout in core, a benchmark's own beside its plug-in)",
    "official": "a benchmark's official rules, reproduced from its official code",
    "importer": "a benchmark's import of its official release",
    "lmms_log": "a benchmark's reader of the official lmms-eval logs",
    "analysis": "a benchmark's analyses for the report",
    "builder": "a benchmark's generator entry (`build/builder.py`)",
    "synth": "a world kind's episode synthesis (`sim/<kind>/synth.py`)",
    "catalog": "a world kind's object categories (`sim/<kind>/catalog.py`)",
    "plan": "a run's plan of work (the default in core, a benchmark's own request chains)",
    "outcome": "how a command that runs or scores a model ends on the console",
    "spec": "a ``--model`` / ``--detector`` spec string parsed into its object",
    "protocol": "a benchmark's ``official`` input protocol (what the official harness shows the model)",
}


def test_one_file_name_does_one_job() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        if path.name != "__init__.py":
            by_name[path.stem].append(str(path.relative_to(SRC)))
    # a root command's module (`commands/X.py`) shares the name of the module whose job it runs
    shared = [
        f"{name}: {', '.join(paths)}"
        for name, paths in sorted(by_name.items())
        if len([p for p in paths if not p.startswith("commands/")]) > 1
    ]
    unexplained = [line for line in shared if line.split(":")[0] not in SAME_JOB]
    assert not unexplained, (
        "modules that share a file name: rename one, or add the name to SAME_JOB with the job they share:\n"
        + "\n".join(unexplained)
    )
