"""Curves over sizes, one per variant, that stay apart where two coincide.

A variant whose curve lies on an earlier one's (within :data:`NEAR` of the axis
height at every size both have) would hide it: it is drawn dashed with hollow, larger markers on top, so
the curve below shows through, and the legend says which two coincide. Every point
carries an SVG tooltip. Used by the size curves of the family and of each step.
"""

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from nsightflow.contracts import columns as col
from nsightflow.plot.style import family_variants, variant_styles
from nsightflow.plot.svg import TippedFigure

NEAR = 0.02  # two points closer than this share of the axis height hide each other
Row = dict[Hashable, Any]


def coincident(
    rows: pd.DataFrame, column: str, order: list[str], ax: Axes
) -> dict[str, str]:
    """Variant -> the earlier variant (in ``order``) whose curve it lies on.

    Two curves coincide where they cover the same sizes (at least two) and at each
    their points are within :data:`NEAR` of the axis height of ``ax``, whose scale
    and limits must be set: what decides is whether one hides the other as drawn.
    """
    to_axes = ax.transScale + ax.transLimits
    series = {}
    # only the columns read: a group of all ~150 analysis columns costs ~10x more
    for variant, group in rows[[col.VARIANT, col.SIZE, column]].groupby(
        col.VARIANT, sort=False
    ):
        values = group.set_index(col.SIZE)[column].astype(float)
        points = to_axes.transform(np.column_stack([values.index, values.to_numpy()]))
        series[str(variant)] = pd.Series(points[:, 1], index=values.index)
    found: dict[str, str] = {}
    for i, later in enumerate(order):
        for earlier in order[:i]:
            if later in series and earlier in series and earlier not in found:
                if _same(series[earlier], series[later]):
                    found[later] = earlier
                    break
    return found


def _same(a: pd.Series, b: pd.Series) -> bool:
    if set(a.index) != set(b.index) or len(a) < 2:
        return False
    gap = (b[a.index] - a).abs().to_numpy()
    return bool(np.all(gap <= NEAR))


def draw_curves(
    fig: TippedFigure,
    ax: Axes,
    rows: pd.DataFrame,
    column: str,
    ctx: dict[str, Any],
    tip: Callable[[Row], str],
    spread: Callable[[pd.DataFrame], tuple[Any, Any]] | None = None,
    same: dict[str, str] | None = None,
) -> dict[str, str]:
    """One line per variant (manifest order) of ``column`` over size, points tipped.

    Args:
        fig: The figure (for the tooltips).
        ax: The axes, its scales and limits set (they decide what coincides).
        rows: The variants' rows (``variant``, ``size``, ``column``).
        column: The value drawn.
        ctx: ``context.json`` (the variants' colours and markers).
        tip: A point's tooltip from its row.
        spread: Lower and upper error bar lengths of a variant's rows, if any.
        same: The coinciding variants, where the caller decided them; else
            :func:`coincident` on ``column``.

    Returns:
        The coinciding variants (see :func:`coincident`).
    """
    styles = variant_styles(family_variants(ctx))
    order = [v for v in family_variants(ctx) if v in set(rows[col.VARIANT])]
    if same is None:
        same = coincident(rows, column, order, ax)
    for variant in order:
        mine = rows[rows[col.VARIANT] == variant].sort_values(col.SIZE)
        st = styles[variant]
        hollow = variant in same
        line = {"color": st["color"], "lw": 1.1, "ls": "--" if hollow else "-"}
        if spread is not None:
            ax.errorbar(
                mine[col.SIZE], mine[column], yerr=spread(mine), capsize=1.5, **line
            )
        else:
            ax.plot(mine[col.SIZE], mine[column], **line)
        for row in mine.to_dict("records"):
            (point,) = ax.plot(
                [row[col.SIZE]], [row[column]], ls="none", **point_style(st, hollow)
            )
            fig.tip(point, tip(row))
    return same


def point_style(st: dict[str, Any], hollow: bool) -> dict[str, Any]:
    """A variant's marker: filled, or hollow and larger where its curve coincides."""
    if not hollow:
        return {"ms": 4, **st}
    return {
        "ms": 6.5,
        "marker": st["marker"],
        "color": st["color"],
        "mfc": "none",
        "mew": 1.1,
        "zorder": 3,
    }


def coincide_notes(
    same: dict[str, str], where: dict[str, str] | None = None
) -> list[Line2D]:
    """Legend lines saying which curves lie on which.

    ``where``: variant -> the one panel its curve coincides in, where a figure has
    several and it does not coincide in all.
    """
    where = where or {}
    return [
        Line2D(
            [],
            [],
            ls="none",
            label=f"{later} (dashed) lies on {earlier}"
            + (f" in {where[later]}" if later in where else ""),
        )
        for later, earlier in same.items()
    ]
