"""The release's answer mixes: the builder's constants are what the official file holds, the weighted merge
follows a target mix, and VMR's choice keeps each option set a multiple of 4 with even directions."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from egoworld.benchmarks.vsi_wild.build import vmr
from egoworld.benchmarks.vsi_wild.build.drafts import Draft, weighted_merge
from egoworld.benchmarks.vsi_wild.build.mixes import (
    VMR_MIX,
    VMR_SETS,
    VOC_MIX,
    release_mixes,
    total_variation,
    uniform_ks,
    voc_bin,
)


def test_constants_are_the_release(data_dir: Path) -> None:
    release = release_mixes(data_dir / "vsi-super-wild" / "vsi_super_wild_qa.jsonl")
    assert release["VOC"] == VOC_MIX
    cardinal = sum(release["VMR"][d] for d in VMR_SETS["cardinal"])
    assert abs(cardinal - sum(VMR_MIX[d] for d in VMR_SETS["cardinal"])) < 1e-12
    assert total_variation(release["VMR"], VMR_MIX) < 0.01  # within-set near uniform in the release


def test_bins_and_distances() -> None:
    assert [voc_bin(n) for n in (0, 1, 2, 3, 4, 15, 16, 127, 128, 609)] == [
        "0", "1", "2-3", "2-3", "4-7", "8-15", "16-31", "64-127", "128+", "128+"
    ]  # fmt: skip
    assert total_variation({"a": 1.0}, {"b": 1.0}) == 1.0
    assert total_variation({"a": 0.5, "b": 0.5}, {"a": 0.5, "b": 0.5}) == 0.0
    assert uniform_ks([30 + 30 * (i + 0.5) / 100 for i in range(100)], 30, 60) <= 0.0051
    assert uniform_ks([30.0] * 10, 30, 60) == 1.0


def test_weighted_merge_follows_the_mix_and_fills_when_short() -> None:
    lists = {"a": list(range(100)), "b": list(range(100, 200)), "c": list(range(200, 203))}
    out = weighted_merge(lists, {"a": 0.6, "b": 0.3, "c": 0.1})
    first = Counter("a" if x < 100 else "b" if x < 200 else "c" for x in out[:30])
    assert first == {"a": 18, "b": 9, "c": 3}  # every prefix follows the shares while a stratum lasts
    assert len(out) == 203 and len(set(out)) == 203  # c ran out: a and b take the rest


def _drafts(per_dir: dict[str, int]) -> list[Draft]:
    out = []
    for d, n in per_dir.items():
        kind = "cardinal" if d in VMR_SETS["cardinal"] else "diagonal"
        for k in range(n):
            out.append(
                Draft(id=f"v{k % 3}|VMR|{d}{k}", task="VMR", video=f"v{k % 3}", cluster="w", question="q",
                      correct=d, stratum=d, balance=kind)
            )  # fmt: skip
    return out


def test_vmr_choice_in_the_release_mix() -> None:
    chosen = vmr.choose(_drafts(dict.fromkeys(VMR_MIX, 60)), 160, seed=1)
    got = Counter(d.correct for d in chosen)
    assert {got[d] for d in VMR_SETS["cardinal"]} == {32} and {got[d] for d in VMR_SETS["diagonal"]} == {8}
    for k in range(0, 160, 4):  # whole blocks of one option set, each direction once
        block = chosen[k : k + 4]
        assert len({d.balance for d in block}) == 1 and len({d.correct for d in block}) == 4
    # too few diagonal candidates: fewer questions, in the mix (12 diagonal of 56 = 21.4 %)
    short = vmr.choose(_drafts(dict.fromkeys(VMR_SETS["cardinal"], 60) | dict.fromkeys(VMR_SETS["diagonal"], 3)),
                       160, seed=1)  # fmt: skip
    assert len(short) == 56 and sum(d.balance == "diagonal" for d in short) == 12
    none = vmr.choose(_drafts(dict.fromkeys(VMR_SETS["cardinal"], 60)), 160, seed=1)
    assert len(none) == 160 and {d.balance for d in none} == {
        "cardinal"
    }  # no diagonal at all: said by the mix
