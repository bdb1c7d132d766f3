"""The sweep heatmap of a variant: time over two parameter axes, the others at their best.

One figure per swept variant, from ``sweep.csv`` and ``sweep_summary.csv``
(:mod:`nsightflow.analysis.sweep`). The two axes with the most values are drawn; every
other parameter is held at the best configuration's value, so the best cell is the
sweep's best (boxed; the default configuration's cell is dashed). A cell holds the
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
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from nsightflow.plot.fit import fit_texts
from nsightflow.plot.style import matplotlib_context, new_figure
from nsightflow.plot.svg import save

SHORT = {
    "constraint": "constraint",
    "too_many_threads": "threads",
    "compile_failed": "compile",
    "too_much_shared_memory": "smem",
    "too_many_registers": "regs",
    "launch_failed": "launch",
    "wrong_result": "wrong",
    "size_not_accepted": "size",
    "not_run": "not run",
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
    best = _anchor(configs) if configs is not None else None
    if best is not None and size:
        for a in varying:
            line = configs[configs["status"] == "ok"]  # type: ignore[index]
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


def _anchor(configs: pd.DataFrame) -> pd.Series | None:
    """The best configuration's row (the default's when none is best), or None."""
    for column in ("is_best", "is_default"):
        rows = configs[configs[column].astype(bool)]
        if not rows.empty:
            return rows.iloc[0]
    return None


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
    anchor = _anchor(configs)
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
            row = match.iloc[0]
            t = row.get(f"time_us_{size}")
            if row["status"] == "ok" and pd.notna(t):
                times[i, j] = float(t)
                labels[i][j] = _fmt_time(float(t))
            else:
                labels[i][j] = SHORT.get(str(row["status"]), str(row["status"]))
    return times, labels, (x, y)


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


def sweep_figure(configs: pd.DataFrame, summary: Mapping[str, Any]) -> Figure:
    """One variant's heatmap (its sweep must hold configurations and sizes).

    Raises:
        ValueError: The sweep has no configurations, axes or sizes to draw.
    """
    axes = json.loads(str(summary.get("axes") or "{}"))
    sizes = json.loads(str(summary.get("sizes") or "[]"))
    if configs.empty or not axes or not sizes:
        raise ValueError(f"{summary.get('variant')}: no sweep to draw")
    with matplotlib_context():
        size = int(max(sizes))
        times, labels, (x, y) = heat_grid(configs, axes, size)
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
            np.ma.masked_invalid(times / scale),
            cmap=cmap,
            norm=Normalize(low / scale, high / scale),
            aspect="auto",
        )
        ax.set_facecolor("#e6e6e6")  # cells without a time
        _cell_texts(ax, times, labels, (low + high) / 2, high)
        ax.set_xticks(range(cols), [str(v) for v in axes[x]] if x else [""])
        ax.set_yticks(range(rows), [str(v) for v in axes[y]] if y else [""])
        ax.set_xlabel(x or "")
        ax.set_ylabel(y or "")
        anchor = _anchor(configs)
        for column, style in (("is_default", "--"), ("is_best", "-")):
            _mark(ax, configs, axes, (x, y), (column, style), anchor)
        over = bool(np.any(times[np.isfinite(times)] > high))
        label = f"median time at n = {size} [{unit}]"
        fig.colorbar(
            image,
            ax=ax,
            extend="max" if over else "neither",
            label=label + (f"\n(black: over {OUTLIER:g}x the median)" if over else ""),
        )
        ax.set_title(_title(summary, axes, (x, y)), fontsize=9)
        fit_texts(fig)
    return fig


def _title(
    summary: Mapping[str, Any],
    axes: Mapping[str, list[int]],
    drawn: tuple[str | None, str | None],
) -> str:
    """What the heatmap shows and what it holds fixed."""
    x, y = drawn
    others = [a for a in axes if a not in drawn and len(axes[a]) > 1]
    held = ", ".join(others) + " at the best's values" if others else ""
    head = f"{summary['family']} {summary['variant']}".strip()
    return f"{head}: time over {x}{' x ' + y if y else ''}" + (
        f"\n({held}; best boxed, default dashed)" if held else ""
    )


def _cell_texts(
    ax: Any, times: np.ndarray, labels: list[list[str]], middle: float, high: float
) -> None:
    """Each cell's time or reason, light on dark cells (viridis_r: slow is dark)."""
    rows, cols = times.shape
    for i in range(rows):
        for j in range(cols):
            slow = bool(np.isfinite(times[i, j]) and times[i, j] > middle)
            ax.text(
                j,
                i,
                labels[i][j] + (" ▲" if times[i, j] > high else ""),
                ha="center",
                va="center",
                fontsize=7,
                color="white" if slow else "black",
            )


def _mark(
    ax: Any,
    configs: pd.DataFrame,
    axes: Mapping[str, list[int]],
    drawn: tuple[str | None, str | None],
    how: tuple[str, str],
    anchor: pd.Series | None,
) -> None:
    """Box the best (solid) or default (dashed) configuration if it is on the plane."""
    x, y = drawn
    column, style = how
    rows = configs[configs[column].astype(bool)]
    if rows.empty or anchor is None:
        return
    row = rows.iloc[0]
    if any(row[f"param_{a}"] != anchor[f"param_{a}"] for a in axes if a not in drawn):
        return  # held at other values than the plane shows
    j = axes[x].index(row[f"param_{x}"]) if x else 0
    i = axes[y].index(row[f"param_{y}"]) if y else 0
    ax.add_patch(
        Rectangle(
            (j - 0.47, i - 0.47),
            0.94,
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
    configs = pd.read_csv(analysis_dir / "sweep.csv")
    summary = pd.read_csv(analysis_dir / "sweep_summary.csv")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for variant in variants:
        rows = summary[(summary["variant"] == variant) & (summary["status"] == "ok")]
        mine = configs[configs["variant"] == variant] if not configs.empty else configs
        if rows.empty or mine.empty:
            continue
        info = {str(k): v for k, v in rows.iloc[0].items()}
        # named from the figures folder (``sweep/<variant>``), as the report's
        # HTML and PDF stages find a figure's PNG beside its inline SVG
        written += save(
            sweep_figure(mine, info), out_dir.parent, f"{out_dir.name}/{variant}"
        )
    return written
