"""A step in full (the appendix's part for it) and the conclusion's findings.

Each step's appendix part shows its source diff against the variant it improves on, the key metrics
before -> after at every profiled size in the family's lens (GFLOP/s or GB/s), what
was expected against what was observed, the causes of the time change ranked (one
primary), the metrics that moved, where the new variant stands, and a verdict at the
largest profiled size. A step onto another input only says so. The conclusion closes
the report: the best variant per input, each step's outcome, what to try next. Every
diagnosis sentence is a stored finding (``findings.csv``) rendered here.
"""

import math
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis import core as diagnose
from nsightflow.diagnosis.patterns import LANES_MOVED_PCT
from nsightflow.diagnosis.per_launch import main_launch
from nsightflow.diagnosis.record import render_row
from nsightflow.diagnosis.verdict import outcome, step_verdict, threshold_pct
from nsightflow.i18n import T
from nsightflow.report.sections.common import (
    bullets,
    delta,
    diff,
    fmt,
)
from nsightflow.report.sections.hotspots import HotspotSections
from nsightflow.report.sections.quantities import size_text
from nsightflow.report.sections.sweep import config_note
from nsightflow.report.text import code_block, plain


class StepSections(HotspotSections):
    """The steps in full, for the appendix, and the conclusion."""

    def step_detail(self, name: str) -> str:
        """A step in full: its diff, every profiled size, hot lines and verdict."""
        v = self.variants[name]
        before = v[col.IMPROVES_ON]
        lines = [
            T("step_intro", before=before, status=v[col.STATUS]),
            "",
            *(
                [note, ""]
                if (note := config_note(self.variants, self.ctx, name))
                else []
            ),
            code_block(diff(self.variants[before][col.SOURCE], v[col.SOURCE]), "diff"),
        ]
        if v[col.STATUS] != Status.OK:
            message = plain(v[col.MESSAGE][:800])
            return "\n".join([*lines, "", T("not_measured", message=message)])
        if v.get(col.INPUT, "") != self.variants[before].get(col.INPUT, ""):
            found = self.said(self.found("step", name))
            return "\n".join([*lines, "", *bullets(found)])
        for n in self.profile_sizes:
            a, b = self.row(before, n), self.row(name, n)
            if a and b:
                lines += self._step_at(n, a, b)
        lines += self.hotspot_step(before, name)
        return "\n".join(lines + self._verdict(name, before))

    def step_names(self) -> list[str]:
        """The variants that are steps (they improve on another), in report order."""
        return [name for name, v in self.variants.items() if v[col.IMPROVES_ON]]

    def _step_at(self, n: int, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
        """Key metrics and diagnosis of one step at one profiled size."""
        before, name = a[col.VARIANT], b[col.VARIANT]
        lines = ["", T("key_metrics", n=size_text(n), before=before, after=name), ""]
        lines += bullets(self._deltas(a, b))
        found = self.found("step", name, n)
        if found:
            lines += ["", T("diagnosis"), ""]
            ranked = [r for r in found if r[col.ROLE] != "info"]
            facts = [r for r in found if r[col.ROLE] == "info"]
            first = ("expected_observed", "part_idle")  # said with the causes
            expected = [r for r in facts if r[col.RULE] == first[0]]
            idle = [r for r in facts if r[col.RULE] == first[1]]
            facts = [r for r in facts if r[col.RULE] not in first]
            lines += bullets(self.said(expected + ranked + idle))
            if facts:
                lines += ["", T("metrics_moved"), ""]
                lines += bullets(self.said(facts))
        stand = self.said(self.found("stand", name, n))
        if stand:
            lines += ["", *stand]
        lines += self._launch_split(name, n)
        return lines + self.rule_quotes(name, n, "WarpStateStats")

    def _launch_split(self, name: str, n: int) -> list[str]:
        """A multi-kernel variant's launches at size ``n``: kernel, share, duration."""
        runs = self.ctx.get("launches", {}).get(name, {}).get(str(n))
        if not runs:
            return []
        parts = ", ".join(
            f"`{r['kernel']}` {fmt(100 * r['time_share'], 0)}% ({fmt(r['time_us'])} us)"
            for r in runs
        )
        text = T(
            "launch_split", variant=name, count=len(runs), n=size_text(n), parts=parts
        )
        return ["", text]

    def _verdict(self, name: str, before: str) -> list[str]:
        """Whether the step paid at the largest profiled size (nothing if untimed)."""
        row = self.row(name, self.key_size)
        speedup = row.get(col.SPEEDUP_VS_PREVIOUS)
        if speedup is None or math.isnan(speedup):
            return []
        baseline = self.variants[name].get("input_baseline") or self.fam["baseline"]
        vs_baseline = (
            ""
            if before == baseline
            else T(
                "verdict_vs_baseline",
                speedup=row[col.SPEEDUP_VS_BASELINE],
                baseline=baseline,
            )
        )
        key = {
            "paid": "verdict_pays",
            "not_paid": "verdict_does_not_pay",
            "no_gain": "verdict_no_change",
        }[outcome(self.row(before, self.key_size), row) or step_verdict(speedup)]
        text = T(
            key,
            line=threshold_pct(self.row(before, self.key_size), row),
            n=size_text(self.key_size),
            speedup=speedup,
            before=before,
            vs_baseline=vs_baseline,
        )
        return ["", text]

    def conclusion(self) -> str:
        """The closing section: per input, the best variant, each step, what next."""
        lines: list[str] = []
        found = self.found("conclusion")
        if not found:
            return ""
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in found:
            groups.setdefault(r[col.VARIANT], []).append(r)
        for records in groups.values():
            texts = [render_row(r) for r in records]
            lines += [texts[0], "", *bullets(texts[1:-1]), "", texts[-1], ""]
        return "\n".join(lines).rstrip()

    def _deltas(self, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
        """Before -> after of the step's key metrics, ncu's where both were profiled."""
        out = [
            delta(
                T("delta_event_time"),
                a[col.TIME_MEDIAN_US],
                b[col.TIME_MEDIAN_US],
                " us",
            ),
            delta(T("delta_gflops"), a[col.GFLOPS], b[col.GFLOPS], " GFLOP/s", 0)
            if self.lens() == "compute"
            else delta(T("delta_bandwidth"), a[col.GBPS], b[col.GBPS], " GB/s", 0),
        ]
        if a.get("profiled") and b.get("profiled"):
            out += self._ncu_deltas(a, b)
        return out

    def _ncu_deltas(self, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
        """Before -> after of the metrics Nsight Compute measured, and the top stalls."""

        def conflicts(row: dict[str, Any]) -> float:
            return diagnose.sum_of(row, "smem_conflicts_ld", "smem_conflicts_st")

        top_a = diagnose.top_stalls(self.stalls, a[col.VARIANT], a[col.SIZE])
        top_b = diagnose.top_stalls(self.stalls, b[col.VARIANT], b[col.SIZE])
        return [
            delta(
                "ncu gpu__time_duration.sum", a["ncu_time_us"], b["ncu_time_us"], " us"
            ),
            delta(
                "dram__bytes_read.sum",
                a["dram_read_bytes"],
                b["dram_read_bytes"],
                " B",
                0,
            ),
            delta(
                "dram__bytes_write.sum",
                a["dram_write_bytes"],
                b["dram_write_bytes"],
                " B",
                0,
            ),
            *(
                [
                    delta(
                        T("delta_dram_bandwidth"),
                        a["dram_gbps"],
                        b["dram_gbps"],
                        " GB/s",
                        0,
                    )
                ]
                if self.lens() == "memory"
                else []
            ),
            delta(T("delta_conflicts"), conflicts(a), conflicts(b), "", 0),
            self._occupancy_delta(a, b),
            delta(T("delta_registers"), a[col.REGISTERS], b[col.REGISTERS], "", 0),
            *_pattern_deltas(a, b),
            T("delta_top_stalls")
            + " "
            + ", ".join(f"{t.reason} {t.cycles:.1f}" for t in top_a.itertuples())
            + " -> "
            + ", ".join(f"{t.reason} {t.cycles:.1f}" for t in top_b.itertuples()),
        ]

    def _occupancy_delta(self, a: dict[str, Any], b: dict[str, Any]) -> str:
        """The achieved occupancy, of the main kernels where a side runs several.

        A run's row averages it over its launches by time: reduction ``v2``'s 89.3%
        against 96% of its main kernel, which its step's cause quotes.
        """
        launches = self.ctx.get("launches") or {}
        x, y = main_launch(launches, a), main_launch(launches, b)
        if col.KERNEL not in x and col.KERNEL not in y:
            name = T("delta_occupancy")
        else:
            kernels = [str(r.get(col.KERNEL) or r.get(col.VARIANT)) for r in (x, y)]
            name = T("delta_occupancy_main", k0=kernels[0], k1=kernels[1])
        return delta(
            name, x["achieved_occupancy_pct"], y["achieved_occupancy_pct"], "%", 1
        )


# Key-metric lines of the ECE408 pattern metrics, shown where both sides were measured
# and the metric moved (lane efficiency by at least 5 points, counts by any amount), so
# the reports of kernels without divergence or atomics read as before.
_PATTERN_DELTAS = (
    ("delta_lane_efficiency", "lane_efficiency_pct", "%", 1, 1.0),
    ("delta_instructions", "inst_executed", " M", 2, 1e-6),
    ("delta_l2_atomics", "l2_atomic_sectors", "", 0, 1.0),
    ("delta_shared_atomics", "shared_atom_inst", "", 0, 1.0),
)


def _pattern_deltas(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Before -> after of lane efficiency, instructions and atomics, where measured."""
    out = []
    for key, column, unit, digits, scale in _PATTERN_DELTAS:
        x, y = diagnose.num(a, column), diagnose.num(b, column)
        if not (diagnose.ok(x) and diagnose.ok(y)) or not (x or y):
            continue
        if column == "lane_efficiency_pct" and abs(y - x) < LANES_MOVED_PCT:
            continue
        out.append(delta(T(key), scale * x, scale * y, unit, digits))
    return out
