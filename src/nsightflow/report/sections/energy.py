"""The report's energy section: time against energy per launch, or why it is missing.

Reads the analysis table's energy columns (:mod:`nsightflow.analysis.energy`); the
figure is the plot stage's ``energy.png`` (:mod:`nsightflow.plot.energy`), written
only where the energy was recorded.
"""

import pandas as pd

from nsightflow.analysis.energy import add_energy, energy_recorded
from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.i18n import T, size_text
from nsightflow.report.sections.common import SectionBase, figure, table

# energy_busy is the timed median over the energy stream's time per launch, not a
# busy fraction: below BUSY the stream had gaps between launches (host-bound); above
# OVERLAP back-to-back launches overlapped one's tail with the next's ramp-up
# (SGEMM v0 at n = 256: 1.53)
BUSY = 0.9
OVERLAP = 1.1


class EnergySections(SectionBase):
    """Energy per launch per variant (at its largest size with energy), and the figure."""

    def energy(self) -> str:
        """The section: intro, figure, table; one line where nothing was recorded."""
        head = f"## {T('h_energy')}"
        if not energy_recorded(self.a):
            return f"{head}\n\n{T('energy_not_recorded', why=T('energy_why_none'))}"
        rows = add_energy(self.a)
        rows = rows[
            (rows[col.STATUS] == Status.OK) & rows[col.ENERGY_J_PER_LAUNCH].notna()
        ]
        largest = rows.loc[rows.groupby(col.VARIANT, sort=False)[col.SIZE].idxmax()]
        frame = pd.DataFrame(
            {
                T("col_variant"): largest[col.VARIANT].map(lambda v: f"`{v}`"),
                T("col_n"): largest[col.SIZE].astype(int).astype(str),
                T("col_event_median"): largest[col.TIME_MEDIAN_US],
                T("col_energy_mj"): largest[col.ENERGY_J_PER_LAUNCH] * 1e3,
                T("col_power_w"): largest[col.ENERGY_POWER_W],
                T("col_gflop_per_j"): largest[col.GFLOP_PER_J],
                T("col_gb_per_j"): largest[col.GB_PER_J],
            }
        )
        parts = [
            head,
            T("energy_intro"),
            figure("fig_energy", "energy"),
            table(frame),
        ]
        if col.ENERGY_BUSY in rows:
            gaps = rows[pd.to_numeric(rows[col.ENERGY_BUSY], errors="coerce") < BUSY]
            which = ", ".join(
                f"`{v}` n = {size_text(int(n))}"
                for v, n in zip(gaps[col.VARIANT], gaps[col.SIZE], strict=True)
            )
            if which:
                parts.append(T("energy_busy", which=which))
            ratio = pd.to_numeric(rows[col.ENERGY_BUSY], errors="coerce")
            if (ratio > OVERLAP).any():
                top = int(ratio.to_numpy().argmax())
                variant, size = rows[col.VARIANT].iloc[top], rows[col.SIZE].iloc[top]
                where = f"`{variant}` n = {size_text(int(size))}"
                parts.append(T("energy_overlap", most=ratio.max(), where=where))
        return "\n\n".join(parts)
