"""A quick-space sweep whose tuned point lies off the quick axes, drawn and tabled.

Jacobi-2D v5 on the H200: tuned.yaml holds BLOCK_X 64, BLOCK_Y 8, ROWS 2 (130.3 us at
n = 8192, an earlier full sweep's best), and the quick axes are BLOCK_X [32, 128],
BLOCK_Y [2, 8], ROWS [4, 8]. The recorded quick sweep measured that point too (130.6 us),
and it is again the best, ahead of the grid's best BLOCK_X 128, BLOCK_Y 2, ROWS 4
(130.7 us); the heatmap must show it, boxed, with its time, beside the quick grid.
"""

import numpy as np
import pandas as pd
import pytest
from matplotlib.patches import Rectangle

from nsightflow.analysis.sweep import sweep_tables
from nsightflow.family.registry import load_family
from nsightflow.io import read_json
from nsightflow.plot.sweep import heat_grid, sweep_figure
from quick_sweep import RECORDED, ROOT, quick_record

FAMILY = load_family(ROOT / "kernels" / "jacobi2d")
V5 = "v5_strip_vec4"
TUNED = {"BLOCK_X": 64, "BLOCK_Y": 8, "ROWS": 2}  # kernels/jacobi2d/tuned.yaml
_TIMES = {  # examples/h200/sweep/jacobi2d/v5_strip_vec4.json, n = 8192
    c["id"]: c["times_us"]["8192"]
    for c in read_json(RECORDED / "jacobi2d" / f"{V5}.json")["configs"]
    if c["status"] == "ok"
}
TUNED_US = _TIMES["BLOCK_X64_BLOCK_Y8_ROWS2"]  # 130.56 us
DEFAULT_US = _TIMES["BLOCK_X32_BLOCK_Y8_ROWS8"]  # 132.80 us


@pytest.fixture
def quick(tmp_path):
    record = quick_record("jacobi2d", V5, tmp_path)
    configs, summary = sweep_tables([record], FAMILY)
    return record, configs, summary.iloc[0].to_dict()


def test_the_quick_sweep_holds_the_tuned_point_off_its_axes_and_finds_it_best(quick):
    record, configs, row = quick
    assert record["space"] == "quick"
    assert record["axes"]["BLOCK_X"] == [32, 128] and record["axes"]["ROWS"] == [4, 8]
    assert record["best"]["params"] == TUNED
    assert row["best_us"] == pytest.approx(TUNED_US)
    assert len(configs) == 2 * 2 * 2 + 1  # the quick grid and the tuned point


def _cell_of(ax, rect: Rectangle) -> str:
    """The text drawn at the centre of a boxed cell."""
    cx = rect.get_x() + rect.get_width() / 2
    cy = rect.get_y() + rect.get_height() / 2
    hits = [
        t.get_text()
        for t in ax.texts
        if np.allclose(t.get_position(), (cx, cy), atol=1e-6)
    ]
    assert len(hits) == 1, hits
    return hits[0]


def test_the_heatmap_draws_and_boxes_the_tuned_point_with_its_time(quick):
    _record, configs, row = quick
    fig = sweep_figure(configs, row)
    ax = fig.axes[0]
    boxes = {
        r.get_linestyle(): r
        for r in ax.patches
        if isinstance(r, Rectangle) and not r.get_fill()
    }
    assert _cell_of(ax, boxes["-"]) == f"{TUNED_US:.1f} us"  # best: the tuned point
    if "--" in boxes:  # the default, where the plane goes through it
        assert _cell_of(ax, boxes["--"]) == f"{DEFAULT_US:.1f} us"
    ticks = " ".join(t.get_text() for t in ax.get_yticklabels())
    assert "BLOCK_X 64" in ticks and "ROWS 2" in ticks  # its row names it
    shown = np.ma.filled(ax.images[0].get_array(), np.nan)
    assert np.nanmin(shown) == pytest.approx(TUNED_US)  # on the colour scale


def test_the_quick_grid_is_held_at_its_own_best_not_at_an_off_axis_value(quick):
    _record, configs, _row = quick
    axes = {"BLOCK_X": [32, 128], "BLOCK_Y": [2, 8], "ROWS": [4, 8]}
    times, labels, (x, y) = heat_grid(configs, axes, 8192)
    # the grid's best is BLOCK_X 128, BLOCK_Y 2, ROWS 4 (130.7 us): every cell of the
    # plane through it is a configuration the quick sweep measured
    assert (
        np.isfinite(times).sum()
        + sum(lab in ("regs", "constraint") for r in labels for lab in r)
        == times.size
    )
    grid = configs[configs["config_id"] != "BLOCK_X64_BLOCK_Y8_ROWS2"]
    best = grid.loc[pd.to_numeric(grid["time_us_8192"]).idxmin()]
    assert np.nanmin(times) == pytest.approx(float(best["time_us_8192"]))
    assert {x, y} <= set(axes)


def test_a_long_off_axis_label_wraps_and_leaves_the_cells_their_width():
    """SGEMM v7's tuned point (BM 64, BN 256, BK 8, TM 16, TN 8, WN 8, MIN_BLOCKS 2)
    lies off the quick axes BK [8, 16] x MIN_BLOCKS [1, 2]: its 58-character label on
    one line squeezed the cells until 24.19 ms overlapped 24.19 ms."""
    from nsightflow.plot.check import text_overlaps

    sgemm = load_family(ROOT / "kernels" / "sgemm")
    record = read_json(RECORDED / "sgemm" / "v7_double_buffer.json")
    configs, summary = sweep_tables([record], sgemm)
    fig = sweep_figure(configs, summary.iloc[0].to_dict())
    (tuned,) = [
        t.get_text() for t in fig.axes[0].get_yticklabels() if "BM" in t.get_text()
    ]
    params = record["best"]["params"]
    assert tuned.replace(",\n", ", ").split(", ") == [
        f"{k} {v}" for k, v in params.items()
    ]
    assert all(len(line) <= 24 for line in tuned.splitlines())
    assert text_overlaps(fig) == []
