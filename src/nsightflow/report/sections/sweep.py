"""The report's sweep section: per swept variant, the spread, heatmap, top and invalid.

Reads the family's ``sweep_summary.csv`` and ``sweep.csv``
(:mod:`nsightflow.analysis.sweep`), handed to the builder as ``ctx["sweep"]`` (a dict
of two frames) by :func:`nsightflow.report.build.write_report`; the section is left
out when it is absent. Rates at the best configuration are read against the measured
ceilings by the family's regime (the ridge point), as everywhere in the report.
"""

import json
import math
from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.i18n.markup import code_span
from nsightflow.report.sections.common import SectionBase, table
from nsightflow.report.sections.quantities import size_text
from nsightflow.report.text import plain

TOP = 5  # rows of the top-configurations table
EXAMPLES = 4  # configuration ids listed per reason
NOISE = 1.02  # default / best below this: the same time (timing spread is ~1-2%)


def _us(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    v = float(value)
    return f"{v / 1000:,.3f} ms" if v >= 1000 else f"{v:,.2f} us"


class SweepSections(SectionBase):
    """The sweep section (shown when the report was given the sweep tables)."""

    def sweeps(self) -> str:
        """Intro, then one subsection per swept variant."""
        sweep = self.ctx.get("sweep")
        if not sweep:
            return ""
        summary: pd.DataFrame = sweep["summary"]
        configs: pd.DataFrame = sweep[col.CONFIGS]
        parts = []
        measured = summary[summary[col.CONFIGS] > 0]
        if not measured.empty:
            parts.append(self._sweep_intro(measured.iloc[0]))
        for _, row in summary.iterrows():
            mine = configs[configs[col.VARIANT] == row[col.VARIANT]]
            parts.append(self._sweep_variant(row, mine))
        return "\n\n".join(parts)

    def _sweep_intro(self, row: pd.Series) -> str:
        strategy = str(row[col.STRATEGY])
        how = (
            T("sweep_strategy_exhaustive")
            if strategy == "exhaustive"
            else T(
                "sweep_strategy_kt",
                name=code_span(strategy),
                limit=int(row[col.CONFIGS]),
            )
        )
        gpu, date = row.get(col.GPU), row.get(col.DATE)
        return T(
            "sweep_intro",
            space=T(f"sweep_space_{row['space']}"),
            sizes=", ".join(size_text(n) for n in json.loads(str(row[col.SIZES]))),
            strategy=how,
            gpu=plain(gpu) if isinstance(gpu, str) else T("unknown_gpu"),
            date=plain(date) if isinstance(date, str) else "?",
        )

    def _sweep_variant(self, row: pd.Series, configs: pd.DataFrame) -> str:
        variant = str(row[col.VARIANT])
        if row[col.STATUS] == Status.NOT_RECORDED or configs.empty:
            params = self.variants.get(variant, {}).get(col.PARAMS) or {}
            config = "_".join(f"{k}{v}" for k, v in params.items()) or "?"
            return T("sweep_not_recorded", variant=variant, config=config)
        head = "### " + T("h_sweep_variant", variant=variant, n=len(configs))
        if row[col.STATUS] != Status.OK:
            return (
                head
                + "\n\n"
                + T(
                    "sweep_none_valid", variant=variant, message=plain(row[col.MESSAGE])
                )
                + "\n\n"
                + self._sweep_invalid(configs)
            )
        sizes = [int(n) for n in json.loads(str(row[col.SIZES]))]
        parts = [
            head,
            self._sweep_spread(row, configs, sizes) + self._fastest_at_key(configs),
            self._sweep_verdict(row),
        ]
        parts.append(
            f"![{T('fig_sweep', variant=variant)}](figures/sweep/{variant}.png)"
        )
        parts += [
            T("sweep_top"),
            self._sweep_top(configs, sizes),
            self._sweep_invalid(configs),
        ]
        parts.append(
            T(
                "sweep_cost",
                compile=_num(row[col.COMPILE_WALL_S], 1),
                wall=_num(row[col.SWEEP_WALL_S], 1),
                per_config=_num(row[col.PER_CONFIG_S], 2),
                resumed=int(row[col.RESUMED]) if pd.notna(row[col.RESUMED]) else 0,
                restarts=int(row[col.RESTARTS]) if pd.notna(row[col.RESTARTS]) else 0,
            )
        )
        return "\n\n".join(parts)

    def _sweep_spread(
        self, row: pd.Series, configs: pd.DataFrame, sizes: list[int]
    ) -> str:
        best = configs[configs[col.IS_BEST].astype(bool)].iloc[0]
        n = max(sizes)
        default = row[col.DEFAULT_OVER_BEST]
        return T(
            "sweep_spread",
            best=row[col.BEST_ID],
            rate=self._sweep_rate(best, n),
            n=size_text(n),
            sizes=", ".join(size_text(s) for s in sizes),
            best_us=_us(row[col.BEST_US]),
            median_us=_us(row[col.MEDIAN_US]),
            worst_us=_us(row[col.WORST_US]),
            worst_ratio=float(row[col.WORST_OVER_BEST]),
            default=row[col.DEFAULT_ID],
            default_ratio=float(default) if pd.notna(default) else float("nan"),
        )

    def _fastest_at_key(self, configs: pd.DataFrame) -> str:
        """Where another configuration is faster at the report's size than the best.

        The best is ranked over every swept size; the other sections compare at one
        (SGEMM v4: the best over n = 4096, 8192 takes 8,245 us at 4096, where the
        default takes 8,190 us).
        """
        n, column = self.key_size, f"time_us_{self.key_size}"
        timed = configs.dropna(subset=[column]) if column in configs else configs[:0]
        best = timed[timed[col.IS_BEST].astype(bool)]
        if best.empty:
            return ""
        fastest = timed.sort_values(column, kind="stable").iloc[0]
        mine = float(best[column].iloc[0])
        if bool(fastest[col.IS_BEST]) or not mine > 0:
            return ""
        return " " + T(
            "sweep_fastest_at_key"
            if mine / fastest[column] >= NOISE
            else "sweep_tie_at_key",
            n=size_text(n),
            config=fastest[col.CONFIG_ID],
            us=float(fastest[column]),
            best_us=mine,
        )

    @staticmethod
    def _sweep_verdict(row: pd.Series) -> str:
        ratio = row[col.DEFAULT_OVER_BEST]
        if pd.isna(ratio):
            return T("sweep_no_default")
        if ratio < NOISE:
            return T("sweep_default_best", ratio=float(ratio))
        return T("sweep_default_gain", gain=100 * (1 - 1 / ratio), ratio=float(ratio))

    def _sweep_rate(self, config: pd.Series, n: int) -> str:
        """GFLOP/s or GB/s of a configuration at ``n`` against the measured ceiling."""
        gflops, gbps = config.get(f"gflops_{n}"), config.get(f"gbps_{n}")
        c = self.ctx["ceilings"]
        if pd.isna(gflops) or pd.isna(gbps) or not gbps:
            return T("sweep_rate_time", us=_us(config.get(f"time_us_{n}")))
        if self._sweep_compute_bound(float(gflops) / float(gbps)) and c.get(
            col.FP32_GFLOPS
        ):
            # the vendor library the manifest names as its ceiling (cuBLAS for SGEMM)
            library = self.fam.get("vendor")
            vendor = c.get(f"vendor_{library}_gflops") if library else None
            tail = (
                T("sweep_rate_vendor", pct=100 * float(gflops) / vendor)
                if vendor
                else ""
            )
            pct = 100 * float(gflops) / c[col.FP32_GFLOPS]
            return T("sweep_rate_compute", gflops=float(gflops), pct=pct, vendor=tail)
        if c.get(col.COPY_GBPS):
            pct = 100 * float(gbps) / c[col.COPY_GBPS]
            return T("sweep_rate_memory", gbps=float(gbps), pct=pct)
        return T("sweep_rate_time", us=_us(config.get(f"time_us_{n}")))

    def _sweep_compute_bound(self, ai: float) -> bool:
        """Whether arithmetic intensity ``ai`` is past the measured ridge point."""
        c = self.ctx["ceilings"]
        if not c.get(col.COPY_GBPS) or not c.get(col.FP32_GFLOPS):
            return False
        return bool(ai > c[col.FP32_GFLOPS] / c[col.COPY_GBPS])

    def _sweep_top(self, configs: pd.DataFrame, sizes: list[int]) -> str:
        ok = configs[configs[col.STATUS] == Status.OK].sort_values(col.GEOMEAN_US)
        best = float(ok[col.GEOMEAN_US].min())
        n = max(sizes)
        rows = []
        for _, c in ok.head(TOP).iterrows():
            row: dict[str, Any] = {T("col_configuration"): f"`{c['config_id']}`"}
            for s in sizes:
                row[T("col_time_n_us", n=s)] = c.get(f"time_us_{s}")
            row[T("col_rate_at", n=size_text(n))] = self._sweep_rate(c, n)
            row[T("col_vs_best")] = float(c[col.GEOMEAN_US]) / best
            rows.append(row)
        return table(pd.DataFrame(rows))

    @staticmethod
    def _sweep_invalid(configs: pd.DataFrame) -> str:
        bad = configs[configs[col.STATUS] != Status.OK]
        if bad.empty:
            return T("sweep_all_valid")
        rows = []
        for reason, group in bad.groupby(col.STATUS, sort=False):
            ids = [f"`{i}`" for i in group[col.CONFIG_ID].head(EXAMPLES)]
            more = len(group) - EXAMPLES
            message = plain(str(group[col.MESSAGE].fillna("").iloc[0])[:160])
            rows.append(
                {
                    T("col_reason"): T(f"reason_{reason}"),
                    T("col_count"): len(group),
                    T("col_examples"): ", ".join(ids)
                    + (f" (+{more})" if more > 0 else ""),
                    T("col_message"): message,
                }
            )
        intro = T("sweep_invalid", k=len(bad), n=len(configs))
        return intro + "\n\n" + table(pd.DataFrame(rows))


def _num(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{float(value):.{digits}f}"


def config_note(variants: dict[str, Any], ctx: dict[str, Any], variant: str) -> str:
    """Which configuration a variant was measured at, for its step section.

    Args:
        variants: The report's variants by name (their ``params`` in force).
        ctx: The report context (``sweep`` when the family was swept).
        variant: The variant's name.

    Returns:
        A sentence naming the configuration and whether it is the sweep's best; ""
        for a variant without params.
    """
    params = variants.get(variant, {}).get(col.PARAMS) or {}
    if not params:
        return ""
    best = None
    sweep = ctx.get("sweep")
    if sweep:
        s = sweep["summary"]
        hit = s[(s[col.VARIANT] == variant) & (s[col.STATUS] == Status.OK)]
        best = hit.iloc[0][col.BEST_ID] if not hit.empty else None
    config = "_".join(f"{k}{v}" for k, v in params.items())
    how = "sweep_config_best" if best == config else "sweep_config_default"
    return T("sweep_config_note", how=T(how), config=config)
