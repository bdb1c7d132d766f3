"""A run's results as pandas DataFrames, matplotlib figures and report files.

:class:`Results` reads a folder laid out as the workflow's ``results/`` (written by
``snakemake``, by :func:`nsightflow.api.replay` or :func:`nsightflow.api.measure`):
it computes nothing itself, so what a notebook shows is what the report says.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from nsightflow.contracts import (
    ANALYSIS,
    FINDINGS,
    HOTSPOTS,
    LADDER,
    METRICS,
    STALLS,
    SUMMARY,
    Table,
)
from nsightflow.contracts import columns as col
from nsightflow.contracts.bundle import CONTEXT, Bundle
from nsightflow.contracts.layout import PATTERNS, Layout
from nsightflow.errors import StageInputError
from nsightflow.plot.names import FIGURES, FORMATS
from nsightflow.report.paths import report_stem

# The ladder's columns (nsightflow.contracts.LADDER), as a list for notebooks.
LADDER_COLUMNS = list(LADDER.columns)


@dataclass(frozen=True)
class Results:
    """The files of one run, read as tables (one method per file kind).

    Attributes:
        path: the ``results/`` folder.
        kernels_dir: the families' folder the run used.
    """

    path: Path
    kernels_dir: Path = Path("kernels")

    @property
    def families(self) -> list[str]:
        """The families analysed in this run."""
        found = self.path.glob(PATTERNS["analysis"].format(family="*"))
        return sorted(p.parent.name for p in found)

    def summary(self, family: str) -> pd.DataFrame:
        """``summary.csv``: one row per variant and size (status, time, rates, regime)."""
        return _table(Layout(self.path).report_dir(family), SUMMARY)

    def analysis(self, family: str) -> pd.DataFrame:
        """``analysis.csv``: the summary plus every derived counter, per variant and size."""
        return self._bundle(family, ANALYSIS.name).analysis

    def findings(self, family: str) -> pd.DataFrame:
        """``findings.csv``: the diagnosis as records (rule, role, metric, message)."""
        found = self._bundle(family, FINDINGS.name).findings
        return found if found is not None else pd.DataFrame()

    def hotspots(self, family: str) -> pd.DataFrame:
        """``hotspots.csv``: warp samples per source line of every profiled launch."""
        found = self._bundle(family, HOTSPOTS.name).hotspots
        return found if found is not None else pd.DataFrame()

    def stalls(self, family: str) -> pd.DataFrame:
        """``stalls.csv``: warp stall reasons per variant and size, with their shares."""
        return self._bundle(family, STALLS.name).stalls

    def metrics(self, family: str) -> pd.DataFrame:
        """The long ncu table of the family: one row per launch x metric."""
        folder = Layout(self.path).path("metrics", family, "v").parent
        tables = [
            _table(p.parent, METRICS, p.name)
            for p in sorted(folder.glob("*.csv"))
            if not p.name.endswith((".rules.csv", ".source.csv"))
        ]
        if not tables:
            raise StageInputError(f"{folder}: no metrics tables; run the parse stage")
        return pd.concat(tables, ignore_index=True)

    def context(self, family: str) -> dict[str, Any]:
        """``context.json``: the family, its variants' status and ideas, the ceilings."""
        return self._bundle(family, CONTEXT).context

    def ladder(self, family: str, size: int | None = None) -> pd.DataFrame:
        """The optimization ladder at one size: a row per variant, in story order.

        Args:
            family: the family's name.
            size: the size to show (default: the largest one timed).
        """
        summary = self.summary(family)
        timed = summary.dropna(subset=[col.TIME_MEDIAN_US])
        at = int(
            size
            if size is not None
            else (timed if len(timed) else summary)[col.SIZE].max()
        )
        rows = summary[summary[col.SIZE] == at]
        ideas = pd.DataFrame(
            [
                {
                    col.VARIANT: v[col.NAME],
                    col.IDEA: v[col.IDEA],
                    col.IMPROVES_ON: v[col.IMPROVES_ON],
                }
                for v in self.context(family)["variants"]
            ]
        )
        ladder = ideas.merge(rows, on=col.VARIANT, how="left")
        return ladder.reindex(columns=LADDER_COLUMNS).assign(size=at)

    def figure_file(
        self, family: str, name: str = "roofline", fmt: str = "png"
    ) -> Path:
        """The plot stage's file of figure ``name`` (``roofline``, ``perf_vs_size``...).

        Raises:
            StageInputError: the name or format is unknown, or the file is missing.
        """
        if name not in FIGURES or fmt not in FORMATS:
            raise StageInputError(
                f"figure {name!r} as {fmt!r}: choose a name of {list(FIGURES)} and a "
                f"format of {list(FORMATS)}"
            )
        path = Layout(self.path).path("figure_file", family, name=f"{name}.{fmt}")
        _exists(path)
        return path

    def figure(self, family: str, name: str = "roofline") -> Figure:
        """Figure ``name`` built anew from the tables by the plot stage's code.

        A matplotlib figure to change and save; :meth:`figure_file` is the one the
        report shows.
        """
        from nsightflow.plot.figures import family_figures

        if name not in FIGURES:
            raise StageInputError(f"figure {name!r}: choose one of {list(FIGURES)}")
        bundle = self._bundle(family, ANALYSIS.name)
        figures = family_figures(
            bundle.analysis, bundle.stalls, bundle.context, bundle.findings
        )
        return figures[name]

    def report_file(self, family: str, fmt: str = "html", language: str = "en") -> Path:
        """The family's report (``md``, ``html``, ``json`` or ``pdf``) in ``language``."""
        stem = f"{report_stem(language)}.{fmt}"
        path = Layout(self.path).path("report_file", family, name=stem)
        _exists(path)
        return path

    def _bundle(self, family: str, name: str) -> Bundle:
        """The family's analysis folder, with its file ``name`` there."""
        bundle = Bundle(Layout(self.path).analysis_dir(family))
        _exists(bundle.path(name))
        return bundle


def _exists(path: Path) -> None:
    if not path.is_file():
        raise StageInputError(
            f"{path}: missing; run nsightflow.api.replay() or measure() for this "
            "family into this folder first"
        )


def _table(folder: Path, table: Table, name: str | None = None) -> pd.DataFrame:
    """A CSV table of the run (an empty file reads as an empty table)."""
    path = folder / (name or table.name)
    _exists(path)
    return table.read(path)
