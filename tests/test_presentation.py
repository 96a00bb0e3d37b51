"""Presentation helpers: one colour per model across a report's plots (`egoworld.render.palette`) and builds
named by what they are (`egoworld.render.build_names`), plus value cells that keep to one line."""

from __future__ import annotations

from egoworld.render.build_names import build_detail, build_kind, build_title
from egoworld.render.html import number_html, table_html
from egoworld.render.palette import COLOURS, model_colours, report_palette, run_styles


def test_model_colours_follow_run_order_and_repeat_no_colour_within_ten() -> None:
    got = model_colours(["qwen", "oracle", "qwen", "random"])
    assert list(got) == ["qwen", "oracle", "random"]
    assert got == {"qwen": COLOURS[0], "oracle": COLOURS[1], "random": COLOURS[2]}
    assert model_colours(["qwen", "oracle", "random"]) == got  # same inputs, same map
    assert len(set(model_colours(f"m{i}" for i in range(10)).values())) == 10


def test_run_styles_use_the_report_palette_in_every_section() -> None:
    with report_palette(["qwen", "oracle", "random"]) as colours:
        # a section with a subset of the models, in another order: the report's colours, not fresh ones
        styles = run_styles(["random", "qwen", "qwen", "new"])
        assert [s.colour for s in styles[:3]] == [colours["random"], colours["qwen"], colours["qwen"]]
        assert [s.variant for s in styles] == [0, 0, 1, 0]  # a second run of a model: hatch / line style
        assert styles[2].hatch and styles[2].linestyle != styles[1].linestyle
        assert styles[3].colour == COLOURS[3]  # a model the report lacks: the next unused colour
    assert run_styles(["random", "qwen"])[0].colour == COLOURS[0]  # outside a report: in the plot's order


def test_build_kind_reads_the_manifest() -> None:
    assert build_kind({"importer": "vsi-wild-qa", "videos_dir": "videos"}, {"file": "q.jsonl"}) == (
        "official release"
    )
    assert build_kind({"importer": "beyond3d-qa"}, {}) == "official release"
    assert build_kind({"importer": "lmms-eval", "task": "oos_videoqa"}, {}) == (
        "official release (lmms-eval log)"
    )
    sim = {"generator": "x", "worlds": [{"episode": "w0", "loader": "egoworld.sim.walk"}]}
    assert build_kind({"builder": "vsi-wild"}, sim) == "synthetic"
    kitchens = {"episodes": [{"id": "P01", "loader": "hd-epic"}, {"id": "P02", "loader": "hd-epic"}]}
    assert build_kind({"builder": "beyond3d"}, kitchens) == "built from HD-EPIC"
    mixed = {
        "episodes": [
            {"id": "a", "loader": "egoworld.perception"},
            {"id": "b", "loader": "egoworld.sim.kitchen"},
        ]
    }
    assert build_kind({"builder": "beyond3d"}, mixed) == "perceived from video + synthetic"
    assert build_kind({"builder": "explore-epic"}, {"file": "x"}) == "built from EPIC-KITCHENS-100"
    assert build_kind({"builder": "vsi-wild"}, {"worlds": [{"episode": "w0"}]}) == "built by egoworld"
    assert build_kind({}, {}) == "unknown origin"


def test_build_title_and_detail() -> None:
    assert build_title("vsi_wild", {"importer": "vsi-wild-qa"}, {}) == "VSI-Super-Wild — official release"
    assert build_title("explore", {"builder": "explore-world"}, {}) == "EXPLORE-Bench — built by egoworld"
    assert build_title("toy", {}, {}) == "toy — unknown origin"  # no plug-in title: the name
    assert build_detail("46c49c56" + "0" * 56, "bench") == "build 46c49c56 · folder bench"


def test_value_cells_put_the_spread_on_a_second_line() -> None:
    assert number_html("100.0 ± 0.0") == "100.0<br><span class=ci>± 0.0</span>"
    assert number_html("35.7 [30.1, 41.0]") == "35.7<br><span class=ci>[30.1, 41.0]</span>"
    assert number_html("12.5") == "12.5"
    html = table_html([["Model", "A", "Δ"], ["m <b>", "-3.2 ± 1.0", "—"]])
    assert '<td class="num">-3.2<br><span class=ci>± 1.0</span></td>' in html  # signed values are numbers
    assert "<td>m &lt;b&gt;</td>" in html
