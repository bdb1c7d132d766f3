"""Time against energy per launch: one point per variant and size.

Both axes are logarithmic; a variant's sizes are joined by a line. Dashed lines of
constant power (energy = power x time) at the lowest and highest average power
measured show whether a variant saves energy by being faster or by drawing less
power. Written only where the time stage recorded energy (NVML's total-energy
counter); elsewhere :func:`write_energy_figure` removes a stale one and the report
says the energy was not recorded.
"""

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from nsightflow.analysis.energy import energy_recorded
from nsightflow.contracts import columns as col
from nsightflow.plot import data
from nsightflow.plot.style import (
    family_variants,
    log_limits,
    matplotlib_context,
    time_text,
    unit_axis,
    variant_handles,
    variant_styles,
)
from nsightflow.plot.svg import TippedFigure, save, tipped_figure

STEM = "energy"  # figures/energy.png + .svg


def energy_text(joules: float) -> str:
    """``1.2 mJ``, ``35 uJ``: an energy in the unit that fits it."""
    for scale, unit in ((1.0, "J"), (1e-3, "mJ"), (1e-6, "uJ")):
        if abs(joules) >= scale:
            return f"{joules / scale:.3g} {unit}"
    return f"{joules * 1e9:.3g} nJ"


def energy_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> TippedFigure:
    """Median time (x) against energy per launch (y), per variant and size."""
    rows = data.timed(analysis)
    rows = rows[pd.to_numeric(rows[col.ENERGY_J_PER_LAUNCH], errors="coerce") > 0]
    styles = variant_styles(family_variants(ctx))
    with matplotlib_context():
        fig = tipped_figure(6.4, 4.4)
        ax = fig.subplots()
        for variant, group in rows.groupby(col.VARIANT, sort=False):
            group = group.sort_values(col.SIZE)
            st = styles[str(variant)]
            ax.plot(
                group[col.TIME_MEDIAN_US],
                group[col.ENERGY_J_PER_LAUNCH],
                color=st["color"],
                lw=1,
            )
            for row in group.to_dict("records"):
                (point,) = ax.plot(
                    [row[col.TIME_MEDIAN_US]],
                    [row[col.ENERGY_J_PER_LAUNCH]],
                    ls="none",
                    ms=4,
                    **st,
                )
                fig.tip(
                    point,
                    f"{variant}, n = {data.size_text(row['size'])}: "
                    f"{time_text(float(row['time_median_us']))}, "
                    f"{energy_text(float(row['energy_j_per_launch']))} per launch at "
                    f"{float(row['energy_power_w']):.0f} W",
                )
        _power_guides(ax, rows)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(*log_limits(rows[col.TIME_MEDIAN_US].tolist(), 1.5))
        ax.set_ylim(*log_limits(rows[col.ENERGY_J_PER_LAUNCH].tolist(), 1.5))
        unit_axis(ax.xaxis, time_text)
        unit_axis(ax.yaxis, energy_text)
        ax.set_xlabel("median kernel time")
        ax.set_ylabel("energy per launch (NVML board energy)")
        handles: list[Any] = variant_handles(
            list(dict.fromkeys(rows[col.VARIANT])), ctx
        )
        handles += ax.get_legend_handles_labels()[0]
        fig.legend(handles=handles, loc="outside lower center", ncols=3)
        fig.suptitle("time against energy per launch")
    return fig


def _power_guides(ax: Axes, rows: pd.DataFrame) -> None:
    """Lines of constant power at the lowest and highest average power measured."""
    watts = pd.to_numeric(rows[col.ENERGY_POWER_W], errors="coerce").dropna()
    if watts.empty:
        return
    times = np.geomspace(
        rows[col.TIME_MEDIAN_US].min() / 2, rows[col.TIME_MEDIAN_US].max() * 2, 20
    )
    for w, style in sorted({(float(watts.min()), "--"), (float(watts.max()), ":")}):
        ax.plot(
            times, w * times * 1e-6, color="grey", ls=style, lw=0.8, label=f"{w:.0f} W"
        )


def write_energy_figure(
    analysis: pd.DataFrame, ctx: dict[str, Any], out_dir: Path
) -> list[Path]:
    """Save the figure where energy was recorded; else remove an earlier one."""
    if not energy_recorded(analysis) or data.timed(analysis).empty:
        for ext in ("png", "svg"):
            (out_dir / f"{STEM}.{ext}").unlink(missing_ok=True)
        return []
    return save(energy_figure(analysis, ctx), out_dir, STEM)
