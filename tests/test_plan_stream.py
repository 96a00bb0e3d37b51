"""The streamed plan: `iter_items` yields exactly `plan_items`' items (a run no longer holds them all), and
`count_items` counts them without making them."""

from __future__ import annotations

from benchmarks_factory import balanced_mc_bench
from egoworld.core.plan import count_items, has_dependencies, iter_items, plan_items


def test_streamed_items_are_the_plan_and_are_counted(tmp_path):
    bench = balanced_mc_bench(tmp_path / "b", n_mc=9, n_int=4)
    for mode, epochs in (("shuffle24", 1), ("none", 2), ("3", 3)):
        listed = plan_items(bench.samples, mode, 7, epochs, "none")
        streamed = iter_items(bench.samples, mode, 7, epochs, "none")
        assert iter(streamed) is streamed  # a generator, not a list
        assert [it.id for it in streamed] == [it.id for it in listed]
        assert count_items(bench.samples, mode, 7, epochs) == len(listed)
    assert len(plan_items(bench.samples, "shuffle24", 0, 1, "none")) == 9 * 24 + 4
    assert not has_dependencies(bench.samples, "pred")  # no trajectories: a pred history still streams
