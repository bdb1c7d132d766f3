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
from nsightflow.i18n import T
from nsightflow.report.sections.common import SectionBase, bullets, figure, table
from nsightflow.report.sections.quantities import size_text
from nsightflow.report.text import plain


def _span(values: pd.Series, digits: int) -> str:
    """``lo-hi`` of a column, one number when they agree at ``digits``."""
    lo, hi = f"{values.min():,.{digits}f}", f"{values.max():,.{digits}f}"
    return lo if lo == hi else f"{lo}-{hi}"


def transfer_findings(rows: pd.DataFrame, n: int) -> list[str]:
    """Whether copies or kernels dominate at size ``n``, with the ratio.

    Args:
        rows: Summary rows of the traced variants at ``n`` (``transfer_ns``,
            ``kernel_ns``, ``transfer_to_kernel``).
        n: The size.
    """
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
        f"`{v}` {r:.1f}x"
        for v, r in zip(
            dominated[col.VARIANT], dominated[col.TRANSFER_TO_KERNEL], strict=True
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
            for n, rows in ok.groupby(col.SIZE, sort=True):
                found += transfer_findings(rows, int(n))
            if (ok[col.TRANSFER_TO_KERNEL] > 1).any():
                found.append(T("timeline_advice"))
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
