"""The brief's "what next" and the library line beside its result.

"What next" lists, for each input's best variant the author wrote, its suggestions
(findings.csv section ``advice``: :mod:`nsightflow.diagnosis.suggest`), one item per
mechanism, ranked by the bounded gain: the item is written at the size where the
gain is largest and names the other sizes where the same change helps. Each item
ends with its confidence: how often a suggestion of that kind matched the next
step's primary change over the bundled ladders (:data:`confidence.RECORD`, written by
``scripts/advice_scorecard.py``). Where the variant has no suggestion it is at its
floor once the launch's fixed cost is counted, and the brief says so with the
numbers. A library variant (cuBLAS, CuPy) is never given advice: it is the line to
reach, shown under the result.
"""

import json
import math
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.floors import (
    Fixed,
    basis_message,
    fastest,
    fixed_basis,
    floor_of,
    launch_floors,
    with_fastest,
)
from nsightflow.diagnosis.launch_model import LaunchModel, family_model, on_model
from nsightflow.diagnosis.model import records
from nsightflow.diagnosis.record import render, render_row
from nsightflow.diagnosis.scoring import PAID
from nsightflow.diagnosis.scoring import paid as scored_paid
from nsightflow.diagnosis.serial import with_growth, with_rate
from nsightflow.i18n import T
from nsightflow.report.sections.confidence import confidence, record
from nsightflow.report.sections.library_target import LibraryTarget
from nsightflow.report.sections.library_target import names as _names
from nsightflow.report.sections.library_target import num as _num
from nsightflow.report.sections.quantities import pct_text, size_text, us_text

MAX_NEXT = 3  # items of "what next"


def _lower(name: str) -> str:
    """A cause's name inside a sentence: ``Too few bytes`` -> ``too few bytes``.

    An acronym such as ``MIO`` keeps its case.
    """
    if len(name) > 1 and name[0].isupper() and name[1].islower():
        return name[0].lower() + name[1:]
    return name


