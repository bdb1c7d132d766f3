"""The report's timeline section: copies against kernel time, and when copies dominate.

Reads the family's ``timeline_summary.csv`` (:mod:`nsightflow.analysis.timeline`),
handed to the builder as ``ctx["timeline"]`` (a frame) by
:func:`nsightflow.report.build.write_report`; the section is left out when it is absent.
"""

import math
from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.floors import noise
from nsightflow.i18n import T
from nsightflow.report.sections.common import SectionBase, bullets, figure, table
from nsightflow.report.sections.quantities import size_text
from nsightflow.report.text import plain


def _span(values: pd.Series, digits: int) -> str:
    """``lo-hi`` of a column, one number when they agree at ``digits``."""
    lo, hi = f"{values.min():,.{digits}f}", f"{values.max():,.{digits}f}"
    return lo if lo == hi else f"{lo}-{hi}"


def transfer_findings(
    rows: pd.DataFrame, n: int, repeats: dict[str, tuple[int, float]] | None = None
) -> list[str]:
    """Whether copies or kernels dominate at size ``n``, with the ratio.

    Args:
        rows: Summary rows of the traced variants at ``n`` (``transfer_ns``,
            ``kernel_ns``, ``transfer_to_kernel``).
        n: The size.
        repeats: Variant -> (launches, ns each) of one kernel its trace at ``n``
            launches more than once: its ratio is over every launch, so the copies
            over one launch are given beside it (SGEMM ``v8_torch_matmul`` at n = 4096: 7.5x
            over its 2 launches, 15.0x over one).
    """
    repeats = repeats or {}
    rows = rows.dropna(subset=[col.TRANSFER_TO_KERNEL])
    if rows.empty:
        return []
    ratio = rows[col.TRANSFER_TO_KERNEL]
    dominated = rows[ratio > 1]
    digits = 0 if ratio.min() >= 10 else 1
    if len(dominated) == len(rows):
        return [
            T(
                "timeline_dominate_all",
                n=size_text(n),
                transfer=_span(rows[col.TRANSFER_NS] / 1e6, 2),
                kernel=_span(rows[col.KERNEL_NS] / 1e6, 3),
                ratio=_span(ratio, digits),
            )
        ]
    if dominated.empty:
        return [T("timeline_dominate_none", n=size_text(n), ratio=_span(ratio, 2))]
    which = ", ".join(
        f"`{v}` {r:.1f}x" + _one_launch(repeats.get(v), copies)
        for v, r, copies in zip(
            dominated[col.VARIANT],
            dominated[col.TRANSFER_TO_KERNEL],
            dominated[col.TRANSFER_NS],
            strict=True,
        )
    )
    return [
        T(
            "timeline_dominate_some",
            n=size_text(n),
            k=len(dominated),
            m=len(rows),
            which=which,
        )
    ]


def _one_launch(repeat: tuple[int, float] | None, copies_ns: float) -> str:
    """`` (over its k launches ...; Nx over one)`` for a trace that repeats a kernel."""
    if repeat is None or not repeat[1] > 0:
        return ""
    return T("timeline_ratio_one", k=repeat[0], one=copies_ns / repeat[1])


def traced_vs_timed(
    ok: pd.DataFrame, analysis: pd.DataFrame, events: pd.DataFrame | None
) -> list[str]:
    """Where a traced kernel time differs from the timed median beyond its noise.

    The noise is the verdicts' line, ``1 + max(2%, IQR / median)``
    (:func:`nsightflow.diagnosis.floors.noise`). The trace is one run of the
    program's sequence after one warm-up round; the median is of launches back to
    back on the same buffers. Where the trace holds more kernel launches than the
    variant's other traced sizes' fewest, it says so: SGEMM ``v8_torch_matmul`` at
    n = 4096 traced 5,369 us, 2.01x its 2,673 us median, as two launches of one
    cuBLAS kernel of 2,684 us each.
    """
    timed = analysis.set_index([col.VARIANT, col.SIZE])
    kernels = _kernels(events)
    out = []
    for _, r in ok.iterrows():
        key = (r[col.VARIANT], int(r[col.SIZE]))
        if key not in timed.index:
            continue
        row = timed.loc[key]
        median, traced = float(row[col.TIME_MEDIAN_US]), r[col.KERNEL_NS] / 1e3
        line = noise({**row.to_dict(), col.SIZE: key[1]})
        if not (median > 0 and traced > 0) or 1 / line < traced / median < line:
            continue
        mine = _mine(kernels, str(key[0]), key[1])
        out.append(
            T(
                "timeline_vs_item",
                variant=key[0],
                n=size_text(key[1]),
                traced=traced,
                median=median,
                ratio=traced / median,
                launches=_launches(mine),
            )
        )
    return [T("timeline_vs_timed", items="; ".join(out))] if out else []


def _kernels(events: pd.DataFrame | None) -> pd.DataFrame | None:
    """The kernel launches of the traces' events, None without events."""
    if events is None or events.empty:
        return None
    return events[events[col.KIND] == "kernel"]


