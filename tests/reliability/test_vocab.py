"""Class 8: one vocabulary — one meaning per flag, no hidden earlier spellings, an example at the end of
every ``--help``, pasteable serving commands, ``--model-arg a=1 b=2``, and a demo that finds its data."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from faults import REPO, assert_fails_cleanly, cli, tiny_bench

sys.path.insert(0, str(REPO / "tests"))
from openai_test_server import FakeOpenAIServer  # noqa: E402


def _commands() -> list[list[str]]:
    import typer

    from egoworld.cli import app

    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in sorted(cmd.commands.items()):
                yield from walk(sub, [*path, name])
        else:
            yield path

    return list(walk(typer.main.get_command(app), []))


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    """Every command's --help, by command path."""
    out = {}
    for path in _commands():
        r = cli(*path, "--help")
        assert r.code == 0, r.output
        out[" ".join(path)] = r.output
    return out


def test_every_command_help_ends_with_an_example(helps):
    assert len(helps) >= 25
    missing = []
    for name, text in helps.items():
        path = name.split()
        lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
        if lines[-2:-1] != ["Example:"] or not lines[-1].startswith("egoworld " + " ".join(path)):
            missing.append(" ".join(path))
    assert not missing, f"commands whose --help does not end with an example: {missing}"


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        (["world", "import", "hd-epic"], "--videos-dir", "--videos"),
        (["world", "import", "hd-epic"], "--video ", "--video-id"),
        (["world", "import", "epic-kitchens"], "--video ", "--video-id"),
        (["build", "vsi-wild"], "--per-task", "--questions-per-task"),
        (["vsi-wild", "demo"], "--per-task", "--questions-per-task"),
    ],
)
def test_renamed_flags_show_the_new_name_and_hide_the_old(helps, path, old, new):
    out = helps[" ".join(path)]
    assert new in out and old not in out.replace(new, ""), out


def test_same_flag_same_meaning_across_commands(helps):
    """--videos is a folder of videos, --per-task selects questions, --minutes is a length in minutes."""
    for name, text in helps.items():
        flat = " ".join(text.split())
        for flag, meaning in (
            ("--videos ", "Folder"),
            ("--minutes ", "minute"),
            ("--api-key-env ", "API key"),
        ):
            m = re.search(re.escape(flag) + r"<[^>]+>\s+(.{0,80})", flat)
            if m:
                assert meaning.lower() in m.group(1).lower(), (name, flag, m.group(1))
    assert "--per-task" in helps["run"] and "--per-task" not in helps["build vsi-wild"]
    for cmd in ("run", "doctor"):
        assert "--api-key-env" in helps[cmd], cmd


def test_earlier_spellings_are_gone(tmp_path, data_dir):
    """0.1.0 dropped the earlier hidden spellings: --video / --videos-dir of the importers, --per-task of the
    VSI-Super-Wild builds."""
    r = cli("world", "import", "hd-epic", data_dir / "hd-epic", "--out", tmp_path / "a", "--video", "P01")
    assert_fails_cleanly(r, 2, "No such option: --video")
    r = cli("build", "vsi-wild", "--world", tmp_path, "--out", tmp_path / "b", "--per-task", "3")
    assert_fails_cleanly(r, 2, "No such option: --per-task")


def _params() -> dict[str, list]:
    """Every command's click parameters, by command path."""
    import typer

    from egoworld.cli import app

    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in sorted(cmd.commands.items()):
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path), cmd.params

    return dict(walk(typer.main.get_command(app), []))


#: a help text that says its value is a benchmark folder / a run folder ("A built Beyond3D benchmark folder")
FOLDER_KINDS = {
    "--bench": ("benchmark folder", re.compile(r"^\W*(an? |the )?([\w-]+ ){0,2}benchmark folder", re.I)),
    "--run": ("run folder", re.compile(r"^\W*(an? |the )?([\w-]+ ){0,2}run folder", re.I)),
}


def test_one_spelling_per_folder_kind():
    """A benchmark folder is always --bench DIR and a run folder always --run DIR, in every command (what a
    command writes is --out); no visible positional argument or other option takes one."""
    wrong = []
    for name, params in _params().items():
        for p in params:
            if getattr(p, "hidden", False):
                continue
            text = " ".join((getattr(p, "help", None) or "").split())
            for flag, (words, describes) in FOLDER_KINDS.items():
                if flag in p.opts and words not in text.lower():
                    wrong.append(f"{name} {flag}: help does not say it is a {words}: {text!r}")
                if describes.match(text) and flag not in p.opts and "--out" not in p.opts:
                    wrong.append(f"{name} {'/'.join(p.opts)}: a {words} passed other than as {flag}")
    assert not wrong, "\n".join(wrong)


