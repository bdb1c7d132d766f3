"""The brief's regime words: the roofline's, or *under the roofs* at a unit's peak.

The regime is the roofline's (DRAM, L2, the FP32 rate). A variant below every line
of it while a unit the roofline does not draw runs near its peak (SGEMM ``v0``-``v4``:
L1/shared at 73-99%; hotatomic: one L2 slice) is bound by that unit's throughput, so
the brief says *under the roofs* where the roofline alone would say latency-bound.
"""

from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.record import render
from nsightflow.diagnosis.stand import regime_brief, regime_cell
from nsightflow.i18n import T
from nsightflow.report.sections.common import SectionBase


class RegimeSections(SectionBase):
    """The regime cell of the ladder, the result sentence's regime and its note."""

    def _unit_bound(self, name: str, n: int) -> bool:
        """Under every roof, while a unit the roofline does not draw is at its peak.

        The roofline alone calls such a variant latency-bound; SGEMM ``v2`` runs
        L1/shared at 99% of its peak (its conflict replays), hotatomic's variants
        queue on one L2 slice: bound by that unit's throughput, not by latency.
        """
        return any(
            r[col.ROLE] == "primary" and r[col.RULE] == "stand_latency_unit"
            for r in self.found("stand", name, n)
        )

    def _regime_cell(self, name: str, r: dict[str, Any]) -> str:
        """The ladder's regime cell: the roofline's, or under its roofs (a unit)."""
        unit = self._unit_bound(name, self.key_size)
        return T("regime_short_unit") if unit else render("", regime_cell(r))

    def _regime_text(self, name: str, n: int, r: dict[str, Any]) -> str:
        """The result sentence's regime: the roofline's, or under its roofs."""
        unit = self._unit_bound(name, n)
        return T("regime_unit") if unit else render("", regime_brief(r))

    def _regime_note(self) -> list[str]:
        """What the regime column reads, where a row is under the roofs at a unit."""
        near = [f"`{v}`" for v in self.variants if self._unit_bound(v, self.key_size)]
        if not near:
            return []
        return ["", T("ladder_regime_note", variants=", ".join(near))]
