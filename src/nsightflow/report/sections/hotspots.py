"""The hottest CUDA source lines: in the baseline, and before and after each step.

Reads the family's ``hotspots.csv`` (:mod:`nsightflow.analysis.hotspots`), handed to
the builder as ``ctx["hotspots"]`` (a frame) by
:func:`nsightflow.report.build.write_report`. Tables are at the largest profiled size,
one per launch of a multi-kernel variant, in launch order. Without the file (an
analysis older than it) the tables are left out; a profiled variant whose report
holds no per-instruction samples is said to be not measured. Where ``drain`` samples
at the kernel's exit were counted to the store lines
(:func:`nsightflow.analysis.hotspots.attribute_drain`), a note above the table says
how many and from which line (from 1% of the launch's samples).
"""

from pathlib import PurePath
from typing import Any

import pandas as pd

from nsightflow.analysis.hotspots import SAY_DRAIN, launch_lines
from nsightflow.contracts import as_written
from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.i18n.markup import code_span
from nsightflow.report.sections.common import SectionBase, table
from nsightflow.report.sections.quantities import size_text
from nsightflow.report.text import plain

TOP_LINES = 5
CODE_WIDTH = 60  # characters of a line's code shown in a table cell


def code_cell(text: Any, line: int) -> str:
    """A source line as a Markdown table cell: a code span, shortened, pipes escaped."""
    if line <= 0:
        return T("hot_no_line")
    code = " ".join(as_written(text).split()) if isinstance(text, str) else ""
    if not code:
        return ""
    if len(code) > CODE_WIDTH:
        code = code[: CODE_WIDTH - 3] + "..."
    # a fence no run of backticks in the code can close (kernel text is data)
    return code_span(f" {code} ").replace("|", "\\|")


def line_cell(row: pd.Series, main: str) -> int | str:
    """A line's number, with its file's name where that is not the variant's source."""
    line = int(row[col.LINE])
    name = PurePath(str(row.get(col.FILE) or "")).name
    return f"{plain(name)}:{line}" if line > 0 and name and name != main else line


def reason_cell(row: pd.Series) -> str:
    """The dominant state of a line with its share of the line's samples."""
    return f"{plain(row['top_reason'])} {100 * row['top_reason_share']:.0f}%"


def drain_note(variant: str, lines: pd.DataFrame) -> list[str]:
    """The note on exit ``drain`` counted to store lines, for one launch (or none)."""
    if col.ATTRIBUTED_DRAIN not in lines:
        return []
    moved = pd.to_numeric(lines[col.ATTRIBUTED_DRAIN], errors="coerce").fillna(0)
    total = float(lines[col.SAMPLES].sum())
    if total <= 0 or moved.sum() < SAY_DRAIN * total:
        return []
    to = lines.assign(moved=moved)[moved > 0].sort_values(col.MOVED, ascending=False)
    origin = pd.to_numeric(to[col.DRAIN_FROM_LINE], errors="coerce").fillna(0)
    note = T(
        "hot_drain_note",
        variant=variant,
        pct=100 * moved.sum() / total,
        exit_line=", ".join(str(int(x)) for x in origin.drop_duplicates()),
        lines=", ".join(str(int(x)) for x in to[col.LINE]),
    )
    return ["", note]


def _hot_rows(lines: pd.DataFrame) -> list[pd.Series]:
    top = lines.sort_values([col.SAMPLES, col.LINE], ascending=[False, True])
    return [row for _, row in top.head(TOP_LINES).iterrows()]