def test_folders_are_flags_not_positional(tmp_path, helps):
    bench = tiny_bench(tmp_path / "b")
    for name in ("bench check", "score", "report", "export hf"):  # the usage line shows no positional folder
        assert helps[name].splitlines()[0].endswith(f"{name} [OPTIONS]"), helps[name]
    assert cli("bench", "check", "--bench", bench).code == 0
    run = tmp_path / "r"
    r = cli("run", "--bench", bench, "--model", "oracle", "--out", run, "--no-progress")
    assert r.code == 0, r.output
    assert cli("score", "--run", run).code == 0
    r = cli("report", "--run", run, "--out", tmp_path / "rep")
    assert r.code == 0 and (tmp_path / "rep" / "index.html").is_file(), r.output
    assert_fails_cleanly(cli("score"), 2, "Missing option '--run'")
    assert_fails_cleanly(cli("bench", "check", bench), 2, "Missing option '--bench'")


def test_model_arg_takes_several_pairs(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    forms = {
        "spread": ["--model-arg", "seed=3", "int_range=0-5"],
        "quoted": ["--model-arg", "seed=3 int_range=0-5"],
        "repeated": ["--model-arg", "seed=3", "--model-arg", "int_range=0-5"],
    }
    identities = []
    for name, args in forms.items():
        r = cli(
            "run", "--bench", bench, "--model", "random", "--out", tmp_path / name, "--no-progress", *args
        )
        assert r.code == 0, r.output
        identities.append(json.loads((tmp_path / name / "run.json").read_text())["model"])
    assert identities[0] == identities[1] == identities[2]
    assert identities[0]["int_range"] == [0, 5] or "0" in json.dumps(identities[0])


def test_model_arg_without_equals_names_the_fix(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    r = cli("run", "--bench", bench, "--model", "random", "--out", tmp_path / "r", "--model-arg", "seed")
    assert_fails_cleanly(r, 2, "--model-arg 'seed'", "expected key=value")


def test_model_spec_takes_options_like_the_judge_spec(tmp_path):
    bench = tiny_bench(tmp_path / "b")
    with FakeOpenAIServer(model="fake-vlm-1") as srv:
        r = cli("run", "--bench", bench, "--model", f"openai:fake-vlm-1,base_url={srv.base_url},max_tokens=32",
                "--out", tmp_path / "r", "--no-progress", "--api-key-env", "MY_KEY_VAR")  # fmt: skip
        assert r.code == 0, r.output
        assert srv.bodies and all(b["max_tokens"] == 32 for b in srv.bodies)
        clash = cli("run", "--bench", bench, "--model", f"openai:fake-vlm-1,base_url={srv.base_url}",
                    "--base-url", "http://other:1/v1", "--out", tmp_path / "r2")  # fmt: skip
    assert_fails_cleanly(clash, 2, "base_url given twice")
    cfg = json.loads((tmp_path / "r" / "run.json").read_text())["config"]
    assert cfg["model_args"]["api_key_env"] == "MY_KEY_VAR"


def test_serving_doc_blocks_paste_cleanly():
    text = (REPO / "docs" / "serving.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    assert blocks
    for block in blocks:
        assert not re.search(r"\\[ \t]+\S", block), f"text after a line continuation:\n{block}"
        assert not re.search(r"\\[ \t]+\n", block), f"spaces after a line continuation:\n{block}"
        proc = subprocess.run(["bash", "-n"], input=block, text=True, capture_output=True)
        assert proc.returncode == 0, proc.stderr


def test_demo_finds_its_data_from_any_folder(tmp_path, monkeypatch):
    from egoworld.demo import QA_FILE, resolve_data

    monkeypatch.delenv("EGOWORLD_DATA", raising=False)
    monkeypatch.chdir(tmp_path)
    shared = REPO.parent / "shared" / "data"
    if not (shared / QA_FILE).is_file():
        pytest.skip("no shared data beside this checkout")
    assert (resolve_data(None) / QA_FILE).is_file()


def test_demo_without_data_says_how_to_fix_it(tmp_path, monkeypatch):
    import egoworld.demo as demo

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(demo, "data_candidates", lambda: [tmp_path / "nowhere"])
    r = cli("demo", "--parts", "vsi-official", "--out", tmp_path / "d")
    assert_fails_cleanly(r, 2, "--data DIR", "EGOWORLD_DATA", "--parts beyond3d,vsi-synthetic,explore")
