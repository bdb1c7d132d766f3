"""The library line beside the brief's result: a target to reach, or one beaten.

Where an input has a library variant (cuBLAS, CuPy), the brief names its time at the
result's size: faster than the author's best (a target, with the size where it leads
most), or slower (by whom it is beaten, beyond its timing noise, and where its first
launch is as fast as the author's, what it loses in).
"""

import math
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.floors import noise
from nsightflow.i18n import T
from nsightflow.report.sections.common import SectionBase
from nsightflow.report.sections.quantities import size_text, us_text
from nsightflow.report.sections.step_notes import traced_memset, zeroed_outputs

WIDE_CV = 0.10  # a library's timing CV above which the brief says it is noisy


def num(value: Any) -> float:
    """A value as a float, NaN where it is none."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def names(names: list[str]) -> str:
    """```a```, ```a`` and ``b```, ```a``, ``b`` and ``c```: variant names in a sentence."""
    quoted = [f"`{n}`" for n in names]
    if len(quoted) < 2:
        return "".join(quoted)
    return T("names_and", head=", ".join(quoted[:-1]), last=quoted[-1])


class LibraryTarget(SectionBase):
    """The library variant of an input as the line to reach (a mixin of the brief)."""

    def _target(self, variant: str, n: int) -> str:
        """The library variant of the input as the line to reach ('' if none).

        Where the author's variants already beat the library at ``n`` it is a
        reference line, not a target: the sentence names the variants faster than
        it, and the library's timing spread where it is wide.
        """
        group = next((g for g in self.inputs().values() if variant in g), [])
        libraries = [v for v in group if self.variants[v].get("library")]
        ours = num(self.row(variant, n).get(col.TIME_MEDIAN_US))
        for lib in libraries:
            theirs = num(self.row(lib, n).get(col.TIME_MEDIAN_US))
            if math.isnan(theirs) or math.isnan(ours) or theirs <= 0:
                continue
            if theirs < ours:
                relation = T("target_faster", ratio=ours / theirs, variant=variant)
                return T(
                    "brief_target",
                    library=lib,
                    time=us_text(theirs),
                    n=size_text(n),
                    relation=relation + self._gap(variant, lib, n),
                )
            return self._beaten(variant, lib, n, theirs / ours)
        return ""

    def _beaten(self, variant: str, lib: str, n: int, ratio: float) -> str:
        """The library line the author's variants beat at ``n``: by whom, by how much."""
        r = self.row(lib, n)
        theirs = num(r.get(col.TIME_MEDIAN_US))
        group = next((g for g in self.inputs().values() if lib in g), [])
        faster = [
            v
            for v in group
            if v != lib
            and not self.variants[v].get("library")
            and num(self.row(v, n).get(col.TIME_MEDIAN_US)) < theirs
        ]
        # faster only beyond the library's timing noise (1 + max(2%, IQR / median))
        tied = [v for v in faster if theirs / self._time(v, n) <= noise(r)]
        faster = [v for v in faster if v not in tied]
        if not faster:  # the best is within the noise: not beaten
            relation = T("target_slower", ratio=ratio, variant=variant)
            return T(
                "brief_target",
                library=lib,
                time=us_text(theirs),
                n=size_text(n),
                relation=relation,
            )
        cv = num(r.get(col.CV))
        spread = T("target_spread", cv=100 * cv) if cv > WIDE_CV else ""
        return T(
            "brief_target_tied" if tied else "brief_target_beaten",
            library=lib,
            time=us_text(theirs),
            n=size_text(n),
            faster=names(faster),
            tied=names(tied),
            variant=variant,
            ratio=ratio,
            spread=spread,
            gap=self._gap(variant, lib, n) + self._memset(variant, lib, theirs, n),
        ) + self._main_pass(variant, lib, n)

    def _memset(self, variant: str, lib: str, theirs: float, n: int) -> str:
        """The memset the variant needs per call and its time leaves out, at ``n``.

        Reduction v4 at 2^24: 19.8 us timed, 20.9 us with the 1.09 us memset of
        ``S``; the library's extra launches are in its own 24.5 us.
        """
        zeroed = zeroed_outputs(self.variants, variant)
        us, at = traced_memset(self.ctx.get("timeline"), variant)
        ours = self._time(variant, n)
        if not (zeroed and us > 0 and at == n and ours > 0):
            return ""
        ratio = theirs / (ours + us)
        relation = (
            T("target_faster", ratio=ratio, variant=lib)
            if ratio > 1
            else T("target_slower", ratio=1 / ratio, variant=lib)
        )
        times = {"time": us_text(ours), "total": us_text(ours + us)}
        return T(
            "target_memset",
            variant=variant,
            names=names(zeroed),
            us=us,
            **times,
            relation=relation,
        )

    def _time(self, variant: str, n: int) -> float:
        return num(self.row(variant, n).get(col.TIME_MEDIAN_US))

    def _main_pass(self, variant: str, lib: str, n: int) -> str:
        """Where the library's first launch is as fast as the variant's, what it loses in.

        Reduction at 2^24: CuPy's sum is 24.5 us against v4's 19.8, yet its
        ``DeviceReduceKernel`` takes 18.4 us under ncu against v4's 18.9: the time it
        loses is its second pass and the copy into ``out=``.
        """
        launches = self.ctx.get("launches") or {}
        theirs = launches.get(lib, {}).get(str(n)) or []
        ours = launches.get(variant, {}).get(str(n)) or []
        if len(theirs) < 2:
            return ""
        if not ours:  # one launch: the run's own row
            kernel = str(self.variants[variant].get(col.KERNEL) or "")
            ours = [{col.KERNEL: kernel, col.LAUNCH: 0, "row": self.row(variant, n)}]
        theirs = sorted(theirs, key=lambda r: int(r[col.LAUNCH]))
        ours = sorted(ours, key=lambda r: int(r[col.LAUNCH]))
        lib_us = num((theirs[0].get("row") or {}).get("ncu_time_us"))
        our_us = num((ours[0].get("row") or {}).get("ncu_time_us"))
        if not (lib_us > 0 and our_us > 0) or lib_us > our_us:
            return ""
        later = [
            T(
                "target_later",
                kernel=str(r[col.KERNEL]),
                us=num((r.get("row") or {}).get("ncu_time_us")),
            )
            for r in theirs[1:]
        ]
        return (
            T(
                "target_main_pass",
                kernel=str(theirs[0][col.KERNEL]),
                lib_us=lib_us,
                variant=variant,
                ours=str(ours[0][col.KERNEL]),
                our_us=our_us,
                later=", ".join(later),
            )
            + "."
        )

    def _gap(self, variant: str, lib: str, n: int) -> str:
        """Where the library leads most at another size, if it leads more there."""
        best: tuple[float, int] | None = None
        for m in sorted(set(self.a[col.SIZE].dropna().astype(int))):
            ours = num(self.row(variant, m).get(col.TIME_MEDIAN_US))
            theirs = num(self.row(lib, m).get(col.TIME_MEDIAN_US))
            if m != n and theirs > 0 and ours / theirs > (best or (1.0, 0))[0]:
                best = (ours / theirs, m)
        key = num(self.row(variant, n).get(col.TIME_MEDIAN_US)) / num(
            self.row(lib, n).get(col.TIME_MEDIAN_US)
        )
        if best is None or not best[0] > max(key, 1.0) * 1.1:
            return ""
        return T("target_gap", n=size_text(best[1]), ratio=best[0])