class NextSections(LibraryTarget):
    """What next for the best own variant of each input, and its library target."""

    def _next(self, heads: list[dict[str, Any]]) -> list[str]:
        """At most MAX_NEXT ranked items over the inputs' best variants."""
        if not heads:
            return [T("next_none")]
        items: list[tuple[float, str]] = []
        for head in heads:
            items += self._items(str(head[col.VARIANT]))
        if not items:
            texts = [
                self._at_floor(str(h[col.VARIANT]), int(h[col.SIZE])) for h in heads
            ]
            found = [t for t in texts if t]
            return [T("next_title"), "", *found] if found else []
        items.sort(key=lambda x: -x[0])
        ranked = [f"{i}. {text}" for i, (_, text) in enumerate(items[:MAX_NEXT], 1)]
        return [T("next_title"), "", *ranked]

    def _items(self, variant: str) -> list[tuple[float, str]]:
        """One item per mechanism: its best size's text, the other sizes named."""
        found = [r for r in self.found("advice", variant) if r[col.RULE] == "advice"]
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for r in found:
            by_kind.setdefault(str(r[col.METRIC]), []).append(r)
        scores = record()
        out = []
        for kind, rows in by_kind.items():
            # a grid too small is told at its largest such size (where the fix is
            # least obvious), the others at the size of their largest gain
            rows.sort(
                key=lambda r: (
                    -int(r[col.SIZE]) if kind == "grid_too_small" else 0,
                    -_num(r[col.EXPECTED_GAIN]),
                )
            )
            best, others = rows[0], rows[1:]
            params = json.loads(str(best[col.PARAMS]))
            params["n"] = size_text(int(best[col.SIZE]))
            basis = params.get(col.BASIS)
            if isinstance(basis, dict) and "n" in basis:
                basis["n"] = size_text(basis["n"])
            if params.get("floor_n"):
                params["floor_n"] = size_text(params["floor_n"])
            text = render("advice", sized(params))
            if others:
                text += T("advice_also", sizes=self._sizes(others))
            gain = max(_num(r[col.EXPECTED_GAIN]) for r in rows)
            out.append((gain, text + confidence(kind, scores)))
        return out

    def _sizes(self, rows: list[dict[str, Any]]) -> str:
        """``n = 256 (up to 2.47x), 1024 (up to 1.88x)``: the other sizes by size."""
        rows = sorted(rows, key=lambda r: int(r[col.SIZE]))
        out = []
        for r in rows:
            fix = json.loads(str(r[col.PARAMS])).get("fix") or {}
            n, gain = size_text(int(r[col.SIZE])), _num(r[col.EXPECTED_GAIN])
            out.append(
                T("advice_size_blocks", n=n, blocks=fix["blocks"], gain=gain)
                if "blocks" in fix
                else T("advice_size", n=n, gain=gain)
            )
        return ", ".join(out)

    def _floors(self) -> pd.DataFrame:
        """The analysis with the slice atomics' time that grows with n, as the findings.

        The table the fixed cost and the launch floor are read from
        (:func:`nsightflow.diagnosis.floors.fixed_basis`), built once.
        """
        if not hasattr(self, "_floor_table"):
            self._floor_table = with_growth(with_rate(self.a), self.variants)
        return self._floor_table

    def _fixed(self, variant: str) -> Fixed:
        """The fixed cost of ``variant``'s input, as the findings read it."""
        return fixed_basis(self._floors(), variant)

    def _at_floor(self, variant: str, n: int) -> str:
        """The best variant has nothing to gain above the noise: its floor, in numbers."""
        r = self.row(variant, n)
        roof = _num(r.get("roof_time_us"))
        if math.isnan(roof):
            return ""
        sizes = sorted(set(self.a[col.SIZE].dropna().astype(int)))
        big = self.row(variant, sizes[-1])
        model = self._model()
        if model is not None:
            return self._at_model(variant, n, on_model(r, model), model)
        fixed = self._fixed(variant)
        best, launch = fastest(self.a), launch_floors(self._floors())
        floor, _ = floor_of(with_fastest(r, best, launch), fixed.us)
        # "nothing left" is said against the ideal time plus the fixed cost bounded
        # at every size, not against a measured time that may itself be above it
        # (reduction v4 at 2^24: its own 19.8 us, where 15.9 + 0.44 us is 16.4 us)
        gap = _num(r.get(col.TIME_MEDIAN_US)) / max(floor, roof + fixed.us)
        if gap > PAID:
            return self._done_gap(variant, n, gap)
        return T(
            "next_at_floor",
            variant=variant,
            n=size_text(n),
            time=us_text(r.get(col.TIME_MEDIAN_US)),
            roof=us_text(roof),
            ceiling=T(f"ceiling_{r.get('regime_ceiling') or 'copy_bw'}"),
            fixed=us_text(fixed.us),
            basis=render("advice", basis_message(fixed, size_text(fixed.size))),
            big=size_text(sizes[-1]),
            pct=pct_text(big.get(col.REGIME_CEILING_PCT)),
        )

    def _model(self) -> LaunchModel | None:
        """The family's per-launch model, as the findings read it (None: none)."""
        names = self.a[col.VARIANT].dropna().unique()
        rows = {str(v): records(self.a[self.a[col.VARIANT] == v]) for v in names}
        return family_model(rows)

    def _at_model(
        self, variant: str, n: int, r: dict[str, Any], model: LaunchModel
    ) -> str:
        """Nothing left on the family's per-launch model, or what its gap is."""
        floor = _num(r.get("roof_time_us")) + model.fixed.us
        gap = _num(r.get(col.TIME_MEDIAN_US)) / floor
        if gap > PAID:
            return self._done_gap(variant, n, gap)
        lo, hi = sorted((model.line.size, model.line.other))
        return T(
            "next_at_floor_model",
            variant=variant,
            n=size_text(n),
            time=us_text(r.get(col.TIME_MEDIAN_US)),
            mb=_num(r.get("ideal_bytes")) / 1e6,
            gbps=model.line.gbps,
            lo=size_text(lo),
            hi=size_text(hi),
            pct=100.0 * model.line.ratio,
            stream=_num(r.get("roof_time_us")),
            beyond=_num(r.get(col.TIME_MEDIAN_US)) - _num(r.get("roof_time_us")),
            launch=model.fixed.us,
            by=model.variant,
        )

    def _passes(self, variant: str, n: int) -> list[dict[str, Any]]:
        """The variant's launches at ``n`` that each cover the data, in launch order.

        A launch covers the data where its grid has at least one block per SM.
        """
        runs = (self.ctx.get("launches") or {}).get(variant, {}).get(str(n)) or []
        out = []
        for r in sorted(runs, key=lambda r: int(r[col.LAUNCH])):
            row = r.get("row") or {}
            if _num(row.get("grid_blocks")) >= _num(row.get("sm_count")):
                out.append({**row, col.KERNEL: r[col.KERNEL]})
        return out

    def _single_pass(self, variant: str, n: int, gap: float) -> str:
        """A multi-pass best variant: the one-pass floor, its bytes at the copy rate.

        Scan v3 at 2^24 runs two passes over the data (its reduce and scan kernels)
        and moves 178 MB from DRAM where reading and writing each element once is
        134 MB (8n): a single pass (decoupled look-back) is bounded by 134 MB at the
        measured copy bandwidth.
        """
        passes = self._passes(variant, n)
        r = self.row(variant, n)
        ideal, moved = _num(r.get("ideal_bytes")), _num(r.get("dram_bytes"))
        copy = _num((self.ctx.get("ceilings") or {}).get(col.COPY_GBPS))
        if len(passes) < 2 or not (ideal > 0 and moved > ideal and copy > 0):
            return ""
        one = ideal / copy / 1e3  # us
        fixed = self._fixed(variant)
        return T(
            "next_single_pass",
            variant=variant,
            n=size_text(n),
            gap=gap,
            passes=len(passes),
            kernels=_names([str(p[col.KERNEL]) for p in passes]),
            moved=moved / 1e6,
            ideal=ideal / 1e6,
            copy=copy,
            one=one,
            gain=_num(r.get(col.TIME_MEDIAN_US)) / (one + fixed.us),
            fixed=fixed.us,
            basis=render("advice", basis_message(fixed, size_text(fixed.size))),
        )

    def _done_gap(self, variant: str, n: int, gap: float) -> str:
        """Above its floor, but what its limiter's remedy asks for is already there."""
        stand = [r for r in self.found("stand", variant, n) if r[col.ROLE] == "primary"]
        params = json.loads(str(stand[0][col.PARAMS])) if stand else {}
        limiter = params.get("limiter") or {}
        label = limiter.get("label") if isinstance(limiter, dict) else None
        several = self._single_pass(variant, n, gap)
        if several:
            # the compiler facts pool every launch's SASS: they say nothing of one pass
            return several
        compiled = self.variants[variant].get("compiler") or {}
        return T(
            "next_done_gap",
            variant=variant,
            n=size_text(n),
            gap=gap,
            cause=_lower(render("advice", label)) if isinstance(label, dict) else "",
            bits=int(compiled.get("ldg_bits") or 0),
            loads=int(compiled.get("global_loads") or 0),
            occupancy=pct_text(self.row(variant, n).get("achieved_occupancy_pct")),
        )

    def advice_scores(self) -> str:
        """The appendix's score: each step's primary change against the advice.

        One sentence a step (its findings.csv row as written), after the hit count
        over the steps that paid.
        """
        found = [r for r in self.found("advice") if r[col.RULE] == "advice_score"]
        if not found:
            return T("advice_score_none")
        paid = [
            r
            for r in found
            if scored_paid(_num(r[col.ACHIEVED_GAIN]), str(r[col.METRIC]))
        ]
        hits = sum(bool(json.loads(str(r[col.PARAMS])).get("hit")) for r in paid)
        intro = T("advice_score_intro", hits=hits, steps=len(paid))
        failed = sum(
            "advice_score_tried_failed" in str(r[col.PARAMS])
            for r in found
            if r not in paid
        )
        intro += T("advice_score_failed", failed=failed) if failed else ""
        return intro + "\n\n" + "\n".join(f"- {render_row(r)}" for r in found)

    def advice_all(self) -> str:
        """Every variant's suggestions at every size, as findings.csv holds them.

        The brief ranks the best own variant's; a reader looking at another rung
        finds its own here.
        """
        found = [r for r in self.found("advice") if r[col.RULE] == "advice"]
        if not found:
            return T("advice_all_none")
        return "\n".join(f"- {render_row(r)}" for r in found)


# messages nested in a suggestion whose ``n`` is a problem size (not a launch number)
SIZED = frozenset(
    {
        "advice_ideal_best",
        "advice_fix_per_launch",
        "fixed_basis_model",
        "fixed_basis_model_launch",
    }
)
SIZE_KEYS = ("n", "lo", "hi")  # the keys of a :data:`SIZED` message that are sizes


def sized(params: Any) -> Any:
    """The suggestion's message with the sizes of its :data:`SIZED` parts as 2^k."""
    if isinstance(params, list):
        return [sized(p) for p in params]
    if not isinstance(params, dict):
        return params
    out = {k: sized(v) for k, v in params.items()}
    if out.get("@") in SIZED:
        for key in (k for k in SIZE_KEYS if k in out):
            out[key] = size_text(out[key])
    return out