def _mine(kernels: pd.DataFrame | None, variant: str, n: int) -> pd.DataFrame:
    """One trace's kernel launches (empty without events)."""
    if kernels is None:
        return pd.DataFrame()
    return kernels[(kernels[col.VARIANT] == variant) & (kernels[col.SIZE] == n)]


def repeats(
    events: pd.DataFrame | None, rows: pd.DataFrame, n: int
) -> dict[str, tuple[int, float]]:
    """Variant -> (launches, ns each) of one kernel its trace at ``n`` repeats."""
    kernels = _kernels(events)
    found = {}
    for variant in rows[col.VARIANT]:
        mine = _mine(kernels, str(variant), n)
        counts = mine[col.NAME].value_counts() if not mine.empty else None
        if counts is not None and int(counts.iloc[0]) > 1:
            same = mine[mine[col.NAME] == counts.index[0]]
            each = float((same[col.END_NS] - same[col.START_NS]).mean())
            found[str(variant)] = (int(counts.iloc[0]), each)
    return found


def _launches(kernels: pd.DataFrame) -> str:
    """Where the trace launches one kernel several times: how often, how long each."""
    if kernels.empty:
        return ""
    counts = kernels[col.NAME].value_counts()
    if int(counts.iloc[0]) < 2:
        return ""
    same = kernels[kernels[col.NAME] == counts.index[0]]
    each = float((same[col.END_NS] - same[col.START_NS]).mean()) / 1e3
    return T("timeline_launches", k=int(counts.iloc[0]), each=each)


class TimelineSections(SectionBase):
    """The timeline section (shown when the report was given a timeline summary)."""

    def timeline(self) -> str:
        """Figure, transfer table and findings of the traced sequences."""
        summary = self.ctx.get("timeline")
        if summary is None:
            return ""
        parts = []
        ok = summary[summary[col.STATUS] == Status.OK]
        if ok.empty:
            parts.append(T("timeline_none"))
        else:
            parts += [self._timeline_intro(ok), figure("fig_timeline", "timeline")]
            parts.append(
                table(pd.DataFrame([self._timeline_row(r) for _, r in ok.iterrows()]))
            )
            found = []
            events = self.ctx.get("timeline_events")
            for n, rows in ok.groupby(col.SIZE, sort=True):
                found += transfer_findings(rows, int(n), repeats(events, rows, int(n)))
            if (ok[col.TRANSFER_TO_KERNEL] > 1).any():
                found.append(T("timeline_advice"))
            found += traced_vs_timed(ok, self.a, events)
            parts.append("\n".join(bullets(found)))
        failed = summary[~summary[col.STATUS].isin([Status.OK, Status.UNSUPPORTED])]
        if not failed.empty:
            parts += [T("timeline_failed"), self._timeline_failed(failed)]
        return "\n\n".join(parts)

    def _timeline_intro(self, ok: pd.DataFrame) -> str:
        first = ok.iloc[0]
        backend = str(first[col.BACKEND])
        intro = T(
            "timeline_intro",
            sizes=", ".join(size_text(n) for n in sorted(ok[col.SIZE].unique())),
            backend=T(f"timeline_backend_{backend}"),
            gpu=plain(first[col.GPU]) if first.get(col.GPU) else T("unknown_gpu"),
            date=plain(first.get(col.DATE) or "?"),
        )
        note = first.get(col.BACKEND_NOTE)
        if isinstance(note, str) and note:
            intro += "\n\n> " + T("timeline_note", note=plain(note.rstrip(".")))
        return intro

    @staticmethod
    def _timeline_row(r: pd.Series) -> dict[str, Any]:
        """One variant and size of the transfer table (copies in ms, the rest in us)."""
        return {
            T("col_variant"): f"`{r['variant']}`",
            T("col_n"): str(int(r[col.SIZE])),
            T("col_copy_in_ms"): r[col.HTOD_NS] / 1e6,
            T("col_memset_us"): r[col.MEMSET_NS] / 1e3,
            T("col_kernel_us"): r[col.KERNEL_NS] / 1e3,
            T("col_copy_out_ms"): r[col.DTOH_NS] / 1e6,
            T("col_htod_gbps"): r[col.HTOD_GBPS],
            T("col_dtoh_gbps"): r[col.DTOH_GBPS],
            T("col_transfer_ratio"): r[col.TRANSFER_TO_KERNEL],
            T("col_launch_gap_us"): (
                None if math.isnan(r[col.LAUNCH_GAP_NS]) else r[col.LAUNCH_GAP_NS] / 1e3
            ),
        }

    @staticmethod
    def _timeline_failed(failed: pd.DataFrame) -> str:
        rows = [
            {
                T("col_variant"): f"`{r['variant']}`",
                T("col_status"): r[col.STATUS],
                T("col_message"): plain(str(r[col.MESSAGE])[:300]),
            }
            for _, r in failed.iterrows()
        ]
        return table(pd.DataFrame(rows))
