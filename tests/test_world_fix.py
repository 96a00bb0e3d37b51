"""Rollback from review to metadata: a rejection sent to `egoworld view`'s real HTTP review endpoint names a
world field from the question's provenance (an appearance interval, with its corrected value) →
`egoworld world fix` → rebuild → the gold of exactly the questions whose facts changed flips, every other
question keeps its gold, and the manifest records the review. Causes without a value, a corrected count and
entries that disagree are listed as needing a human (exit 3); a malformed log entry is named by its row."""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from egoworld.benchmarks.vsi_wild.build.builder import build_vsi_wild
from egoworld.benchmarks.vsi_wild.build.config import BuildConfig
from egoworld.cli import app
from egoworld.core.folders.bench_folder import Benchmark, load_benchmark
from egoworld.core.folders.hashing import sha256_file
from egoworld.sim.walk.synth import WalkConfig, synth_walk
from egoworld.world.fields import provenance_of
from view_helpers import start_view, stop

STREAM = BuildConfig(seed=0, per_task=None, streaming=True)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fixwalk") / "walks"
    cfg = WalkConfig(minutes=3, fps=0.5, pano_width=128, view_size=32, min_pixels=3)
    synth_walk(root / "walk_a", "walk_a", 0, cfg)
    return root


@pytest.fixture(scope="module")
def bench(world: Path, tmp_path_factory: pytest.TempPathFactory) -> Benchmark:
    return build_vsi_wild([world], tmp_path_factory.mktemp("fixbench") / "bench", STREAM).bench


