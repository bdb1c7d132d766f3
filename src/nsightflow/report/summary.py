"""``summary.csv``: the analysis table's headline columns, one row per variant and size.

The same in every language; light to import (pandas only), so the analyze stage
writes it in its own process (``analyze --summary``).
"""

from pathlib import Path

import pandas as pd

from nsightflow.analysis.energy import ENERGY_COLUMNS, add_energy
from nsightflow.tables import spreadsheet_safe

SUMMARY_COLUMNS = [
    "family",
    "variant",
    "size",
    "status",
    "time_median_us",
    "time_iqr_us",
    "speedup_vs_baseline",
    "speedup_vs_previous",
    "gbps",
    "gflops",
    "pct_of_copy_bw",
    "pct_of_fp32_peak",
    "input",
    "regime",
    "regime_ceiling",
    "regime_ceiling_pct",
    *ENERGY_COLUMNS,  # empty where the energy was not recorded
]


def summary_frame(analysis: pd.DataFrame) -> pd.DataFrame:
    """``summary.csv``: one row per variant and size, the columns ARCHITECTURE names."""
    return add_energy(analysis).reindex(columns=SUMMARY_COLUMNS)


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write a summary table (10 significant digits: the same file on any platform)."""
    spreadsheet_safe(frame).to_csv(path, index=False, float_format="%.10g")


def write_summary_csv(analysis_csv: Path, out: Path) -> None:
    """Write the summary of the family whose ``analysis.csv`` is ``analysis_csv``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    write_csv(summary_frame(pd.read_csv(analysis_csv)), out)
