"""Plot stage: every figure of one family from its analysis tables.

Each ``*_figure`` function (in :mod:`~nsightflow.plot.perf`,
:mod:`~nsightflow.plot.roofline`, :mod:`~nsightflow.plot.stalls`,
:mod:`~nsightflow.plot.levels`, :mod:`~nsightflow.plot.steps`,
:mod:`~nsightflow.plot.step_detail`) takes frames and returns a figure built with
matplotlib's object API (no pyplot); only :func:`write_figures` saves, as PNG and
SVG (:mod:`nsightflow.plot.svg`). The file names are in :mod:`nsightflow.plot.names`.
"""

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from nsightflow.contracts import columns as col
from nsightflow.contracts.bundle import Bundle
from nsightflow.contracts.tables import SWEEP
from nsightflow.plot.energy import write_energy_figure
from nsightflow.plot.levels import bytes_by_level_figure
from nsightflow.plot.names import FIGURES, STEP_DIR, step_figured, step_stem
from nsightflow.plot.perf import perf_vs_size_figure
from nsightflow.plot.roofline import roofline_figure
from nsightflow.plot.stalls import stalls_figure
from nsightflow.plot.step_detail import step_figure
from nsightflow.plot.step_rows import STEP_METRICS
from nsightflow.plot.steps import step_changes_figure, steps_of
from nsightflow.plot.svg import save

__all__ = [
    "FIGURES",
    "STEP_METRICS",
    "family_figures",
    "read_findings",
    "write_figures",
]


def read_findings(analysis_dir: Path) -> pd.DataFrame | None:
    """``findings.csv`` of the diagnosis stage, or None where it was not written."""
    return Bundle(analysis_dir).findings


def family_figures(
    analysis: pd.DataFrame,
    stalls: pd.DataFrame,
    ctx: dict[str, Any],
    findings: pd.DataFrame | None = None,
    configs: pd.DataFrame | None = None,
) -> dict[str, Figure]:
    """Every figure of one family by stem (``steps/step_<variant>`` for the steps).

    ``configs``: the sweep's timings (``sweep.csv``), which tell a step's
    configuration from its code.
    """
    figures: dict[str, Figure] = {
        "perf_vs_size": perf_vs_size_figure(analysis, ctx),
        "roofline": roofline_figure(analysis, ctx),
        "stalls": stalls_figure(stalls, ctx),
        "bytes_by_level": bytes_by_level_figure(analysis, ctx),
        "step_changes": step_changes_figure(analysis, ctx, findings, stalls),
    }
    variants = {str(v[col.NAME]): v for v in ctx["variants"]}
    for _before, after in steps_of(ctx):
        if step_figured(variants, after):  # drawn where the report shows it
            figures[step_stem(after)] = step_figure(
                analysis, ctx, after, findings, configs
            )
    assert set(FIGURES) <= set(figures)  # names.FIGURES lists what the workflow expects
    return figures


def write_figures(analysis_dir: Path, out_dir: Path) -> list[Path]:
    """Build every figure of one family and save each as PNG and SVG.

    Reads ``analysis.csv``, ``stalls.csv``, ``context.json`` and, where present,
    ``findings.csv`` from ``analysis_dir``; writes ``<name>.png`` and ``<name>.svg``
    into ``out_dir`` and the step figures into ``out_dir/steps``.
    """
    bundle = Bundle(analysis_dir)
    analysis, ctx = bundle.analysis, bundle.context
    (out_dir / STEP_DIR).mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    configs = bundle.sweep if bundle.path(SWEEP.name).is_file() else None
    for stem, fig in family_figures(
        analysis, bundle.stalls, ctx, bundle.findings, configs
    ).items():
        paths += save(fig, out_dir, stem)
    return paths + write_energy_figure(
        analysis, ctx, out_dir
    )  # where energy was recorded