def _post(base: str, bench_id: str, sample_id: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(
        f"{base}/review/{bench_id}/{quote(sample_id, safe='')}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _review(bench: Benchmark, name: str, decisions: list[tuple[str, dict]]) -> Path:
    """Send ``decisions`` (sample id, request body) to a running `egoworld view --review NAME`."""
    proc, url = start_view([str(bench.root), "--review", name])
    try:
        base, bench_id = url.split("/b/")[0], url.split("/b/")[1].split("/")[0]
        for sid, body in decisions:
            status, data = _post(base, bench_id, sid, body)
            assert status == 200, data
            assert data["state"]["decision"] == body["decision"]
        status, data = _post(
            base, bench_id, decisions[0][0], {"decision": "reject", "causes": [{"index": 999}]}
        )
        assert status == 400 and "not one of the" in data["error"]  # only the question's own fields
    finally:
        stop(proc)
    return bench.root / "reviews" / f"{name}.sqlite"


def _pick(bench: Benchmark) -> tuple[str, int, dict, float]:
    """A streaming question, the position of an appearance in its provenance that it counts, that
    appearance, and a later start that drops it from this query's running count but not the last one's."""
    for s in bench.samples:
        t = s.metadata["query_time_s"]
        later = [
            x.metadata["query_time_s"]
            for x in bench.samples
            if x.metadata["stream_group"] == s.metadata["stream_group"]
        ]
        nxt = [q for q in later if q > t]
        if not nxt:
            continue
        for k, r in enumerate(provenance_of(s.metadata)):
            if r.kind == "appearance" and r.value[0][0] <= t and r.value[-1][1] < nxt[0]:
                return s.id, k, r.model_dump(), (t + nxt[0]) / 2
    raise AssertionError("no streaming question with a movable appearance")


def _gold(bench: Benchmark) -> dict[str, object]:
    return {s.id: s.answer for s in bench.samples}


def test_rollback_flips_the_gold_of_dependent_questions(
    world: Path, bench: Benchmark, tmp_path: Path
) -> None:
    sid, k, ref, new_start = _pick(bench)
    new = [[new_start, new_start + 2.0]]
    log = _review(
        bench,
        "ana",
        [
            (
                sid,
                {
                    "decision": "reject",
                    "reason": "seen later",
                    "causes": [{"index": k, "value": json.dumps(new)}],
                },
            )
        ],
    )
    with sqlite3.connect(log) as db:
        assert db.execute("SELECT COUNT(*) FROM causes").fetchone()[0] == 1
    before = (world / "walk_a" / "appearances.jsonl").read_bytes()
    fixed = tmp_path / "walks-fixed"
    res = CliRunner().invoke(app, ["world", "fix", str(world), "--review", str(log), "--out", str(fixed)])
    assert res.exit_code == 0, res.output
    assert "1 fixes applied to 1 episodes" in res.output and "0 need a human" in res.output
    assert (world / "walk_a" / "appearances.jsonl").read_bytes() == before  # the source world is untouched
    rows = [json.loads(x) for x in (fixed / "walk_a" / "appearances.jsonl").read_text().splitlines()]
    (row,) = [r for r in rows if r["object"] == ref["id"] and r["view"] == ref["view"]]
    assert row["intervals"] == new and row["first_s"] == new_start

    out = tmp_path / "bench2"
    res = CliRunner().invoke(
        app,
        [
            "build",
            "vsi-wild",
            "--world",
            str(fixed),
            "--out",
            str(out),
            "--streaming",
            "--questions-per-task",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output
    rebuilt = load_benchmark(out)
    old, got = _gold(bench), _gold(rebuilt)
    assert set(old) == set(got)
    flipped = {i for i in old if old[i] != got[i]}
    by_id = {s.id: s for s in bench.samples}
    expected = set()
    for s in bench.samples:
        t = s.metadata["query_time_s"]
        keys = {(r.kind, r.view, r.id) for r in provenance_of(s.metadata)}
        if ("appearance", ref["view"], ref["id"]) in keys and ref["value"][0][0] <= t < new_start:
            expected.add(s.id)
    assert sid in flipped and flipped == expected  # only the questions whose running count lost it
    assert all(got[i] == old[i] - 1 for i in flipped)
    assert all(by_id[i].metadata["category"] == by_id[sid].metadata["category"] for i in flipped)
    (entry,) = rebuilt.manifest.source["worlds"]
    (record,) = entry["reviews"]
    assert record["sha256"] == sha256_file(log) and record["benchmark_hash"] == bench.hash
    assert len(record["entries"]) == 1 and "entry #1" in record["entries"][0]

    res = CliRunner().invoke(app, ["world", "fix", str(fixed), "--review", str(log)])  # again, in place
    assert res.exit_code == 0 and "0 fixes applied" in res.output and "1 already so" in res.output


def test_causes_without_values_need_a_human(world: Path, bench: Benchmark, tmp_path: Path) -> None:
    voc = [s for s in bench.samples if provenance_of(s.metadata)[0].kind == "count"]
    a, b = voc[0], voc[5]
    n = provenance_of(a.metadata)[0].value
    log = _review(
        bench,
        "ben",
        [
            (a.id, {"decision": "reject", "causes": [{"index": 0, "value": str(n + 1)}]}),  # a count: derived
            (b.id, {"decision": "reject", "causes": [{"index": 1, "value": ""}]}),  # no corrected value
            (voc[6].id, {"decision": "accept"}),
        ],
    )
    res = CliRunner().invoke(
        app, ["world", "fix", str(world), "--review", str(log), "--out", str(tmp_path / "w2")]
    )
    assert res.exit_code == 3, res.output
    assert "2 need a human" in res.output and "a count is derived" in res.output
    assert "no corrected value given" in res.output and f"sample {b.id}" in res.output

    with sqlite3.connect(log) as db:  # a hand-edited log: the entry is named by its row
        db.execute('UPDATE causes SET ref = \'{"kind": "colour"}\' WHERE id = 2')
    res = CliRunner().invoke(
        app, ["world", "fix", str(world), "--review", str(log), "--out", str(tmp_path / "w3")]
    )
    assert res.exit_code == 2 and "entry #2 (decision #2" in res.output and "kind" in res.output
    assert not (tmp_path / "w3").exists()  # checked before anything is written


@pytest.mark.slow
def test_cause_picker_in_chromium(bench: Benchmark) -> None:
    """The review page lists the question's world fields; a ticked one and its value go into the log."""
    playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install 'egoworld[browser-test]'")
    from view_helpers import CHROMIUM_ARGS, chromium_path

    exe = chromium_path()
    if exe is None:
        pytest.fail("chromium not found: `apt-get install -y chromium` (make test installs it)")
    sid, k, ref, new_start = _pick(bench)
    proc, url = start_view([str(bench.root), "--review", "cleo"])
    try:
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            page = browser.new_page()
            base, bench_id = url.split("/b/")[0], url.split("/b/")[1].split("/")[0]
            page.goto(f"{base}/b/{bench_id}/s/{quote(sid, safe='')}")
            page.click("[data-testid=cause-picker] summary")
            n = len(provenance_of(next(s for s in bench.samples if s.id == sid).metadata))
            assert page.locator("input.cause").count() == n
            assert ref["id"] in page.inner_text("[data-testid=cause-picker]")
            page.check(f"input.cause[data-index='{k}']")
            page.fill(f"input.cause-value[data-index='{k}']", f"[[{new_start}, {new_start + 2.0}]]")
            page.click("button[data-decision=reject]")
            page.wait_for_function(
                "document.querySelector('[data-testid=review-state]').textContent == 'reject'"
            )
            page.reload()
            page.click("section.review details:not(.causes) summary")
            assert f"{ref['id']} intervals → [[{new_start}, {new_start + 2.0}]]" in page.inner_text(
                "[data-testid=cause]"
            )
            browser.close()
    finally:
        stop(proc)
    with sqlite3.connect(bench.root / "reviews" / "cleo.sqlite") as db:
        (row,) = db.execute("SELECT ref, value FROM causes").fetchall()
    assert json.loads(row[0]) == {k2: v for k2, v in ref.items() if v is not None}
    assert json.loads(row[1]) == [[new_start, new_start + 2.0]]


def test_object_and_fixture_fields_are_fixed_and_revalidated(tmp_path: Path) -> None:
    """The dotted-path kinds (Beyond3D's provenance): an object's movement end and a fixture's box centre,
    revalidated with the whole episode; a pose flag lands in the episode's meta."""
    from egoworld.world.episode import EpisodeMedia
    from egoworld.world.episode_folder import load_episode, save_episode
    from egoworld.world.fields import FieldRef, Fix
    from egoworld.world.fix import apply_fixes
    from test_beyond3d_tracks import hand_made_episode

    save_episode(hand_made_episode(EpisodeMedia()), tmp_path / "w" / "hand")

    def fix(kind: str, id: str, field: str, old: object, new: object, **kw: object) -> Fix:
        r = FieldRef(kind=kind, episode="hand", id=id, field=field, value=old, **kw)  # type: ignore[arg-type]
        return Fix(ref=r, value=new, has_value=True, entry=f"test {field}")

    fixes = [
        fix("object", "a", "movements.0.end_fixture", "K_counter.001", "K_cupboard.001"),
        fix("fixture", "K_panel.001", "box.center", [-0.35, 1.025, 1.2], [-0.35, 1.1, 1.2]),
        fix("pose", "20", "flagged", False, True, span=(18.0, 22.0)),
    ]
    rep = apply_fixes(tmp_path / "w", fixes, out=tmp_path / "w2", review={"file": "r.sqlite", "sha256": "x"})
    assert len(rep.applied) == 3 and not rep.needs_human and rep.episodes == ["hand"]
    ep = load_episode(tmp_path / "w2" / "hand")
    assert ep.objects[0].movements[0].end_fixture == "K_cupboard.001"
    assert ep.fixtures[2].box.center[1] == pytest.approx(1.1)
    assert ep.meta["pose_flags"] == [{"start_s": 18.0, "end_s": 22.0}]
    assert ep.source["reviews"][0]["entries"] == [
        "test box.center",
        "test flagged",
        "test movements.0.end_fixture",
    ]
    assert load_episode(tmp_path / "w" / "hand").objects[0].movements[0].end_fixture == "K_counter.001"
    with pytest.raises(ValueError, match="does not fit the episode"):  # an unknown fixture id
        apply_fixes(
            tmp_path / "w", [fix("object", "a", "movements.0.end_fixture", "K_counter.001", "K_nope")]
        )
    stale = fix("object", "a", "movements.0.end_s", 11.0, 13.0)  # the world holds 12.0, not the reviewed 11.0
    rep = apply_fixes(tmp_path / "w", [stale], out=tmp_path / "w3")
    assert not rep.applied and "the world changed since" in rep.needs_human[0][1]


def test_pose_flag_removes_the_vmr_moments_it_covers(world: Path, tmp_path: Path) -> None:
    from egoworld.world.fields import Fix
    from egoworld.world.fix import apply_fixes

    cfg = BuildConfig(seed=0, per_task=None, tasks=("VMR",))
    before = build_vsi_wild([world], tmp_path / "b1", cfg).bench
    s = before.samples[len(before.samples) // 2]
    (r,) = provenance_of(s.metadata)
    assert r.kind == "pose" and r.span is not None and r.span[0] < s.metadata["moment_s"] < r.span[1]
    rep = apply_fixes(world, [Fix(ref=r, value=True, has_value=True, entry="t")], out=tmp_path / "w")
    assert len(rep.applied) == 1
    after = build_vsi_wild([tmp_path / "w"], tmp_path / "b2", cfg).bench
    a, b = r.span
    assert s.id not in {x.id for x in after.samples} and 0 < len(after.samples) < len(before.samples)
    for x in after.samples:  # no kept moment's window meets the flagged span
        (p,) = provenance_of(x.metadata)
        assert p.span is not None and (p.span[1] < a or p.span[0] > b)


def test_removed_appearance_lowers_only_its_count(world: Path, tmp_path: Path) -> None:
    """VOC: an appearance corrected to ``[]`` (the object is not in that view) lowers its category's count
    there by one; every other VOC question keeps its gold."""
    from egoworld.world.fields import Fix
    from egoworld.world.fix import apply_fixes

    cfg = BuildConfig(seed=0, per_task=None, tasks=("VOC",))
    before = build_vsi_wild([world], tmp_path / "b1", cfg).bench
    s = next(x for x in before.samples if x.answer >= 2)
    r = next(p for p in provenance_of(s.metadata) if p.kind == "appearance")
    apply_fixes(world, [Fix(ref=r, value=[], has_value=True, entry="t")], out=tmp_path / "w")
    after = {x.id: x.answer for x in build_vsi_wild([tmp_path / "w"], tmp_path / "b2", cfg).bench.samples}
    assert {x.id: x.answer for x in before.samples} == after | {s.id: s.answer}
    assert after[s.id] == s.answer - 1


@pytest.mark.slow
def _single_instance_categories(world: Path) -> set[tuple[str, str]]:
    """(view, category) pairs with exactly one appearance row in the world's walk."""
    counts: Counter[tuple[str, str]] = Counter()
    for path in sorted(world.rglob("appearances.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            counts[(row["view"], row["category"])] += 1
    return {k for k, n in counts.items() if n == 1}


def test_later_first_appearance_reorders_voo(world: Path, tmp_path: Path) -> None:
    """VOO (every candidate kept, so the question set is not resampled): the first appearance of a question's
    earliest category (its only instance in that view) moved between its second and third events (seen for
    at least one 128-frame gap, so the set still passes the gap rule) → that question's gold order changes, and
    exactly the questions whose provenance holds that appearance change."""
    from egoworld.benchmarks.vsi_wild.build.config import VOORules
    from egoworld.world.fields import Fix
    from egoworld.world.fix import apply_fixes

    cfg = BuildConfig(
        seed=0, per_task=None, tasks=("VOO",), voo=VOORules(max_per_video=10**6, equal_kinds=False)
    )
    before = build_vsi_wild([world], tmp_path / "b1", cfg).bench
    single = _single_instance_categories(world)
    for s in before.samples:
        t, r = s.metadata["times_s"], provenance_of(s.metadata)[0]
        mid = float(round((t[1] + t[2]) / 4) * 2)  # a frame time (0.5 fps) between the 2nd and 3rd events
        gap = 2.0 * s.metadata["duration_s"] / 127  # VOO's gap rule at 128 frames: the set stays a question
        if (
            s.metadata["order_by"] == "first"
            and (s.metadata["view"], s.metadata["objects"][0]) in single  # no other instance sets the event
            and t[1] + gap <= mid <= t[2] - gap
        ):
            break
    else:
        raise AssertionError("no VOO question to reorder")
    apply_fixes(
        world,
        [Fix(ref=r, value=[[mid, max(r.value[-1][1], mid + gap)]], has_value=True, entry="t")],
        out=tmp_path / "w",
    )
    after = build_vsi_wild([tmp_path / "w"], tmp_path / "b2", cfg).bench
    old = {x.id: x.choices[x.answer] for x in before.samples}  # type: ignore[index]
    new = {x.id: x.choices[x.answer] for x in after.samples}  # type: ignore[index]
    objs = s.metadata["objects"]
    assert new[s.id] == " → ".join([objs[1], objs[0], *objs[2:]])  # the moved category is now second
    depends = {  # before or after the fix (a new question may hold the moved appearance)
        x.id
        for x in (*before.samples, *after.samples)
        if any(p.key() == r.key() for p in provenance_of(x.metadata))
    }
    flipped = {i for i in set(old) & set(new) if old[i] != new[i]}
    assert s.id in flipped and flipped <= depends
    both = set(old) & set(new)
    assert {i: old[i] for i in both if i not in depends} == {i: new[i] for i in both if i not in depends}
    gone = {i for i in old if i not in new and i not in depends}  # only the letter blocks' tail of 4 moves
    assert all(sum(f"|{k}|" in i for i in gone) < 4 for k in ("first", "last")), gone
