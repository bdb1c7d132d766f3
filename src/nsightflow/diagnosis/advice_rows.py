"""The ``advice`` section of findings.csv: suggestions, and each step scored (pure).

Each variant the author owns gets its suggestions, and each step is scored against
the suggestions of the variant it starts from.

- ``advice`` rows (rule ``advice``), one per suggestion of
  :func:`nsightflow.diagnosis.suggest.variant_suggestions`: ``metric`` the mechanism,
  ``value`` and ``expected_gain`` the bounded gain, ``threshold`` the noise it
  exceeds, ``before`` the time and ``after`` the floor (us), ``share_of_change`` the
  share of the launch the mechanism takes;
- ``advice_score`` rows, one per step and profiled size where the step has a primary
  change: ``metric`` that change, ``achieved_gain`` the step's speedup at the size,
  ``expected_gain`` the matching suggestion's gain (empty: no suggestion matched);
  its params say whether it was a hit and at which rank.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.advice import aggregation_how
from nsightflow.diagnosis.advice_scores import (
    UNSCORED,
    limit_cell,
    mechanism,
    score,
    score_finding,
)
from nsightflow.diagnosis.expected import REGRESSION
from nsightflow.diagnosis.floors import (
    Fixed,
    basis_message,
    fastest,
    fixed_basis,
    launch_floors,
    with_fastest,
    with_library,
)
from nsightflow.diagnosis.launch_model import LaunchModel, family_model, on_model
from nsightflow.diagnosis.model import num, ok, records
from nsightflow.diagnosis.record import Finding, Where, msg, place
from nsightflow.diagnosis.suggest import Suggestion, variant_suggestions
from nsightflow.diagnosis.tried import Side

NOISE_STEP = 1.05  # a step within 5% of no change changed nothing measurable


def item_key(s: Suggestion, fixed: float, model: bool = False) -> str:
    """The sentence of a suggestion: how its floor was found.

    A floor set by a library variant's measured time is said against the ideal
    time at the ceiling, except where that ceiling is the same library at this
    size (SGEMM at n = 512: cuBLAS's 63.5 us is the ceiling's ideal time, and
    "below the 74.5 us of that time plus the overhead" compares it with itself).
    """
    if s.kind == "temporal_blocking":
        return "advice_item_sweeps"
    if not s.floor_by and model:  # the family's per-launch model: launch_model
        return "advice_item_model"
    if not s.floor_by:  # a floor at the stream's marginal rate: ideal_gap.gap_bound
        return "advice_item" + "_per_launch" * ("advice_fix_per_launch" in str(s.fix))
    if s.floor_n:
        return "advice_item_launch"
    ideal = s.model_us - fixed
    if math.isfinite(ideal) and math.isclose(ideal, s.floor_us, rel_tol=1e-6):
        return "advice_item_library"
    return "advice_item_measured" + "_model" * model


def gain_text(s: Suggestion) -> dict[str, Any]:
    """The gain as said: up to the floor's, or about the cause's share's.

    A cause's share of the launch is an estimate, not a bound (hotatomic: achieved /
    predicted, median 2.25); the floor and an FP32 kernel's idle issue slots bound it.
    """
    cap = s.time_us / s.floor_us if s.floor_us > 0 else math.nan
    if math.isnan(cap) or s.gain >= cap * (1 - 1e-9):
        return msg("gain_up_to", gain=s.gain)
    if "fix_issue_bound_work_fp32" in str(s.fix):  # bounded by the idle issue slots
        return msg("gain_idle", gain=s.gain, cap=cap)
    return msg("gain_about", gain=s.gain, cap=cap)


def advice_finding(
    s: Suggestion,
    fixed: float,
    basis: Fixed | None = None,
    model: LaunchModel | None = None,
) -> Finding:
    """One suggestion as a finding; ``basis``: the launch the fixed cost is.

    ``model``: the family's per-launch model, where its floors are on it.
    """
    key = item_key(s, fixed, model is not None)
    said = basis_message(basis or Fixed(fixed), why=key == "advice_item")
    return Finding(
        "advice",
        params={
            "@": key,
            "by": s.floor_by,
            col.VARIANT: s.variant,
            "n": s.size,
            "cause": mechanism(s.kind),
            "fix": dict(s.fix),
            "gain": s.gain,
            "gain_text": gain_text(s),
            "time": s.time_us,
            "floor": s.floor_us,
            "model": s.model_us,
            "floor_n": s.floor_n,
            "fixed": fixed,
            col.BASIS: model.basis(key.endswith("_model")) if model else said,
        },
        metric=s.kind,
        value=s.gain,
        threshold=s.noise,
        before=s.time_us,
        after=s.floor_us,
        share=s.share,
        expected_gain=s.gain,
    )


def l2_size(table: pd.DataFrame) -> float:
    """The GPU's L2 size in bytes as ncu reported it (NaN: no profiled launch)."""
    if "l2_bytes" not in table or table["l2_bytes"].dropna().empty:
        return math.nan
    return float(table["l2_bytes"].dropna().max())


