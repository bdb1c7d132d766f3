"""The step figures: one quantity per panel, at one size, named with its unit."""

import json

import pandas as pd
import pytest
from matplotlib.text import Text

from nsightflow.plot.curves import coincident
from nsightflow.plot.figures import family_figures, read_findings
from nsightflow.plot.step_detail import step_figure
from nsightflow.plot.steps import step_changes_figure
from nsightflow.plot.svg import tipped_figure

BARRIER = "(smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio)"
BARRIER_METRIC = f"{BARRIER} x smsp__inst_executed.sum"


def _two_variants() -> tuple[pd.DataFrame, dict]:
    frame = pd.DataFrame(
        {
            "variant": ["v0_a", "v0_a", "v1_b", "v1_b"],
            "size": [1024, 4096] * 2,
            "status": ["ok"] * 4,
            "profiled": [False, True, False, True],
            "time_median_us": [10.0, 100.0, 8.0, 50.0],
            "inst_executed": [None, 4.0e6, None, 1.0e6],
            "smem_conflict_share": [None, 0.0, None, 0.3],
            "dram_bytes": [None, 1.0e8, None, 1.0e8],
        }
    )
    ctx = {
        "family": {"title": "T", "name": "t"},
        "ceilings": {},
        "variants": [
            {"name": "v0_a", "improves_on": None},
            {"name": "v1_b", "improves_on": "v0_a"},
        ],
    }
    return frame, ctx


def _finding(metric: str, before: float, after: float, size: int = 4096, **more):
    row = {
        "variant": "v1_b",
        "size": size,
        "section": "step",
        "rule": "barrier",
        "role": "primary",
        "metric": metric,
        "before": before,
        "after": after,
    }
    return {**row, **more}


