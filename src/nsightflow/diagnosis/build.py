"""Every finding of one family, placed: what ``findings.csv`` holds and the report renders.

:func:`family_findings` runs the rules over the analysis table (one row per variant and
size), the stall reasons and ncu's rule results, per input (variants that run on
another input than the family's baseline are compared only among themselves):

- ``headline``: per input, the fastest correct variant at the key size (the largest);
- ``sweep``: per variant, regime changes and throughput drops over the sizes;
- ``baseline``: per input baseline and profiled size, its causes ranked (one primary,
  citing its source line where one line holds most of the samples and makes the
  finding's kind of access: :mod:`nsightflow.diagnosis.lines`) and the facts of
  its launch;
- ``plan``: per input baseline, the remedies its causes imply;
- ``step``: per step and profiled size, the factors of the time change ranked (one
  primary, citing its line as the baseline's does, in the variant where its
  mechanism is larger), expected against observed, and the metrics that moved;
- ``stand``: per variant at every profiled size and the key size, where it stands;
- ``conclusion``: per input, the best variant, each step's outcome, what next.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.analysis.derived import input_column
from nsightflow.contracts import FINDINGS, Status, spreadsheet_safe
from nsightflow.contracts import columns as col
from nsightflow.contracts.bundle import Bundle
from nsightflow.contracts.tables import SWEEP
from nsightflow.diagnosis import launch_state, limiter, moves, patterns, stand, summary
from nsightflow.diagnosis.advice import TENSOR_OK, compiled_facts, tensor_allowed
from nsightflow.diagnosis.advice_rows import AdviceRows
from nsightflow.diagnosis.causes import cause_finding, of_run
from nsightflow.diagnosis.config_parts import carried_why
from nsightflow.diagnosis.lines import cite
from nsightflow.diagnosis.per_launch import LATER_LAUNCH, launch_rows, run_causes
from nsightflow.diagnosis.record import Finding, Where, frame, place
from nsightflow.diagnosis.same_code import same_code
from nsightflow.diagnosis.serial import with_growth, with_rate
from nsightflow.diagnosis.step_group import StepData, step_records
from nsightflow.diagnosis.variant_facts import bounds_registers, source_text
from nsightflow.diagnosis.verdict import outcome, threshold_pct, ties

OK = Status.OK


def facts(analysis: pd.DataFrame, stalls: pd.DataFrame) -> pd.DataFrame:
    """The analysis rows with their stall reasons as ``stall_<reason>`` columns."""
    out = analysis.copy()
    if col.INPUT in out:
        out[col.INPUT] = input_column(out[col.INPUT])
    if stalls.empty:
        return out
    wide = stalls.pivot_table(
        index=[col.VARIANT, col.SIZE],
        columns=col.REASON,
        values=col.CYCLES,
        aggfunc="first",
    )
    wide.columns = [f"stall_{c}" for c in wide.columns]
    return out.merge(wide.reset_index(), on=[col.VARIANT, col.SIZE], how="left")


class FamilyFindings:
    """The rules run over one family's analysis, group by group.

    Args:
        analysis: ``analysis.csv``.
        stalls: ``stalls.csv``.
        rules: ``rules.csv`` (ncu's rule results; may be empty).
        ctx: ``context.json``.
        hotspots: ``hotspots.csv`` (None: no line is cited).
        configs: ``sweep.csv`` (None: no step is split by configuration).
    """

    def __init__(
        self,
        analysis: pd.DataFrame,
        stalls: pd.DataFrame,
        rules: pd.DataFrame,
        ctx: Mapping[str, Any],
        hotspots: pd.DataFrame | None = None,
        configs: pd.DataFrame | None = None,
    ) -> None:
        self.variants = {v[col.NAME]: v for v in ctx["variants"]}
        # the family's slice rate, and the atomics' time that grows with n at it
        self.table = with_growth(with_rate(facts(analysis, stalls)), self.variants)
        self.rules, self.ctx = rules, ctx
        self.hotspots, self.configs = hotspots, configs
        self.family = str(ctx[col.FAMILY][col.NAME])
        profiled = self.table[self.table["profiled"].astype(bool)][col.SIZE]
        sizes = sorted(profiled.unique().tolist())
        self.profile_sizes = [int(s) for s in sizes]
        self.key_size = (
            max(self.profile_sizes)
            if self.profile_sizes
            else int(max(ctx[col.FAMILY][col.SIZES]))
        )
        self.rows: list[dict[str, Any]] = []
        self.step_primary: dict[str, str] = {}

    def row(self, variant: str, size: int) -> dict[str, Any]:
        """A variant's facts at a size (empty when absent), with its spills."""
        rows = self.table[
            (self.table[col.VARIANT] == variant) & (self.table[col.SIZE] == size)
        ]
        if rows.empty:
            return {}
        out = {str(k): v for k, v in rows.iloc[0].items()}
        out[col.COPY_GBPS] = self.ctx["ceilings"].get(col.COPY_GBPS)
        res = self.variants.get(variant, {}).get("resources", {}) or {}
        spilled = (res.get("spill_store_bytes") or 0) + (
            res.get("spill_load_bytes") or 0
        )
        out[col.SPILL_BYTES] = float(spilled)
        return out

    def inputs(self) -> dict[str, list[str]]:
        """Variant names per input, the family baseline's input first."""
        groups: dict[str, list[str]] = {}
        base = self.variants[self.ctx[col.FAMILY]["baseline"]].get(col.INPUT, "")
        groups[base] = []
        for name, v in self.variants.items():
            groups.setdefault(v.get(col.INPUT, ""), []).append(name)
        return groups

    def run(self) -> pd.DataFrame:
        """Every finding of the family, in report order."""
        for names in self.inputs().values():
            self._headline(names)
        for name in self.variants:
            self._sweep(name)
        for names in self.inputs().values():
            baseline = self.variants[names[0]].get("input_baseline", names[0])
            self._baseline(baseline)
        for name, v in self.variants.items():
            if v.get(col.IMPROVES_ON):
                self._step(name, v)
        for name in self.variants:
            self._stand(name)
        for names in self.inputs().values():
            self._conclusion(names)
        self.rows += AdviceRows(self.table, self.ctx, self.rows, self.hotspots).run()
        return frame(self.rows)

    def _ok_rows(self, names: list[str], size: int) -> list[dict[str, Any]]:
        rows = [self.row(n, size) for n in names]
        return [
            r
            for r in rows
            if r
            and r.get(col.STATUS) == OK
            and r.get(col.TIME_MEDIAN_US) == r.get(col.TIME_MEDIAN_US)
        ]

    def _best(self, names: list[str]) -> dict[str, Any] | None:
        """The fastest correct variant the author wrote (a library's only if alone)."""
        rows = self._ok_rows(names, self.key_size)
        own = [r for r in rows if not self.variants[r[col.VARIANT]].get("library")]
        rows = own or rows
        return min(rows, key=lambda r: r[col.TIME_MEDIAN_US]) if rows else None

    def _headline(self, names: list[str]) -> None:
        best = self._best(names)
        if best is None:
            return
        where = self._where(best, "headline")
        base = str(best.get("input_baseline") or self.ctx[col.FAMILY]["baseline"])
        tied = ties(best, self._ok_rows(names, self.key_size))
        self.rows += place(where, [summary.headline(best, base, tied)])

    def _where(self, row: Mapping[str, Any], section: str, step_of: str = "") -> Where:
        return Where(
            self.family,
            str(row[col.VARIANT]),
            int(row[col.SIZE]),
            section,
            step_of,
            str(row.get(col.REGIME) or ""),
        )

    def _sweep(self, name: str) -> None:
        rows = self.table[
            (self.table[col.VARIANT] == name) & (self.table[col.STATUS] == OK)
        ]
        if rows.empty:
            return
        l2 = self.ctx["ceilings"].get("l2_bytes")
        found = stand.sweep(rows, l2)
        if found:
            where = Where(self.family, name, self.key_size, "sweep")
            self.rows += place(where, found)

    def _baseline(self, name: str) -> None:
        if self.variants[name][col.STATUS] != OK:
            return
        sizes = [n for n in self.profile_sizes if self.row(name, n).get("profiled")]
        for n in sizes or [self.key_size]:
            r = self.row(name, n)
            if not r:
                continue
            runs = launch_rows(self.ctx.get("launches") or {}, r)
            run = run_causes(r, runs)
            found = [cause_finding(r, c, of_run(run)) for c in run]
            if found:  # a later launch cites no line: the lines are the main kernel's
                if found[0].rule != LATER_LAUNCH:
                    found[0] = cite(found[0], self.hotspots, r)
            else:
                found = [Finding("baseline_unprofiled", params={col.VARIANT: name})]
            info = launch_state.dram_state(r) + patterns.pattern_state(r)
            info += launch_state.occupancy_state(r)
            v = self.variants[name]
            info += launch_state.spills(v.get("resources") or {}, bounds_registers(v))
            where = self._where(r, "baseline")
            self.rows += place(where, found, primary=True)
            self.rows += place(where, info)
        key = self.row(name, max(sizes) if sizes else self.key_size)
        if key:
            v = self.variants[name]
            # the source's own register cap and shared tree, as the advice reads them
            compiled = compiled_facts(v, source_text(v), self.ctx[col.FAMILY])
            planned = stand.plan(key, compiled, self._run_causes(key))
            self.rows += place(self._where(key, "plan"), planned)

    def _step(self, name: str, v: Mapping[str, Any]) -> None:
        before = str(v[col.IMPROVES_ON])
        if v[col.STATUS] != OK or self.variants[before][col.STATUS] != OK:
            return
        if v.get(col.INPUT, "") != self.variants[before].get(col.INPUT, ""):
            r = self.row(name, self.key_size)
            if r:
                found = Finding(
                    "input_changed",
                    params={
                        col.VARIANT: name,
                        col.BEFORE: before,
                        col.INPUT: summary.input_of(r),
                        "input_before": summary.input_of(
                            self.row(before, self.key_size)
                        ),
                        "same_code": same_code(
                            self.variants, (name, before), self.row, self.key_size
                        ),
                    },
                    metric="generator_args",
                )
                self.rows += place(
                    self._where(r, "step", before), [found], primary=True
                )
            return
        done = False
        for n in self.profile_sizes:
            a, b = self.row(before, n), self.row(name, n)
            if a.get("profiled") and b.get("profiled"):
                self._step_at(name, v, a, b)
                done = True
        if not done:
            b = self.row(name, self.key_size)
            a = self.row(before, self.key_size)
            if a and b:
                found = Finding(
                    "step_time_only",
                    params={
                        "t0": a[col.TIME_MEDIAN_US],
                        "t1": b[col.TIME_MEDIAN_US],
                        "pct": moves.pct_change(
                            a[col.TIME_MEDIAN_US], b[col.TIME_MEDIAN_US]
                        ),
                    },
                    metric=col.TIME_MEDIAN_US,
                    before=a[col.TIME_MEDIAN_US],
                    after=b[col.TIME_MEDIAN_US],
                )
                self.rows += place(
                    self._where(b, "step", before), [found], primary=True
                )

    def _step_at(
        self, name: str, v: Mapping[str, Any], a: dict[str, Any], b: dict[str, Any]
    ) -> None:
        before = str(a[col.VARIANT])
        data = StepData(
            self.hotspots,
            self.rules,
            self.ctx.get("launches") or {},
            (
                str(self.variants[before].get(col.KERNEL, "")),
                str(v.get(col.KERNEL, "")),
            ),
            (self.variants[before].get(col.PARAMS) or {}, v.get(col.PARAMS) or {}),
        )
        ranked, info = step_records(a, b, v, data)
        if not ranked:
            return
        where = self._where(b, "step", before)
        self.rows += place(where, ranked, primary=True)
        if int(b[col.SIZE]) == self._step_key(name):
            self.step_primary[name] = ranked[0].rule
        self.rows += place(where, info)

    def _step_key(self, name: str) -> int:
        """The size a step's outcome is read at: the largest size both were profiled."""
        before = self.variants[name][col.IMPROVES_ON]
        both = [
            n
            for n in self.profile_sizes
            if self.row(name, n).get("profiled") and self.row(before, n).get("profiled")
        ]
        return max(both) if both else self.key_size

    def _run_causes(self, r: Mapping[str, Any]) -> list[Any] | None:
        """A profiled run's causes launch by launch (None where not profiled)."""
        if not r.get("profiled"):
            return None
        return run_causes(r, launch_rows(self.ctx.get("launches") or {}, r))

    def _limit(self, r: Mapping[str, Any]) -> Finding | None:
        """What limits the run now: its longest launch's limiter where it has several."""
        if not r.get("profiled"):
            return limiter.limit(r)
        return limiter.run_limit(r, launch_rows(self.ctx.get("launches") or {}, r))

    def _stand(self, name: str) -> None:
        if self.variants[name][col.STATUS] != OK:
            return
        for n in sorted({*self.profile_sizes, self.key_size}):
            r = self.row(name, n)
            now = self._limit(r) if r else None
            found = stand.stand(r, self._run_causes(r), now) if r else None
            if found is not None:
                extra = [now] if now is not None else []
                self.rows += place(self._where(r, "stand"), [found], primary=True)
                self.rows += place(self._where(r, "stand"), extra)

    def _conclusion(self, names: list[str]) -> None:
        best = self._best(names)
        if best is None:
            return
        steps = []
        for name in names:
            v = self.variants[name]
            before = v.get(col.IMPROVES_ON)
            if not before or self.variants[before].get(col.INPUT, "") != v.get(
                col.INPUT, ""
            ):
                continue
            r = self.row(name, self.key_size)
            if r and r.get(col.STATUS) == OK:
                prev = self.row(before, self.key_size)
                verdict = outcome(prev, r)
                why = carried_why(
                    self.configs, self.variants, (before, name), (prev, r)
                ) or self.step_primary.get(name, "")
                line = threshold_pct(prev, r)
                steps.append(({**r, col.STEP_OF: before}, why, verdict, line))
        tied = ties(best, self._ok_rows(names, self.key_size))
        run = self._run_causes(best)
        where = stand.stand(best, run)
        compiled = {
            **(self.variants[str(best[col.VARIANT])].get("compiler") or {}),
            TENSOR_OK: tensor_allowed(self.ctx[col.FAMILY]),
        }
        found = summary.conclusion(
            best, steps, where.rule if where else "", tied, compiled, run
        )
        self.rows += place(self._where(best, "conclusion"), found)


def family_findings(
    analysis: pd.DataFrame,
    stalls: pd.DataFrame,
    rules: pd.DataFrame,
    ctx: Mapping[str, Any],
    hotspots: pd.DataFrame | None = None,
    configs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``findings.csv`` of one family (see the module docstring for its groups)."""
    return FamilyFindings(analysis, stalls, rules, ctx, hotspots, configs).run()


def write_findings(analysis_dir: Path) -> pd.DataFrame:
    """Read the analysis files of one family, write ``findings.csv`` beside them."""
    bundle = Bundle(analysis_dir)
    swept = bundle.sweep if bundle.path(SWEEP.name).is_file() else None
    tables = (bundle.analysis, bundle.stalls, bundle.rules, bundle.context)
    found = family_findings(*tables, bundle.hotspots, swept)
    found = spreadsheet_safe(found)  # a spreadsheet runs no cell of it
    FINDINGS.write(found, bundle.path(FINDINGS.name))
    return found