def sm_count(table: pd.DataFrame) -> float:
    """The GPU's SM count as ncu measured it (NaN: no profiled launch)."""
    if "sm_count" not in table or table["sm_count"].dropna().empty:
        return math.nan
    return float(table["sm_count"].dropna().max())


class AdviceRows:
    """The advice and score rows of one family (see the module docstring).

    Args:
        table: The analysis facts (one row per variant and size).
        ctx: ``context.json``.
        rows: The findings placed so far (the steps' primary rows are read).
        hotspots: ``hotspots.csv`` (the hottest line of each launch), if any.
    """

    def __init__(
        self,
        table: pd.DataFrame,
        ctx: Mapping[str, Any],
        rows: list[dict[str, Any]],
        hotspots: pd.DataFrame | None = None,
    ) -> None:
        self.table = table
        self.hotspots = hotspots
        self.ctx = ctx
        self.family = str(ctx[col.FAMILY][col.NAME])
        self.variants = {v[col.NAME]: v for v in ctx["variants"]}
        self.placed = rows
        self.fastest, self.launch = fastest(table), launch_floors(table)
        # where the manifest names a vendor library as the ceiling (SGEMM: cuBLAS),
        # the ladder's library variant's time is the ceiling at each size it ran
        library = [v[col.NAME] for v in ctx["variants"] if v.get("library")]
        vendor = ctx[col.FAMILY].get("vendor")
        self.library = (
            fastest(table[table[col.VARIANT].isin(library)])
            if vendor and library
            else {}
        )
        self.by_variant: dict[str, list[Suggestion]] = {}
        # one per-launch model for every floor where a stream beats the copy rate
        self.model = family_model(
            {n: records(table[table[col.VARIANT] == n]) for n in self.variants}
        )

    def _rows(self, name: str) -> list[dict[str, Any]]:
        part = self.table[self.table[col.VARIANT] == name].sort_values(col.SIZE)
        best, launch, lib = self.fastest, self.launch, self.library
        return [
            on_model(with_library(with_fastest(r, best, launch), lib), self.model)
            for r in records(part)
        ]

    def run(self) -> list[dict[str, Any]]:
        """Every advice row, then every score row."""
        out: list[dict[str, Any]] = []
        sms = sm_count(self.table)
        for name, v in self.variants.items():
            # of its own input's launches, or the family's per-launch model
            basis = self.model.fixed if self.model else fixed_basis(self.table, name)
            found = variant_suggestions(
                self._rows(name),
                v,
                sms,
                basis.us,
                self.ctx[col.FAMILY],
                self._hot(name),
                l2_size(self.table),
                self.ctx.get("launches") or {},
            )
            self.by_variant[name] = found
            for s in found:
                where = Where(self.family, name, s.size, "advice")
                found_s = advice_finding(s, basis.us, basis, self.model)
                out += place(where, [found_s])
        for name, v in self.variants.items():
            before = v.get(col.IMPROVES_ON)
            if before and not v.get("library") and before in self.variants:
                out += self._scores(name, str(before))
                out += self._compiler_did(name, str(before))
        return out + self._local_arrays()

    def _local_arrays(self) -> list[dict[str, Any]]:
        """Where local memory is a cause, what ptxas built: a local array or a spill.

        One ``info`` row beside each primary ``local_memory`` row of the baseline and
        step sections, for the variant whose local memory it is (the step's previous
        variant where the step removed it).
        """
        out: list[dict[str, Any]] = []
        for r in self.placed:
            if r[col.ROLE] != "primary" or r[col.RULE] != "local_memory":
                continue
            if r[col.SECTION] not in ("baseline", "step"):
                continue
            owner = str(r[col.STEP_OF] or r[col.VARIANT])
            found = local_finding(owner, self.variants.get(owner, {}), r.get(col.LINE))
            if found is None:
                owner = str(r[col.VARIANT])
                found = local_finding(owner, self.variants[owner], r.get(col.LINE))
            if found is not None:
                where = Where(
                    self.family,
                    str(r[col.VARIANT]),
                    int(r[col.SIZE]),
                    str(r[col.SECTION]),
                )
                out += place(replace(where, step_of=str(r[col.STEP_OF] or "")), [found])
        return out

    def _compiler_did(self, name: str, before: str) -> list[dict[str, Any]]:
        """The step's "nvcc already did it" rows, in the advice and step sections.

        At each profiled size where both variants were timed; the step section's row
        (role ``info``) is the one the step's text reads.
        """
        out: list[dict[str, Any]] = []
        for n in self.ctx[col.FAMILY].get("profile_sizes") or []:
            t0, t1 = self._time(before, int(n)), self._time(name, int(n))
            if not ok(t0) or not ok(t1) or t1 <= 0:
                continue
            did = compiler_did(name, before, self.variants, t0 / t1, NOISE_STEP)
            if did is None:
                continue
            for section in ("advice", "step"):
                where = Where(self.family, name, int(n), section, before)
                out += place(where, [did])
        return out

    def _hot(self, name: str) -> dict[int, dict[str, Any]]:
        """Per size, the variant's hottest source line over its launches."""
        h = self.hotspots
        if h is None or h.empty or col.SHARE not in h:
            return {}
        part = h[h[col.VARIANT] == name]
        out: dict[int, dict[str, Any]] = {}
        for size, rows in part.groupby(col.SIZE):
            top = rows.sort_values(col.SAMPLES, ascending=False).iloc[0]
            out[int(str(size))] = {str(k): v for k, v in top.items()}
        return out

    def _primary(self, name: str, n: int) -> str:
        for r in self.placed:
            if (
                r[col.SECTION] == "step"
                and r[col.VARIANT] == name
                and r[col.SIZE] == n
                and r[col.ROLE] == "primary"
            ):
                return str(r[col.RULE])
        return ""

    def _row(self, name: str, n: int) -> dict[str, Any] | None:
        part = self.table[
            (self.table[col.VARIANT] == name) & (self.table[col.SIZE] == n)
        ]
        return None if part.empty else {str(k): v for k, v in part.iloc[0].items()}

    def _time(self, name: str, n: int) -> float:
        part = self.table[
            (self.table[col.VARIANT] == name) & (self.table[col.SIZE] == n)
        ]
        if part.empty:
            return math.nan
        return num({str(k): v for k, v in part.iloc[0].items()}, col.TIME_MEDIAN_US)

    def _side(self, name: str, n: int) -> Side | None:
        """The variant at ``n`` as a step's diff reads it (None: not measured)."""
        row = self._row(name, n)
        if row is None:
            return None
        runs = (self.ctx.get("launches") or {}).get(name, {}).get(str(n)) or []
        compiled = self.variants[name].get("compiler") or {}
        return Side(row, compiled, max(len(runs), 1))

    def _scores(self, name: str, before: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if re.search(REGRESSION, str(self.variants[name].get(col.IDEA) or ""), re.I):
            return out  # meant to cost time (SGEMM v2's conflicts): no advice followed
        for n in sorted({s.size for s in self.by_variant.get(before, [])}):
            primary = self._primary(name, n)
            t0, t1 = self._time(before, n), self._time(name, n)
            x, y = self._side(before, n), self._side(name, n)
            if primary == "" or x is None or y is None or not (ok(t0) and ok(t1)):
                continue
            at_n = [s for s in self.by_variant[before] if s.size == n]
            found = score(at_n, primary, x, y)
            if t1 <= 0 or (primary in UNSCORED and found[2] is None):
                continue
            kinds = [s.kind for s in at_n]
            now = limit_cell(self.placed, name, n) if found[2] is not None else ""
            finding = score_finding(
                name, before, n, primary, t0 / t1, found, kinds, now
            )
            where = Where(self.family, name, n, "advice", before)
            out += place(where, [finding])
        return out


def local_finding(name: str, variant: Mapping[str, Any], line: Any) -> Finding | None:
    """A variant's local memory as ptxas built it, where the compiler facts know it."""
    compiled = variant.get("compiler") or {}
    kind = str(compiled.get("local") or "")
    if kind not in ("local_array", "spill"):
        return None
    try:
        at = max(0, int(float(line)))
    except (TypeError, ValueError):  # no line (NaN, empty)
        at = 0
    return Finding(
        "compiled_local_array" if kind == "local_array" else "compiled_spill",
        params={
            col.VARIANT: name,
            "frame": int(compiled.get("stack_frame_bytes") or 0),
            "spill": int(compiled.get(col.SPILL_BYTES) or 0),
            "at": msg("compiled_at_line", line=at) if at else "",
        },
        metric="stack_frame_bytes" if kind == "local_array" else col.SPILL_BYTES,
        value=float(compiled.get("stack_frame_bytes") or 0),
        line=at,
    )


def _by_source(compiled: Mapping[str, Any]) -> int:
    """Shuffles and ballots in a variant's SASS: aggregation its source writes."""
    return int(compiled.get("shuffles") or 0) + int(compiled.get("ballots") or 0)


def compiler_did(
    name: str, before: str, variants: Mapping[str, Any], speedup: float, limit: float
) -> Finding | None:
    """A step that added what nvcc had already built, and changed nothing.

    The previous variant's atomics were aggregated per warp by the compiler (an
    elected lane issues one ``RED`` with ``REDUX`` of the values or ``POPC`` of the
    lanes); the step adds warp shuffles or a ballot before its atomic and its time
    moves less than ``limit``.
    """
    a = variants[before].get("compiler") or {}
    b = variants[name].get("compiler") or {}
    if not (a.get("atomics_aggregated") and b.get("atomics")):
        return None
    if _by_source(b) <= _by_source(a):
        return None
    if not (ok(speedup) and 1 / limit < speedup < limit):
        return None
    how = aggregation_how(a)
    more_shuffles = int(b.get("shuffles") or 0) > int(a.get("shuffles") or 0)
    added = "compiler_added_shuffle" if more_shuffles else "compiler_added_ballot"
    return Finding(
        "advice_compiler_did",
        params={
            col.VARIANT: name,
            col.BEFORE: before,
            "speedup": speedup,
            "how": how,
            "added": msg(added),
        },
        metric="redux" if how["@"] == "compiler_how_redux" else "popc",
        value=speedup,
    )
