"""The report's first page and the bound: what a reader takes away in five minutes.

The brief gives the result of each input (best correct variant, its time, speedup,
regime and share of that regime's ceiling), one ladder table with each step's primary
cause in a few words (:mod:`nsightflow.i18n.short_causes`), the figure of times and
throughput over sizes, and at most three next steps ranked by the gain they can
bring (:mod:`nsightflow.report.sections.next_steps`). The best variant is the best
one the author wrote; a library variant stands beside it as the line to reach. The
bound section puts the family on the roofline in a few lines of
arithmetic. Numbers come from ``analysis.csv`` and the stored findings; the full
tables behind them are in the appendix.
"""

import json
import math
from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.config_parts import config_split
from nsightflow.diagnosis.record import render
from nsightflow.i18n import T
from nsightflow.i18n.markup import code_span
from nsightflow.i18n.short_causes import short_cause
from nsightflow.report.sections.by_size import fastest, spans
from nsightflow.report.sections.common import figure, table
from nsightflow.report.sections.next_steps import NextSections
from nsightflow.report.sections.overview import OverviewSections
from nsightflow.report.sections.quantities import (
    cited_line,
    code_text,
    number,
    pct_text,
    size_text,
    us_text,
)
from nsightflow.report.sections.regime import RegimeSections
from nsightflow.report.text import plain


def si_text(value: float, unit: str) -> str:
    """``335 MFLOP``, ``537 MB``: three significant digits and an SI prefix."""
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def _span(a: int, b: int) -> str:
    return size_text(a) if a == b else f"{size_text(a)}..{size_text(b)}"


