"""The sweep heatmap's colour scale and the timeline's kernel bars and labels."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection

from nsightflow.plot.sweep import OUTLIER, colour_limits, sweep_figure
from nsightflow.plot.timeline import MIN_BAR, timeline_figure


def test_an_outlier_is_left_off_the_colour_scale():
    times = np.array([[1.0, 1.1], [1.2, 50.0], [np.nan, 1.05]])
    assert colour_limits(times) == (1.0, 1.2)
    even = np.array([[1.0, 2.0], [2.5, np.nan]])  # within 3x the median: all kept
    assert colour_limits(even) == (1.0, 2.5)


def _slow_marks(configs, row):
    """The heatmap's image, its finite cells, those over OUTLIER x their median, the
    cells marked slow and the colour bar."""
    fig = sweep_figure(configs, row)
    ax, bar = fig.axes
    image = ax.images[0]
    shown = np.ma.filled(image.get_array(), np.nan)
    finite = shown[np.isfinite(shown)]
    over = finite[finite > OUTLIER * np.median(finite)]
    marked = [t.get_text() for t in ax.texts if t.get_text().endswith("▲")]
    return image, finite, over, marked, bar


def test_the_recorded_sgemm_sweep_marks_a_slow_configuration(analyses):
    folder = analyses["sgemm"]
    summary = pd.read_csv(folder / "sweep_summary.csv").set_index("variant")
    row = summary.loc["v7_double_buffer"].to_dict() | {"variant": "v7_double_buffer"}
    configs = pd.read_csv(folder / "sweep.csv")
    mine = configs[configs["variant"] == "v7_double_buffer"].copy()
    # the recorded quick sweep's 5 configurations lie within 1.4x of each other
    # (2,841 - 3,882 us at 4096): all on the colour scale, none marked
    image, finite, over, marked, _bar = _slow_marks(mine, row)
    assert len(finite) >= 4 and len(over) == 0 and marked == []
    assert image.norm.vmax == pytest.approx(finite.max())
    # one configuration made 9x slower (the slow one an earlier full-space sweep
    # measured): it leaves the colour scale and is marked
    slowest = pd.to_numeric(mine["time_us_4096"]).idxmax()
    for column in [c for c in mine.columns if c.startswith("time_us_")]:
        mine.loc[slowest, column] = 9 * pd.to_numeric(mine[column]).min()
    image, finite, over, marked, bar = _slow_marks(mine, row)
    assert len(over) >= 1
    assert image.norm.vmax < over.min()  # the rest keep the colour scale
    assert image.norm.vmax == pytest.approx(finite[finite <= over.min() / 1.0001].max())
    assert len(marked) == len(over)
    assert "over 3x the median" in " ".join(bar.get_ylabel().split())


def test_a_kernel_too_short_to_see_is_widened_drawn_on_top_and_labelled_clear(
    analyses,
):
    folder = analyses["jacobi2d"]
    table = pd.read_csv(folder / "timeline.csv")
    summary = pd.read_csv(folder / "timeline_summary.csv")
    fig = timeline_figure(table, summary, "jacobi2d")
    ax = fig.axes[0]
    size = int(summary["size"].max())
    rows = table[table["size"] == size]
    span = (rows["end_ns"].max() - rows["start_ns"].min()) / 1e6
    bars = [c for c in ax.collections if isinstance(c, PolyCollection)]
    kernels = [
        c for c in bars if c.get_zorder() > max(b.get_zorder() for b in bars) - 1
    ]
    widths = [
        float(np.ptp(path.vertices[:, 0])) for c in kernels for path in c.get_paths()
    ]
    assert widths and min(widths) >= MIN_BAR * span * 0.999
    shown = list(summary[summary["size"] == size]["variant"])
    for note in (t for t in ax.texts if t.get_text().startswith("kernel ")):
        y = round(note.xy[1])
        ends = rows[rows["variant"] == shown[y]]["end_ns"].max() / 1e6
        assert note.xy[0] >= ends  # after the row's last bar, on no bar
    assert ax.get_xlim()[1] > span  # room for the labels