def test_step_changes_name_the_primary_cause_row_and_outline_its_cell():
    frame, ctx = _two_variants()
    findings = pd.DataFrame([_finding(BARRIER_METRIC, 2.0, 0.5)])
    stalls = pd.DataFrame(
        {
            "variant": ["v0_a", "v1_b"],
            "size": [4096, 4096],
            "reason": ["barrier", "barrier"],
            "cycles": [2.0, 0.5],
        }
    )
    fig = step_changes_figure(frame, ctx, findings, stalls)
    ax = fig.axes[0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    assert rows == [
        "time",
        "issued warp instructions",
        "DRAM bytes",
        "smem ld/st conflict share",
        "barrier stalls / instruction",
    ]
    cells = {t.get_text() for t in ax.texts}
    assert {"0.5x", "0.25x", "1x", "0 → 0.3"} <= cells
    outlined = [p for p in ax.patches if not p.get_fill()]
    assert len(outlined) == 1 and outlined[0].get_y() == pytest.approx(4 - 0.46)
    caption = " ".join(fig.axes[1].get_xlabel().split())  # wrapped to the colour bar
    assert "outlined: the step's primary cause" in caption


def test_step_changes_promise_no_outline_where_none_is_drawn():
    frame, ctx = _two_variants()
    fig = step_changes_figure(frame, ctx)
    assert not [p for p in fig.axes[0].patches if not p.get_fill()]
    assert "outlined" not in fig.axes[1].get_xlabel()


def test_step_figure_draws_the_primary_cause_at_one_size_with_its_quantity():
    frame, ctx = _two_variants()
    findings = pd.DataFrame(
        [
            _finding("smsp__inst_executed.sum", 4.0e6, 1.0e6, rule="x"),
            _finding(BARRIER_METRIC, 3.0, 1.0, size=1024),  # a smaller size
        ]
    )
    ax = step_figure(frame, ctx, "v1_b", findings).axes[1]
    # the title names the cause and the metric its bars plot
    assert " ".join(ax.get_title().split()) == (
        "primary cause at n = 4096: x, plotted: issued warp instructions (0.25x)"
    )
    assert ax.get_ylabel() == "issued warp instructions"
    assert [p.get_height() for p in ax.patches] == [4.0e6, 1.0e6]
    assert [t.get_text() for t in ax.texts] == ["4M", "1M"]  # each bar says its value
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["v0 (before)", "v1 (after)"]


def test_a_bar_of_zero_still_reads_as_before_or_after():
    frame, ctx = _two_variants()
    findings = pd.DataFrame([_finding(BARRIER_METRIC, 2.0, 0.0)])
    ax = step_figure(frame, ctx, "v1_b", findings).axes[1]
    assert [t.get_text() for t in ax.texts] == ["2 cycles", "0 cycles"]
    assert "(→ 0)" in ax.get_title()
    assert ax.get_ylabel() == "barrier stall cycles per issued instruction"


def test_step_figure_without_a_primary_cause_shows_the_speedup():
    frame, ctx = _two_variants()
    ax = step_figure(frame, ctx, "v1_b").axes[1]
    assert "no primary cause" in ax.get_title()
    assert sorted(p.get_height() for p in ax.patches) == [1.25, 2.0]


def test_sgemm_v5_panel_plots_the_cause_it_names_at_the_size_it_states(analyses):
    """At n = 4096 the primary cause of v4 -> v5 is the shared pipe (MIO): the bars
    are v4's and v5's mio_throttle + short_scoreboard cycles per instruction (as
    stalls.csv holds them), never an occupancy label over them."""
    folder = analyses["sgemm"]
    analysis = pd.read_csv(folder / "analysis.csv")
    stalls = pd.read_csv(folder / "stalls.csv")
    ctx = json.loads((folder / "context.json").read_text())
    fig = step_figure(analysis, ctx, "v5_regblock2d", read_findings(folder))
    ax = fig.axes[1]
    title, label = (" ".join(t.split()) for t in (ax.get_title(), ax.get_ylabel()))
    assert title.startswith("primary cause at n = 4096: Shared-memory pipe")
    assert (
        label == "mio_throttle + short_scoreboard stall cycles per issued instruction"
    )
    at = stalls[
        (stalls["size"] == 4096)
        & stalls["reason"].isin(["mio_throttle", "short_scoreboard"])
    ]
    expected = [
        at[at["variant"] == v]["cycles"].sum()
        for v in ("v4_regblock1d", "v5_regblock2d")
    ]
    assert [p.get_height() for p in ax.patches] == pytest.approx(expected, rel=1e-6)


def test_metric_names_keep_their_underscores(analyses):
    folder = analyses["sgemm"]
    figures = family_figures(
        pd.read_csv(folder / "analysis.csv"),
        pd.read_csv(folder / "stalls.csv"),
        json.loads((folder / "context.json").read_text()),
        read_findings(folder),
    )
    texts = [t.get_text() for fig in figures.values() for t in fig.findobj(Text)]
    assert not [t for t in texts if "sm  warps" in t or "gpu  time" in t]
    assert any("mio_throttle + short_scoreboard" in t for t in texts)


def test_names_with_tex_in_them_stay_text():
    frame, ctx = _two_variants()
    frame = frame.replace("v1_b", "v1_$b$")
    ctx["variants"][1]["name"] = "v1_$b$"
    fig = step_figure(frame, ctx, "v1_$b$")
    texts = [t for t in fig.findobj(Text) if "$" in t.get_text()]
    assert texts and not any(t.get_parse_math() for t in texts)


def test_curves_that_coincide_are_found_where_they_hide_each_other():
    rows = pd.DataFrame(
        {
            "variant": ["a"] * 3 + ["b"] * 3 + ["c"] * 3,
            "size": [1, 2, 4] * 3,
            "t": [10.0, 20.0, 40.0, 10.1, 20.1, 40.2, 20.0, 40.0, 80.0],
        }
    )
    fig = tipped_figure(4, 3)
    ax = fig.subplots()
    ax.set_yscale("log")
    ax.set_ylim(5, 100)
    assert coincident(rows, "t", ["a", "b", "c"], ax) == {"b": "a"}


def test_coinciding_curves_are_dashed_and_named_in_the_legend(analyses):
    folder = analyses["histogram"]
    ctx = json.loads((folder / "context.json").read_text())
    fig = step_figure(pd.read_csv(folder / "analysis.csv"), ctx, "v2_replicated", None)
    legend = [t.get_text() for t in fig.legends[0].texts]
    assert "v2_replicated (dashed) lies on v1_private" in legend
    dashed = [line for line in fig.axes[0].lines if line.get_linestyle() == "--"]
    assert len(dashed) == 1


def test_a_curve_coinciding_in_one_panel_only_is_said_to_there(analyses):
    """Reduction v2 and v3 touch on the time axis (spanning 6 to 205 us), within 3% at
    every size (23.65 against 23.10 us at n = 2^24), not in GB/s: the
    note names the panel; v0 and v1 coincide in both (54.4 / 53.2 us at 2^24)."""
    folder = analyses["reduction"]
    frame = pd.read_csv(folder / "analysis.csv")
    t = frame.pivot_table(index="size", columns="variant", values="time_median_us")
    assert ((t["v3_vec4"] / t["v2_shuffle"] - 1).abs() < 0.03).all()
    fig = family_figures(
        frame,
        pd.read_csv(folder / "stalls.csv"),
        json.loads((folder / "context.json").read_text()),
    )["perf_vs_size"]
    notes = [t.get_text() for t in fig.legends[0].texts if "lies on" in t.get_text()]
    assert "v1_sequential (dashed) lies on v0_interleaved" in notes
    assert "v3_vec4 (dashed) lies on v2_shuffle in time" in notes


def test_step_changes_scale_reaches_the_largest_ratio_and_outlines_only_causes():
    frame, ctx = _two_variants()
    frame.loc[frame["variant"] == "v1_b", "inst_executed"] = 4.0e6 * 2053  # 2,053x
    # a step without a measurable change names no cause: nothing is outlined
    findings = pd.DataFrame(
        [_finding("time_median_us", 100.0, 99.0, rule="step_unchanged")]
    )
    fig = step_changes_figure(frame, ctx, findings)
    ax = fig.axes[0]
    assert not [p for p in ax.patches if not p.get_fill()]
    bar = fig.axes[-1]
    ticks = [t.get_text() for t in bar.get_xticklabels()]
    # 2,053x is 2^11.004: the scale reaches 2^12, not the 8x it started at
    assert ticks[-1] == "4096x" and ticks[0] == "1/4096x"
    assert "2,053x" in {t.get_text() for t in ax.texts}


def test_a_step_without_measurable_change_says_so_over_its_bars():
    frame, ctx = _two_variants()
    findings = pd.DataFrame(
        [_finding("time_median_us", 100.0, 98.5, rule="step_unchanged", threshold=2.0)]
    )
    title = " ".join(
        step_figure(frame, ctx, "v1_b", findings).axes[1].get_title().split()
    )
    assert title.startswith("no measurable change at n = 4096")
    assert "within 2.0%" in title
