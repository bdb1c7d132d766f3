"""The sweep heatmap of a variant: time over two parameter axes, the others at their best.

One figure per swept variant, from ``sweep.csv`` and ``sweep_summary.csv``
(:mod:`nsightflow.analysis.sweep`). The two axes with the most values are drawn; every
other parameter is held at the best configuration's value, so the best cell is the
sweep's best (boxed; the default configuration's cell is dashed). A sweep of the quick
space also measures tuned.yaml's point, whose values need not be among the quick axes
(Jacobi-2D v5 on the H200: BLOCK_X 64 and ROWS 2, quick axes [32, 128] and [4, 8]):
such a configuration gets a row of its own below the grid, named by its parameters,
with its time on the same colour scale and its box when it is the best or the default;
the grid is then held at its own best point's values. A cell holds the
median time at the largest sweep size, or, for a configuration with no time, a short
reason (``smem``: too much shared memory, ``regs``: too many registers, ``compile``,
``launch``, ``wrong``, ``constraint``, ``not run``). The colour scale spans the
timed cells except outliers (over :data:`OUTLIER` x the median cell), which are
black and marked, so one very slow configuration does not flatten the rest. Built
with the object API like :mod:`nsightflow.plot.figures`; only :func:`write_figures`
saves, and only for a variant whose sweep has a best (no placeholder images).
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.contracts.bundle import Bundle
from nsightflow.plot.fit import fit_texts
from nsightflow.plot.style import matplotlib_context, new_figure
from nsightflow.plot.svg import save

SHORT = {
    "constraint": "constraint",
    "too_many_threads": "threads",
    "compile_failed": "compile",
    "too_much_shared_memory": "smem",
    "too_many_registers": "regs",
    "launch_failed": "launch",  # contracts: literal (a label)
    "wrong_result": "wrong",  # contracts: literal (a label)
    "size_not_accepted": "size",  # contracts: literal (a label)
    col.NOT_RUN: "not run",
}


def heat_axes(
    axes: Mapping[str, list[int]], configs: pd.DataFrame | None = None, size: int = 0
) -> tuple[str | None, str | None]:
    """The two axes to draw: those along which the time moves most from the best.

    An axis's effect is the slowest over the fastest time on the line through the
    best configuration along that axis (the other parameters at the best's values).
    Without times (no configuration ran), the axes with the most values.

    Returns:
        (x axis, y axis), in declaration order; y is None when only one axis
        varies, both are None when none does.
    """
    varying = [a for a, v in axes.items() if len(v) > 1]
    effect = {a: float(len(axes[a])) for a in varying}
    best = _anchor(configs, axes) if configs is not None else None
    if configs is not None and best is not None and size:
        grid = configs[on_axes(configs, axes)]
        for a in varying:
            line = grid[grid[col.STATUS] == Status.OK]
            for other in axes:
                if other != a:
                    line = line[line[f"param_{other}"] == best[f"param_{other}"]]
            times = line[f"time_us_{size}"].dropna().astype(float)
            effect[a] = float(times.max() / times.min()) if len(times) > 1 else 1.0
    ranked = sorted(varying, key=lambda a: -effect[a])[:2]
    ranked.sort(key=list(axes).index)
    x = ranked[-1] if ranked else None
    y = ranked[0] if len(ranked) == 2 else None
    return x, y


def on_axes(configs: pd.DataFrame, axes: Mapping[str, list[int]]) -> pd.Series:
    """Which configurations have every parameter among the axes' values (the grid)."""
    inside = pd.Series(True, index=configs.index)
    for a, values in axes.items():
        inside &= configs[f"param_{a}"].isin(values)
    return inside


def _anchor(configs: pd.DataFrame, axes: Mapping[str, list[int]]) -> pd.Series | None:
    """The grid point the plane goes through, or None.

    The best configuration's row when it is on the axes; else the fastest grid point
    (the best is off the axes, drawn below the grid); else the default's row.
    """
    grid = configs[on_axes(configs, axes)]
    best = grid[grid[col.IS_BEST].astype(bool)]
    if not best.empty:
        return best.iloc[0]
    ok = grid[grid[col.STATUS] == Status.OK]
    if col.GEOMEAN_US in ok and ok[col.GEOMEAN_US].notna().any():
        return ok.sort_values(col.GEOMEAN_US, kind="stable").iloc[0]
    default = grid[grid[col.IS_DEFAULT].astype(bool)]
    return default.iloc[0] if not default.empty else None


def heat_grid(
    configs: pd.DataFrame, axes: Mapping[str, list[int]], size: int
) -> tuple[np.ndarray, list[list[str]], tuple[str | None, str | None]]:
    """Times and cell labels over the two drawn axes, the others at the best's values.

    Args:
        configs: One variant's rows of ``sweep.csv``.
        axes: The variant's swept axes and values.
        size: The sweep size whose median time fills the cells.

    Returns:
        (times in us, NaN where none; labels, "" where no such configuration;
        (x axis, y axis)).
    """
    x, y = heat_axes(axes, configs, size)
    xs = axes[x] if x else [None]
    ys = axes[y] if y else [None]
    anchor = _anchor(configs, axes)
    configs = configs[on_axes(configs, axes)]
    fixed = {
        a: anchor[f"param_{a}"] if anchor is not None else v[0]
        for a, v in axes.items()
        if a not in (x, y)
    }
    times = np.full((len(ys), len(xs)), np.nan)
    labels = [["" for _ in xs] for _ in ys]
    for i, yv in enumerate(ys):
        for j, xv in enumerate(xs):
            want = {**fixed, **({x: xv} if x else {}), **({y: yv} if y else {})}
            match = configs
            for a, v in want.items():
                match = match[match[f"param_{a}"] == v]
            if match.empty:
                continue
            times[i, j], labels[i][j] = _cell(match.iloc[0], size)
    return times, labels, (x, y)


def _cell(row: pd.Series, size: int) -> tuple[float, str]:
    """A configuration's time at ``size`` (NaN where none) and its cell's text."""
    t = row.get(f"time_us_{size}")
    if row[col.STATUS] == Status.OK and pd.notna(t):
        return float(t), _fmt_time(float(t))
    return float("nan"), SHORT.get(str(row[col.STATUS]), str(row[col.STATUS]))


def off_axes(
    configs: pd.DataFrame, axes: Mapping[str, list[int]], size: int
) -> list[tuple[str, float, str]]:
    """The configurations off the axes (tuned.yaml's points), one row each below the grid.

    Returns:
        Per configuration, in the sweep's order: (config id, time in us or NaN, cell
        text).
    """
    return [
        (str(row[col.CONFIG_ID]), *_cell(row, size))
        for _, row in configs[~on_axes(configs, axes)].iterrows()
    ]


TICK_CHARS = 24  # off-axis labels wrap here (SGEMM v7's 58 chars squeezed the cells)


def _params_text(configs: pd.DataFrame, config_id: str, axes: Mapping[str, Any]) -> str:
    r"""``BLOCK_X 64, BLOCK_Y 8,\nROWS 2``: its values, axes in order, at TICK_CHARS."""
    row = configs[configs[col.CONFIG_ID] == config_id].iloc[0]
    lines: list[str] = []
    for value in (f"{a} {int(row[f'param_{a}'])}" for a in axes):
        if lines and len(lines[-1]) + len(value) + 2 <= TICK_CHARS:
            lines[-1] += ", " + value
        else:
            lines[-1:] = [lines[-1] + ",", value] if lines else [value]
    return "\n".join(lines)


def _fmt_time(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


OUTLIER = 3.0  # a cell slower than this times the median cell is off the colour scale
OVER = "#111111"  # the colour of such a cell (viridis_r ends at dark purple)


def colour_limits(times: np.ndarray) -> tuple[float, float]:
    """The colour scale's limits: the timed cells, less those over OUTLIER x median.

    One configuration 10x slower than the rest would otherwise take the whole scale
    and leave every other cell the same colour; it is drawn in :data:`OVER` instead.
    """
    finite = times[np.isfinite(times)]
    if finite.size == 0:
        return 0.0, 1.0
    kept = finite[finite <= OUTLIER * np.median(finite)]
    low, high = float(kept.min()), float(kept.max())
    return (low, high) if high > low else (low * 0.99, high * 1.01)


@dataclass(frozen=True)
class Heat:
    """What the heatmap draws: the grid's plane, then one row per off-axis point."""

    times: np.ndarray  # us, NaN where none; the off-axis rows' time in column 0
    labels: list[list[str]]
    drawn: tuple[str | None, str | None]
    ticks: tuple[list[str], list[str]]  # x, y
    extra: list[str]  # the off-axis rows' config ids, top to bottom


def heat(configs: pd.DataFrame, axes: Mapping[str, list[int]], size: int) -> Heat:
    """The plane of :func:`heat_grid` with the off-axis configurations below it."""
    times, labels, (x, y) = heat_grid(configs, axes, size)
    xticks = [str(v) for v in axes[x]] if x else [""]
    yticks = [str(v) for v in axes[y]] if y else [""]
    extra = off_axes(configs, axes, size)
    for config_id, t, text in extra:
        times = np.vstack([times, np.full(times.shape[1], np.nan)])
        times[-1, 0] = t
        labels.append([text] + [""] * (times.shape[1] - 1))
        yticks.append(_params_text(configs, config_id, axes))
    return Heat(times, labels, (x, y), (xticks, yticks), [e[0] for e in extra])


def sweep_figure(configs: pd.DataFrame, summary: Mapping[str, Any]) -> Figure:
    """One variant's heatmap (its sweep must hold configurations and sizes).

    Raises:
        ValueError: The sweep has no configurations, axes or sizes to draw.
    """
    axes = json.loads(str(summary.get(col.AXES) or "{}"))
    sizes = json.loads(str(summary.get(col.SIZES) or "[]"))
    if configs.empty or not axes or not sizes:
        raise ValueError(f"{summary.get('variant')}: no sweep to draw")
    with matplotlib_context():
        size = int(max(sizes))
        h = heat(configs, axes, size)
        times, (x, y) = h.times, h.drawn
        rows, cols = times.shape
        fig = new_figure(max(4.5, 1.3 * cols + 2.5), max(2.4, 0.55 * rows + 1.8))
        ax = fig.subplots()
        ax.grid(False)  # grid lines would cut the cells
        scale, unit = (
            (1000.0, "ms") if np.nanmax(times, initial=0) >= 1000 else (1.0, "us")
        )
        low, high = colour_limits(times)
        cmap = matplotlib.colormaps["viridis_r"].with_extremes(over=OVER)
        image = ax.imshow(
            np.ma.masked_invalid(_spread_extra(h) / scale),
            cmap=cmap,
            norm=Normalize(low / scale, high / scale),
            aspect="auto",
        )
        ax.set_facecolor("#e6e6e6")  # cells without a time
        if h.extra:  # a white line between the grid and the rows below it
            ax.axhline(rows - len(h.extra) - 0.5, color="white", linewidth=4)
        _cell_texts(ax, times, h, (low + high) / 2, high)
        ax.set_xticks(range(cols), h.ticks[0])
        ax.set_yticks(range(rows), h.ticks[1])
        ax.set_xlabel(x or "")
        ax.set_ylabel(y or "")
        anchor = _anchor(configs, axes)
        for column, style in ((col.IS_DEFAULT, "--"), (col.IS_BEST, "-")):
            _mark(ax, configs, (axes, h), (column, style), anchor)
        over = bool(np.any(times[np.isfinite(times)] > high))
        label = f"median time at n = {size} [{unit}]"
        fig.colorbar(
            image,
            ax=ax,
            extend="max" if over else "neither",
            label=label + (f"\n(black: over {OUTLIER:g}x the median)" if over else ""),
        )
        ax.set_title(_title(summary, axes, h, anchor), fontsize=9)
        fit_texts(fig)
    return fig


def _spread_extra(h: Heat) -> np.ndarray:
    """The times to colour: an off-axis row takes its one time across its width."""
    shown = h.times.copy()
    for i in range(shown.shape[0] - len(h.extra), shown.shape[0]):
        shown[i, :] = shown[i, 0]
    return shown


def _title(
    summary: Mapping[str, Any],
    axes: Mapping[str, list[int]],
    h: Heat,
    anchor: pd.Series | None,
) -> str:
    """What the heatmap shows and what it holds fixed."""
    x, y = h.drawn
    others = [a for a in axes if a not in h.drawn and len(axes[a]) > 1]
    at_best = anchor is None or bool(anchor[col.IS_BEST])
    where = " at the best's values" if at_best else " at the grid's best point's values"
    held = ", ".join(others) + where if others else ""
    if h.extra:
        held += ("; " if held else "") + "below: points off the axes"
    head = f"{summary['family']} {summary['variant']}".strip()
    return f"{head}: time over {x}{' x ' + y if y else ''}" + (
        f"\n({held}; best boxed, default dashed)" if held else ""
    )


def _cell_texts(
    ax: Any, times: np.ndarray, h: Heat, middle: float, high: float
) -> None:
    """Each cell's time or reason, light on dark cells (viridis_r: slow is dark).

    An off-axis row's one text is centred on the row, which spans the grid's width.
    """
    rows, cols = times.shape
    first_extra = rows - len(h.extra)
    for i in range(rows):
        for j in range(cols if i < first_extra else 1):
            slow = bool(np.isfinite(times[i, j]) and times[i, j] > middle)
            ax.text(
                j if i < first_extra else (cols - 1) / 2,
                i,
                h.labels[i][j] + (" ▲" if times[i, j] > high else ""),
                ha="center",
                va="center",
                fontsize=7,
                color="white" if slow else "black",
            )


def _mark(
    ax: Any,
    configs: pd.DataFrame,
    where: tuple[Mapping[str, list[int]], Heat],
    how: tuple[str, str],
    anchor: pd.Series | None,
) -> None:
    """Box the best (solid) or default (dashed) configuration where it is drawn."""
    axes, h = where
    x, y = h.drawn
    column, style = how
    rows = configs[configs[column].astype(bool)]
    if rows.empty or anchor is None:
        return
    row = rows.iloc[0]
    rows, cols = h.times.shape
    width = 0.94
    if row.get(col.CONFIG_ID) in h.extra:  # its own row below the grid, full width
        i, j = rows - len(h.extra) + h.extra.index(row[col.CONFIG_ID]), 0
        width += cols - 1
    elif any(
        row[f"param_{a}"] != anchor[f"param_{a}"] for a in axes if a not in h.drawn
    ):
        return  # held at other values than the plane shows
    else:
        j = axes[x].index(row[f"param_{x}"]) if x else 0
        i = axes[y].index(row[f"param_{y}"]) if y else 0
    ax.add_patch(
        Rectangle(
            (j - 0.47, i - 0.47),
            width,
            0.94,
            fill=False,
            edgecolor="#c44e52",
            linewidth=2,
            linestyle=style,
        )
    )


def write_figures(analysis_dir: Path, out_dir: Path, variants: list[str]) -> list[Path]:
    """Write ``<variant>.png`` (and ``.svg``) of each named variant with a sweep.

    A variant whose sweep was not recorded, or found no valid configuration, gets no
    figure: the report shows its heatmap only where the sweep has a best.
    """
    bundle = Bundle(analysis_dir)
    configs, summary = bundle.sweep, bundle.sweep_summary
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for variant in variants:
        ok = summary[summary[col.STATUS] == Status.OK]
        rows = ok[ok[col.VARIANT] == variant]
        mine = configs[configs[col.VARIANT] == variant] if len(configs) else configs
        if rows.empty or mine.empty:
            continue
        info = {str(k): v for k, v in rows.iloc[0].items()}
        # named from the figures folder (``sweep/<variant>``), as the report's
        # HTML and PDF stages find a figure's PNG beside its inline SVG
        written += save(
            sweep_figure(mine, info), out_dir.parent, f"{out_dir.name}/{variant}"
        )
    return written
