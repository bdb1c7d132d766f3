"""A run's results as pandas DataFrames, matplotlib figures and report files.

:class:`Results` reads a folder laid out as the workflow's ``results/`` (written by
``snakemake``, by :func:`nsightflow.api.replay` or :func:`nsightflow.api.measure`):
it computes nothing itself, so what a notebook shows is what the report says.
"""

import json
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
from nsightflow.contracts.bundle import Bundle
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
        found = (self.path / "analysis").glob("*/analysis.csv")
        return sorted(p.parent.name for p in found)

    def summary(self, family: str) -> pd.DataFrame:
        """``summary.csv``: one row per variant and size (status, time, rates, regime)."""
        return _table(self.path / "report" / family, SUMMARY)

    def analysis(self, family: str) -> pd.DataFrame:
        """``analysis.csv``: the summary plus every derived counter, per variant and size."""
        return _table(self._analysis(family), ANALYSIS)

    def findings(self, family: str) -> pd.DataFrame:
        """``findings.csv``: the diagnosis as records (rule, role, metric, message)."""
        return _table(self._analysis(family), FINDINGS)

    def hotspots(self, family: str) -> pd.DataFrame:
        """``hotspots.csv``: warp samples per source line of every profiled launch."""
        return _table(self._analysis(family), HOTSPOTS)

    def stalls(self, family: str) -> pd.DataFrame:
        """``stalls.csv``: warp stall reasons per variant and size, with their shares."""
        return _table(self._analysis(family), STALLS)

    def metrics(self, family: str) -> pd.DataFrame:
        """The long ncu table of the family: one row per launch x metric."""
        folder = self.path / "metrics" / family
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
        path = self._analysis(family) / "context.json"
        _exists(path)
        return json.loads(path.read_text())  # type: ignore[no-any-return]

    def ladder(self, family: str, size: int | None = None) -> pd.DataFrame:
        """The optimization ladder at one size: a row per variant, in story order.

        Args:
            family: the family's name.
            size: the size to show (default: the largest one timed).
        """
        summary = self.summary(family)
        timed = summary.dropna(subset=["time_median_us"])
        at = int(
            size
            if size is not None
            else (timed if len(timed) else summary)["size"].max()
        )
        rows = summary[summary["size"] == at]
        ideas = pd.DataFrame(
            [
                {
                    "variant": v["name"],
                    "idea": v["idea"],
                    "improves_on": v["improves_on"],
                }
                for v in self.context(family)["variants"]
            ]
        )
        ladder = ideas.merge(rows, on="variant", how="left")
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
        path = self.path / "report" / family / "figures" / f"{name}.{fmt}"
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
        folder = self._analysis(family)
        figures = family_figures(
            self.analysis(family),
            self.stalls(family),
            self.context(family),
            Bundle(folder).findings,
        )
        return figures[name]

    def report_file(self, family: str, fmt: str = "html", language: str = "en") -> Path:
        """The family's report (``md``, ``html``, ``json`` or ``pdf``) in ``language``."""
        path = self.path / "report" / family / f"{report_stem(language)}.{fmt}"
        _exists(path)
        return path

    def _analysis(self, family: str) -> Path:
        return self.path / "analysis" / family


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