class HotspotSections(SectionBase):
    """Tables of the hottest source lines (baseline and steps)."""

    def _hotspots(self) -> pd.DataFrame | None:
        frame = self.ctx.get("hotspots")
        return frame if isinstance(frame, pd.DataFrame) else None

    def _sampled(self, variant: str, n: int) -> list[tuple[int, str, pd.DataFrame]]:
        return launch_lines(self._hotspots(), variant, n)

    def _main(self, variant: str) -> str:
        """The name of the variant's own source file (its other lines say their file)."""
        return PurePath(str(self.variants.get(variant, {}).get(col.SOURCE, ""))).name

    def _any_sampled(self) -> bool:
        frame = self._hotspots()
        return frame is not None and not frame.empty

    def _missing(self, variant: str, n: int) -> list[str]:
        """The not-measured line of a profiled variant without samples."""
        if not self.row(variant, n).get("profiled"):
            return []
        return ["", T("hot_none", variant=variant, n=size_text(n))]

    def hotspot_baseline(self) -> list[str]:
        """The baseline's hottest lines at the largest profiled size (Markdown lines)."""
        if self._hotspots() is None:
            return []
        base, n = self.fam["baseline"], self.key_size
        launches = self._sampled(base, n)
        if not launches:
            missing = self._missing(base, n)
            return [*missing, ""] if missing else []
        total = sum(int(lines[col.SAMPLES].sum()) for _, _, lines in launches)
        out = ["", T("hot_intro", variant=base, n=size_text(n), samples=f"{total:,}")]
        for launch, kernel, lines in launches:
            if len(launches) > 1:
                samples = f"{int(lines['samples'].sum()):,}"
                name = code_span(str(kernel))
                caption = T("hot_launch", launch=launch, kernel=name, samples=samples)
                out += ["", caption]
            out += drain_note(base, lines)
            out += ["", table(pd.DataFrame(_one_side(lines, self._main(base))))]
        return [*out, ""]

    def hotspot_step(self, before: str, after: str) -> list[str]:
        """Before and after of a step's hottest lines, side by side, per launch."""
        if self._hotspots() is None:
            return []
        n = self.key_size
        a = {x[0]: x for x in self._sampled(before, n)}
        b = {x[0]: x for x in self._sampled(after, n)}
        if not a and not b:  # said once, in the baseline, where nothing is sampled
            return self._missing(after, n) if self._any_sampled() else []
        out = ["", T("hot_step_intro", n=size_text(n), before=before, after=after)]
        if not a or not b:
            out += self._missing(after if a else before, n)
        launches = sorted(set(a) | set(b))
        for launch in launches:
            left, right = a.get(launch), b.get(launch)
            if len(launches) > 1:
                out += ["", _pair_caption(launch, left, right)]
            for variant, side in ((before, left), (after, right)):
                out += drain_note(variant, side[2]) if side else []
            rows = _side_by_side(
                (before, self._main(before)), (after, self._main(after)), left, right
            )
            out += ["", table(pd.DataFrame(rows))]
        return out

    def stall_limitation(self) -> str:
        """The limitation of stall reasons, as they are shown in this report."""
        return T("lim_stalls_sampled" if self._any_sampled() else "lim_stalls")


def _one_side(lines: pd.DataFrame, main: str) -> list[dict[str, Any]]:
    """Rows of a one-variant table: rank, line, code, share, dominant state."""
    return [
        {
            T("col_hot_rank"): k,
            T("col_hot_line"): line_cell(row, main),
            T("col_hot_code"): code_cell(row[col.SOURCE], int(row[col.LINE])),
            T("col_hot_share"): f"{100 * row['share']:.1f}%",
            T("col_hot_reason"): reason_cell(row),
        }
        for k, row in enumerate(_hot_rows(lines), start=1)
    ]


def _side(named: tuple[str, str], row: pd.Series | None) -> dict[str, Any]:
    """One variant's four cells of a side-by-side row (blank where it has no line)."""
    variant, main = named
    keys = [
        T(f"col_hot_{c}_of", variant=variant)
        for c in ("line", "code", "share")  # contracts: literal (message ids)
    ]
    keys.append(T("col_hot_reason_of", variant=variant))
    if row is None:
        return dict.fromkeys(keys, "")
    line = int(row[col.LINE])
    values = [
        line_cell(row, main),
        code_cell(row[col.SOURCE], line),
        f"{100 * row['share']:.1f}%",
        reason_cell(row),
    ]
    return dict(zip(keys, values, strict=True))


Launch = tuple[int, str, pd.DataFrame]


def _side_by_side(
    before: tuple[str, str],
    after: tuple[str, str],
    left: Launch | None,
    right: Launch | None,
) -> list[dict[str, Any]]:
    """Rows of a step's table: rank, then before's and after's line of that rank."""
    a = _hot_rows(left[2]) if left else []
    b = _hot_rows(right[2]) if right else []
    if not a and not b:
        return []
    return [
        {
            T("col_hot_rank"): k + 1,
            **_side(before, a[k] if k < len(a) else None),
            **_side(after, b[k] if k < len(b) else None),
        }
        for k in range(max(len(a), len(b)))
    ]


def _pair_caption(k: int, left: Launch | None, right: Launch | None) -> str:
    """Which kernels launch ``k`` of the two variants ran."""
    none = T("hot_not_sampled")

    def part(x: Launch | None) -> tuple[str, str]:
        if x is None:
            return code_span(none), "0"
        return code_span(str(x[1])), f"{int(x[2]['samples'].sum()):,}"

    (kb, sb), (ka, sa) = part(left), part(right)
    return T(
        "hot_launch_pair",
        launch=k,
        kernel_before=kb,
        samples_before=sb,
        kernel_after=ka,
        samples_after=sa,
    )