def _pct(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


class BriefSections(OverviewSections, NextSections, RegimeSections):
    """The brief (result, ladder, figure, what next) and the bound in the body."""

    def brief(self) -> str:
        """The one-page brief of the family."""
        heads = self.found("headline")
        lines = [f"## {T('h_brief')}", ""]
        timed = self.a[col.TIME_MEDIAN_US].notna().any()
        results = [
            self._result(h) + self._holds(h) + self._target_line(h) for h in heads
        ] or [T("brief_none", n=size_text(self.key_size)) if timed else T("no_timings")]
        lines += "\n\n".join(results).split("\n")
        lines += ["", table(pd.DataFrame(self._ladder()), numbers=False)]
        lines += self._regime_note()
        lines += ["", figure("fig_perf_vs_size", "perf_vs_size"), ""]
        return "\n".join(lines + self._next(heads))

    def _holds(self, head: dict[str, Any]) -> str:
        """Where the best variant is not the fastest: the sizes, and who is."""
        best = str(head[col.VARIANT])
        same = self.variants[best].get(col.INPUT, "")
        names = [
            n
            for n, v in self.variants.items()
            if v.get(col.INPUT, "") == same
            and v[col.STATUS] == Status.OK
            and not v.get("library")  # the line to reach, said apart
        ]
        sizes = sorted(int(n) for n in self.fam[col.SIZES])
        found = spans(fastest(sizes, self.row, names, best))
        others = [(v, a, b) for v, a, b in found if v != best]
        if not others:
            return ""
        held = [(a, b) for v, a, b in found if v == best]
        if not held:
            return ""
        return " " + T(
            "brief_best_holds",
            variant=best,
            held=", ".join(_span(a, b) for a, b in held),
            others="; ".join(
                T("brief_best_other", n=_span(a, b), other=v) for v, a, b in others
            ),
        )

    def _target_line(self, head: dict[str, Any]) -> str:
        """The library line under a result (empty where the input has none)."""
        target = self._target(str(head[col.VARIANT]), int(head[col.SIZE]))
        return f" {target}" if target else ""

    def _input_label(self, variant: str) -> str:
        """`` (input kind=skewed)`` where the family has several inputs, else ''."""
        if len(self.inputs()) < 2:
            return ""
        label = self.variants[variant].get(col.INPUT) or ""
        text = T("input_named", label=label) if label else T("input_default")
        return T("bound_input", input=text)

    def _result(self, head: dict[str, Any]) -> str:
        """The result sentence of one input, from its headline finding."""
        variant, n = str(head[col.VARIANT]), int(head[col.SIZE])
        r = self.row(variant, n)
        regime = str(r.get(col.REGIME) or "unknown")
        params = json.loads(str(head.get(col.PARAMS) or "{}"))
        tie = params.get("tie") or ""  # a best within the noise of others ties
        rate = (
            T("rate_gflops", gflops=r.get(col.GFLOPS))
            if regime == "compute"
            else T("rate_gbps", gbps=r.get(col.GBPS))
        )
        return T(
            "brief_result",
            n=size_text(n),
            input=self._input_label(variant),
            variant=variant,
            time=us_text(r.get(col.TIME_MEDIAN_US)),
            speedup=_pct(r.get(col.SPEEDUP_VS_BASELINE)),
            baseline=self.variants[variant].get("input_baseline")
            or self.fam["baseline"],
            regime=self._regime_text(variant, n, r),
            tie=render("", tie) if isinstance(tie, dict) else "",
            pct=pct_text(r.get(col.REGIME_CEILING_PCT)),
            ceiling=T(f"ceiling_{r.get('regime_ceiling') or 'copy_bw'}"),
            rate=rate,
            vendor=_vendor_peak(r),
            limit=self._result_limit(variant, n, regime),
        )

    def _result_limit(self, variant: str, n: int, regime: str) -> str:
        """What limits a latency-bound best where a unit does (hotatomic's L2 slice).

        The roofline calls hotatomic ``v2`` latency-bound at 12% of it; what limits
        it is the one L2 slice its atomics queue on, at 92%: the result says both.
        """
        if regime != "latency" or n != self.key_size:
            return ""
        found = [
            r
            for r in self.found("stand", variant, n)
            if str(r[col.RULE]).startswith("limit_")
        ]
        if not found or found[0][col.RULE] == "limit_latency":
            return ""
        return T("brief_result_limit", limit=self._ladder_limit(variant))

    def primary(self, name: str) -> dict[str, Any] | None:
        """The primary finding of a variant: its step's, else its baseline's."""
        for section in ("step", "baseline"):
            found = [r for r in self.found(section, name) if r[col.ROLE] == "primary"]
            at_key = [r for r in found if int(r[col.SIZE]) == self.key_size]
            if at_key or found:
                return (at_key or found)[-1]
        return None

    def _ladder(self) -> list[dict[str, Any]]:
        """One row per variant: time, speedup, regime, % of ceiling, primary cause."""
        several = len(self.inputs()) > 1
        rows = []
        for name, v in self.variants.items():
            r = self.row(name, self.key_size)
            ok = v[col.STATUS] == Status.OK and not pd.isna(
                r.get(col.TIME_MEDIAN_US, math.nan)
            )
            regime = r.get(col.REGIME) if ok else None
            ceiling = r.get(col.REGIME_CEILING)
            share = (
                f"{pct_text(r.get('regime_ceiling_pct'))} "
                f"{T(f'ceiling_short_{ceiling}')}"
                if ok and isinstance(ceiling, str) and ceiling
                else ""
            )
            rows.append(
                {
                    T("col_variant"): f"`{name}`",
                    **(
                        {
                            T("col_input"): plain(v.get(col.INPUT) or "")
                            or T("input_default_short")
                        }
                        if several
                        else {}
                    ),
                    T("col_time_us", n=size_text(self.key_size)): us_text(
                        r.get(col.TIME_MEDIAN_US)
                    )
                    if ok
                    else "",
                    T("col_speedup"): f"{_pct(r.get('speedup_vs_baseline')):.2f}x"
                    if ok
                    else "",
                    T("col_regime"): self._regime_cell(name, r) if regime else "",
                    T("col_pct_ceiling"): share,
                    T("col_limits_now"): self._ladder_limit(name) if ok else "",
                    T("col_step_changed"): self._ladder_cause(name, v),
                }
            )
        return rows

    def _ladder_limit(self, name: str) -> str:
        """What limits the variant now, at the key size, in a few words."""
        found = [
            r
            for r in self.found("stand", name, self.key_size)
            if str(r[col.RULE]).startswith("limit_")
        ]
        if not found:
            return ""
        r = found[0]
        params = json.loads(str(r.get(col.PARAMS) or "{}"))
        return render(f"cell_{r['rule']}", params)

    def _ladder_cause(self, name: str, v: dict[str, Any]) -> str:
        if v[col.STATUS] != Status.OK:
            return str(v[col.STATUS])
        found = self.primary(name)
        if found is None:
            return ""
        cause = short_cause(str(found[col.RULE]))
        if found[col.SECTION] == "baseline":
            return T("ladder_baseline", cause=cause)
        prev = str(v.get(col.IMPROVES_ON) or "")
        if prev in self.variants and self._config_led(name, prev):
            return T("ladder_config", cause=cause)
        share = _pct(found.get(col.SHARE_OF_CHANGE))
        if 0 < share < HALF:  # the largest named part, not most of the change
            return T("ladder_share", cause=cause, pct=100 * share)
        return cause

    def _config_led(self, name: str, prev: str) -> bool:
        """Whether the sweep puts more of the step's change on the configuration.

        SGEMM v7: 254 of the 353 us saved by its 64x256 tiles, 92.1 by double
        buffering; the brief does not credit the code's idea with the step.
        """
        n = self.key_size
        split = config_split(
            (self.ctx.get("sweep") or {}).get(col.CONFIGS),
            name,
            self.variants[name].get(col.PARAMS) or {},
            self.variants[prev].get(col.PARAMS) or {},
            n,
        )
        t_prev = _pct(self.row(prev, n).get(col.TIME_MEDIAN_US))
        if split is None or not t_prev > 0:
            return False
        return abs(split.t_own - split.t_old) > abs(split.t_old - t_prev)

    def bound_body(self) -> str:
        """Section 1: the bound in a few lines of arithmetic, and the roofline."""
        c = self.ctx["ceilings"]
        copy, fp32 = c.get(col.COPY_GBPS), c.get(col.FP32_GFLOPS)
        head = f"## {T('h_bound')}"
        if not copy or not fp32:
            return f"{head}\n\n{T('bound_no_ceilings')}"
        n, base = self.key_size, self.fam["baseline"]
        r = self.row(base, n)
        flops, nbytes = _pct(r.get("ideal_flops")), _pct(r.get("ideal_bytes"))
        if not flops >= 0 or not nbytes > 0:  # a copy kernel has no FLOPs
            return f"{head}\n\n{T('bound_no_time', variant=base, n=size_text(n))}"
        t_mem, t_comp = nbytes / copy / 1e3, flops / fp32 / 1e3
        work = T(
            "bound_work",
            n=size_text(n),
            flops=si_text(flops, "FLOP"),
            flops_expr=code_span(str(self.fam["flops"])),
            nbytes=si_text(nbytes, "B"),
            bytes_expr=code_span(str(self.fam[col.BYTES])),
            ai=number(flops / nbytes, 2),
            ridge=fp32 / copy,
            fp32=fp32,
            copy=copy,
            bound=T("bound_memory" if t_mem > t_comp else "bound_compute"),
        )
        floors = T(
            "bound_floors",
            nbytes=si_text(nbytes, "B"),
            copy=copy,
            t_mem=us_text(t_mem),
            flops=si_text(flops, "FLOP"),
            fp32=fp32,
            t_comp=us_text(t_comp),
        )
        lines = [head, "", work, floors, ""]
        for b in self._input_baselines():
            lines.append(self._bound_baseline(b, max(t_mem, t_comp)))
        return "\n".join([*lines, "", figure("fig_roofline", "roofline")])

    def _bound_baseline(self, base: str, floor: float) -> str:
        """One input's baseline against the floor, with its largest cause."""
        n = self.key_size
        t = _pct(self.row(base, n).get(col.TIME_MEDIAN_US))
        if math.isnan(t):
            return T("bound_no_time", variant=base, n=size_text(n))
        found = [r for r in self.found("baseline", base, n) if r[col.ROLE] == "primary"]
        cause = ""
        if found and found[0][col.RULE] == "later_launch":
            cause = self._later_launch(base, n, found[0])
        elif found:
            f = found[0]
            line = cited_line(self.ctx.get("hotspots"), [base], n, f)
            where = (
                T(
                    "line_clause",
                    line=line.line,
                    variant=base,
                    code=code_text(line.code),
                    share=pct_text(100 * line.share),
                )
                if line
                else ""
            )
            cause = T(
                "bound_cause",
                cause=short_cause(str(f[col.RULE])),
                share=pct_text(100 * _pct(f[col.SHARE_OF_CHANGE])),
                line=where,
            )
        return T(
            "bound_baseline",
            variant=base,
            input=self._input_label(base),
            time=us_text(t),
            ratio=t / floor,
            cause=cause,
        )

    def _later_launch(self, base: str, n: int, f: dict[str, Any]) -> str:
        """A baseline whose largest cost is a later launch: its kernel and line.

        Reduction's second pass, ``reduce_finish`` (one block summing the partials),
        is cited at its own hottest line (``reduce_common.cuh`` line 31, its loop
        over the partials), not at the main kernel's.
        """
        params = json.loads(str(f.get(col.PARAMS) or "{}"))
        kernel = str((params.get(col.EVIDENCE) or {}).get(col.KERNEL) or "")
        hot = self.ctx.get("hotspots")
        where = ""
        if kernel and hot is not None and not hot.empty and col.KERNEL in hot:
            rows = hot[(hot[col.VARIANT] == base) & (hot[col.SIZE] == n)]
            rows = rows[(rows[col.KERNEL] == kernel) & (rows[col.LINE] > 0)]
            if not rows.empty:
                top = rows.loc[rows[col.SAMPLES].idxmax()]
                share = 100 * float(top[col.SAMPLES]) / float(rows[col.SAMPLES].sum())
                where = T(
                    "launch_line_clause",
                    line=int(top[col.LINE]),
                    file=str(top[col.FILE]),
                    code=code_text(str(top[col.SOURCE])),
                    share=pct_text(share),
                )
        return T(
            "bound_cause_launch",
            cause=short_cause("later_launch"),
            kernel=kernel,
            share=pct_text(100 * _pct(f[col.SHARE_OF_CHANGE])),
            line=where,
        )


HALF = 0.5  # a primary part under this share of its step's change says its share


def _vendor_peak(r: dict[str, Any]) -> str:
    """A vendor library's own share of the FP32 peak, where it is the ceiling.

    "94% of cuBLAS SGEMM" alone reads as 94% of what the GPU can do; cuBLAS itself
    runs at 81% of the FP32 peak measured with the run (v7's 76.4% over 94.3%).
    """
    ceiling = str(r.get(col.REGIME_CEILING) or "")
    pct, fp32 = _pct(r.get(col.REGIME_CEILING_PCT)), _pct(r.get(col.PCT_OF_FP32_PEAK))
    if not (ceiling.startswith("vendor") and pct > 0 and math.isfinite(fp32)):
        return ""
    library = T(f"ceiling_{ceiling}")
    return T("brief_vendor_peak", library=library, pct=100 * fp32 / pct)
