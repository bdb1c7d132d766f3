"""The appendix's tables of the whole family: summary, sizes, bound, baseline, plan.

Each method returns the content of one appendix part, without its heading (the
builder numbers the parts, :mod:`nsightflow.report.sections.family`): every variant
at the largest profiled size, every variant over the sizes, the bound at each profiled
size, each input's baseline under Nsight Compute with its hot lines, and the plan its
diagnosis implies.
"""

import math
from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.record import render, render_row
from nsightflow.diagnosis.stand import regime_cell
from nsightflow.i18n import T
from nsightflow.report.sections.common import bullets, figure, fmt, source, table
from nsightflow.report.sections.hotspots import HotspotSections
from nsightflow.report.sections.quantities import size_text
from nsightflow.report.text import code_block, inline


class OverviewSections(HotspotSections):
    """Summary, sizes, bound table, the baselines under ncu and the plan."""

    def summary(self) -> str:
        """Every variant at the largest profiled size, in the family's lens; the result."""
        rows = [self._summary_row(name, v) for name, v in self.variants.items()]
        heads = self.said(self.found("headline"))
        return "\n\n".join(
            [
                table(pd.DataFrame(rows)),
                T("summary_rank_note") + " " + T("summary_lens_note"),
                *heads,
            ]
        )

    def _summary_row(self, name: str, v: dict[str, Any]) -> dict[str, Any]:
        """One variant's row of the summary table."""
        r = self.row(name, self.key_size)
        rate = col.GFLOPS if self.lens() == "compute" else col.GBPS
        several = len(self.inputs()) > 1
        return {
            T("col_version"): f"`{name}`",
            T("col_status"): v[col.STATUS],
            **(
                {T("col_input"): v.get(col.INPUT) or T("input_default")}
                if several
                else {}
            ),
            **{
                T("col_time_at", n=size_text(n)): self.row(name, n).get(
                    col.TIME_MEDIAN_US
                )
                for n in self.profile_sizes
            },
            T("col_speedup_vs_input"): r.get(col.SPEEDUP_VS_BASELINE),
            T("col_vs_previous"): r.get(col.SPEEDUP_VS_PREVIOUS),
            T("col_regime"): _regime_cell(r),
            T(f"col_{rate}"): r.get(rate),
            T("col_pct_ceiling"): r.get(col.REGIME_CEILING_PCT),
            T("col_ceiling"): _ceiling_word(r.get(col.REGIME_CEILING)),
            T("col_rank"): None
            if pd.isna(r.get(col.RANK, math.nan))
            else int(r[col.RANK]),
            T("col_notes"): self._note(name, v, r),
        }

    def _note(self, name: str, v: dict[str, Any], r: dict[str, Any]) -> str:
        if v.get("source_changed"):
            return T("note_source_changed")
        if v[col.STATUS] != Status.OK:
            return T("note_failed", status=v[col.STATUS])
        previous = r.get(col.SPEEDUP_VS_PREVIOUS, math.nan)
        if v[col.IMPROVES_ON] and not pd.isna(previous) and previous < 1:
            return T("note_slower", before=v[col.IMPROVES_ON])
        return inline(v[col.IDEA])

    def baseline(self) -> str:
        """Every variant's time over the size sweep, and the regimes it passes."""
        timed = self.a.dropna(subset=[col.TIME_MEDIAN_US])
        if timed.empty:
            return T("no_timings")
        times = self._times(timed)
        times[col.SIZE] = times[col.SIZE].astype(int).astype(str)
        times = times.rename(columns={col.SIZE: T("col_size")})
        s = self.ctx["provenance"].get("timing_settings", {})
        modes: dict[Any, Any] = (
            timed.groupby(col.SIZE)[col.CACHE].first().dropna().to_dict()
            if col.CACHE in timed
            else {}
        )
        method = T(
            "timing_method",
            warmup=s.get("warmup", "n/a"),
            settle=100 * float(s.get("settle_rel", 0)),
            budget=s.get("budget_s", "n/a"),
            modes=", ".join(f"{int(n)} {mode}" for n, mode in modes.items()) or "n/a",
        )
        return method + "\n\n" + table(times) + self._regimes()

    def _times(self, timed: pd.DataFrame) -> pd.DataFrame:
        """Median times, size by variant; a size the recording lacks says so."""
        absent = self.a[self.a[col.STATUS] == Status.NOT_RECORDED]
        if absent.empty:
            return timed.pivot_table(
                index=col.SIZE, columns=col.VARIANT, values=col.TIME_MEDIAN_US
            ).reset_index()
        cells = pd.concat(
            [
                timed.assign(cell=timed[col.TIME_MEDIAN_US].map("{:,.2f}".format)),
                absent.assign(cell=T("not_recorded")),
            ]
        )
        return cells.pivot_table(
            index=col.SIZE, columns=col.VARIANT, values="cell", aggfunc="first"
        ).reset_index()

    def _regimes(self) -> str:
        """Regime changes and throughput drops over each variant's sizes."""
        found = self.said(self.found("sweep"))
        return "\n\n" + "\n".join(bullets(found)) if found else ""

    def bound_table(self) -> str:
        """Ideal work, the measured ceilings and the bound at every profiled size."""
        return "\n".join(
            [
                T("ideal_work", flops=self.fam["flops"], nbytes=self.fam[col.BYTES]),
                *self._bound(),
            ]
        )

    def baseline_ncu(self) -> str:
        """Each input's baseline under Nsight Compute, its hot lines and its source."""
        base = self.fam["baseline"]
        lines: list[str] = []
        for base_of_input in self._input_baselines():
            if base_of_input != base:
                lines += ["### " + self._input_heading(base_of_input), ""]
            for n in self.profile_sizes:
                lines += self._baseline_at(base_of_input, n)
        lines += self.hotspot_baseline()
        return "\n".join(
            [
                *lines,
                figure("fig_stalls", "stalls"),
                "",
                figure("fig_bytes_by_level", "bytes_by_level"),
                "",
                T("baseline_source", variant=base),
                "",
                code_block(source(self.variants[base][col.SOURCE]), "cuda"),
            ]
        )

    def _bound(self) -> list[str]:
        """The measured ceilings and the baseline's floor times (none without ceilings)."""
        c = self.ctx["ceilings"]
        copy, fp32 = c.get(col.COPY_GBPS), c.get(col.FP32_GFLOPS)
        if not copy or not fp32:
            return []
        ceilings = T(
            "ceilings",
            copy=copy,
            fp32=fp32,
            sheet_gbps=fmt(c.get("datasheet_dram_gbps")),
            sheet_gflops=fmt(c.get("datasheet_fp32_gflops")),
            ridge=fp32 / copy,
        )
        rows = [self._bound_row(n, copy, fp32) for n in self.profile_sizes]
        return ["", ceilings, "", table(pd.DataFrame(rows))]

    def _bound_row(self, n: int, copy: float, fp32: float) -> dict[str, Any]:
        """Ideal work, floor times and the bound of the baseline at one size."""
        base = self.fam["baseline"]
        r = self.row(base, n)
        t_c = r["ideal_flops"] / fp32 / 1e3
        t_m = r["ideal_bytes"] / copy / 1e3
        return {
            T("col_n"): n,
            T("col_flops"): f"{r['ideal_flops']:,.0f}",
            T("col_bytes"): f"{r['ideal_bytes']:,.0f}",
            T("col_ai"): r["ai_ideal"],
            T("col_compute_time"): t_c,
            T("col_memory_time"): t_m,
            T("col_bound"): T("bound_memory" if t_m > t_c else "bound_compute"),
            T("col_regime_measured"): _regime_cell(r),
            T("col_measured", variant=base): r.get(col.TIME_MEDIAN_US),
            T("col_vs_floor"): r.get(col.TIME_MEDIAN_US, math.nan) / max(t_c, t_m),
        }

    def _input_baselines(self) -> list[str]:
        """The baseline of each input, the family's first."""
        out = []
        for names in self.inputs().values():
            first = self.variants[names[0]].get("input_baseline") or names[0]
            if first not in out:
                out.append(first)
        return out

    def _input_heading(self, variant: str) -> str:
        label = self.variants[variant].get(col.INPUT) or ""
        text = T("input_named", label=label) if label else T("input_default")
        return T("h_input_baseline", variant=variant, input=text)

    def _baseline_at(self, base: str, n: int) -> list[str]:
        """A baseline under Nsight Compute at one profiled size, and what limits it."""
        r = self.row(base, n)
        if not r.get("profiled"):
            return []
        facts = [
            T("ncu_time", ncu=fmt(r["ncu_time_us"]), event=fmt(r[col.TIME_MEDIAN_US])),
            T(
                "ncu_dram_bytes",
                read=r["dram_read_bytes"],
                write=r["dram_write_bytes"],
            ),
            T(
                "ncu_dram_bandwidth",
                gbps=fmt(r["dram_gbps"]),
                l2=fmt(r["l2_hit_pct"], 1),
                sectors=fmt(r["sectors_per_request"]),
            ),
            T(
                "ncu_occupancy",
                achieved=fmt(r["achieved_occupancy_pct"], 1),
                theoretical=fmt(r["theoretical_occupancy_pct"], 0),
                registers=fmt(r[col.REGISTERS], 0),
            ),
        ]
        stand = self.said(self.found("stand", base, n))
        return [
            T("at_n", n=size_text(n)),
            "",
            *bullets(facts),
            "",
            *bullets(stand + self.said(self.found("baseline", base, n))),
            *self.rule_quotes(base, n, "WarpStateStats"),
            "",
        ]

    def plan(self) -> str:
        """The remedies each baseline's diagnosis implies, largest cause first."""
        lines = [T("plan_intro"), ""]
        for base in self._input_baselines():
            items = self.found("plan", base)
            if not items:
                continue
            if len(self._input_baselines()) > 1:
                lines += [self._input_heading(base) + ":", ""]
            texts = [render_row(r) for r in items]
            lines += [f"{i}. {t}" for i, t in enumerate(texts, start=1)] + [""]
        return "\n".join(lines).rstrip()


def _regime_cell(row: dict[str, Any]) -> str:
    """The row's regime for a table cell, the brief's (:func:`~nsightflow.diagnosis.stand.regime_key`).

    A latency-bound row at its L1/shared peak reads "L1/shared" here as in the brief.
    """
    regime = row.get(col.REGIME)
    if not isinstance(regime, str) or not regime:
        return ""
    return render("", regime_cell(row))


def _ceiling_word(ceiling: Any) -> str:
    if not isinstance(ceiling, str) or not ceiling:
        return ""
    return T(f"ceiling_short_{ceiling}")
