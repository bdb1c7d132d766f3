"""Numbers as a reader reads them: sizes, times, a finding's quantity, its source line.

The body of a report gives each cause with the two or three numbers that decide it.
These helpers turn a ``findings.csv`` row into those numbers (the quantity it moved,
before -> after, in its unit and at a sensible precision) and find the CUDA line the
cause sits on in ``hotspots.csv``. Sizes read as a reader thinks of them: 2^24, 1.5M,
8192; never 16777216.
"""

import json
import math
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.record import render
from nsightflow.diagnosis.verdict import step_verdict
from nsightflow.i18n import T
from nsightflow.i18n import size_text as size_text  # the sections import it here
from nsightflow.i18n.markup import code_span

CODE_CHARS = 48  # characters of a cited source line in a sentence
HEADERS = (".cuh", ".h", ".hpp")  # a line in one of these is cited by its file
MIN_LINE_SHARE = 0.1  # a hot line cited in the body holds at least this share


def number(value: Any, digits: int = 1) -> str:
    """A number with thousands separated; ``n/a`` when missing."""
    x = _float(value)
    if math.isnan(x):
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def us_text(value: Any) -> str:
    """A time in microseconds at three significant digits or so: 9.87, 237.6, 2,835."""
    x = _float(value)
    if math.isnan(x):
        return "n/a"
    return number(x, 2 if abs(x) < 10 else 1)


def pct_text(value: Any) -> str:
    """A share in percent, whole numbers (one decimal under 10%, two under 0.1%).

    hotatomic's baseline at 0.054% of its roofline reads 0.05%, not 0.1%.
    """
    x = _float(value)
    if math.isnan(x):
        return "n/a"
    if 0 < abs(x) < 0.095:
        return f"{x:.2f}%"
    return f"{x:.1f}%" if abs(x) < 9.95 else f"{x:.0f}%"


def change_text(before: Any, after: Any, line_pct: float = 2.0) -> str:
    """``1.82x`` faster or ``16% slower``: the time ratio of a step, as read aloud.

    ``line_pct``: the change the step's verdict required
    (:func:`nsightflow.diagnosis.verdict.threshold_pct`: 2%, or the timing noise where
    wider); a change within it is said as none, with the line it did not cross.
    """
    a, b = _float(before), _float(after)
    if math.isnan(a) or math.isnan(b) or a <= 0 or b <= 0:
        return ""
    ratio = a / b
    if step_verdict(ratio, line_pct) == "no_gain":
        return T("change_none", pct=100 * (b / a - 1), line=max(line_pct, 2.0))
    if ratio >= 1.0:
        return T("change_faster", x=ratio)
    if b / a >= 2:
        return T("change_times_slower", x=b / a)
    return T("change_slower", pct=100 * (b / a - 1))


def code_text(text: str) -> str:
    """A source line for a sentence: one line, shortened, as a code span."""
    code = " ".join(text.split())
    if len(code) > CODE_CHARS:
        code = code[: CODE_CHARS - 3] + "..."
    return code_span(code)


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


@dataclass(frozen=True)
class Quantity:
    """What a finding measured, named for a reader, with before -> after as text."""

    name: str  # "stall cycles per instruction (barrier)"
    before: str
    after: str
    metric: str  # the ncu metric or expression, for the footnote
    # a wait split as count x wait per request: which of the two moved, which way
    each: str = ""


CYCLES = "cycles"  # contracts: literal (a way of writing values, not the column)
# (pattern over ``metric``, catalogue key of its name, how its values are written)
_KINDS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"stalled_.*/ \(?l1tex__t_requests"), "qty_stall_per_request", CYCLES),
    (re.compile(r"stalled_.*/ \(?l1tex__t_sectors"), "qty_stall_per_sector", CYCLES),
    (re.compile(r"stalled_"), "qty_stall_per_inst", CYCLES),
    (re.compile(r"^smsp__inst_executed\.sum$"), "qty_instructions", "millions"),
    (re.compile(r"sm__warps_active"), "qty_occupancy", "pct"),
    (re.compile(r"_op_ld\.sum \+ l1tex__t_requests"), "qty_ldst_requests", "m"),
    (re.compile(r"l1tex__t_requests_pipe_lsu_mem_global_op_ld"), "qty_requests", "m"),
    (re.compile(r"^l1tex__t_sectors_pipe_lsu_mem_global_op_ld"), "qty_ld_sectors", "m"),
    (re.compile(r"l1tex__t_sectors_pipe_lsu_mem_global_op_st"), "qty_st_sectors", "m"),
    (re.compile(r"lsu_mem_local_op_ld"), "qty_local_sectors", "m"),
    (re.compile(r"^time_median_us$"), "qty_event_time", "us"),
    (re.compile(r"gpu__time_duration\.sum of one launch"), "qty_launch_time", "us"),
    (re.compile(r"gpu__time_duration\.sum per launch"), "qty_launches", "count"),
    (re.compile(r"dram__bytes"), "qty_dram_bytes", "megabytes"),
    (re.compile(r"idle share"), "qty_idle_share", "pct"),
    (re.compile(r"^gpu__time_duration\.sum$"), "qty_ncu_time", "us"),
)
_REASON = re.compile(r"stalled_(\w+?)_per_issue_active")
_PER_INST = re.compile(r"\)?\s*x\s*smsp__inst_executed\.sum$")


def _value(x: float, style: str) -> str:
    if style == CYCLES:
        return number(x, 1)
    if style in ("millions", "m"):
        if x == 0:  # none at all (local sectors 134.7 M -> 0)
            return "0"
        return f"{number(x / 1e6, 2 if abs(x) < 1e7 else 1)} M"
    if style == "megabytes":
        return f"{number(x / 1e6, 1)} MB"
    if style == "pct":
        return pct_text(x)
    if style == "count":
        return f"{x:,.0f}"
    return f"{us_text(x)} us"


def quantity(record: dict[str, Any]) -> Quantity | None:
    """The quantity a step finding moved, or None where it has no before and after."""
    metric = str(record.get(col.METRIC, ""))
    before, after = _float(record.get(col.BEFORE)), _float(record.get(col.AFTER))
    if math.isnan(before) or math.isnan(after):
        return None
    for pattern, key, style in _KINDS:
        if pattern.search(metric):
            reasons = " + ".join(dict.fromkeys(_REASON.findall(metric)))
            kernel = _kernel(record) if key == "qty_launch_time" else ""
            name = T(f"{key}_of", kernel=kernel) if kernel else T(key, reasons=reasons)
            if key == "qty_stall_per_inst":  # the ratio is per instruction already
                metric = _PER_INST.sub("", metric).strip("() ")
            q = Quantity(name, _value(before, style), _value(after, style), metric)
            return Quantity(q.name, q.before, q.after, q.metric, _each(record, key))
    return Quantity(T("qty_generic"), number(before, 2), number(after, 2), metric)


def params_of(record: dict[str, Any]) -> dict[str, Any]:
    """A finding's stored parameters ({} where they do not parse)."""
    try:
        params = json.loads(str(record.get(col.PARAMS) or "{}"))
    except json.JSONDecodeError:
        return {}
    return params if isinstance(params, dict) else {}


def _kernel(record: dict[str, Any]) -> str:
    """The kernel a one-launch finding is about (scan's ``scan_add_offsets``), or ""."""
    return str(params_of(record).get(col.KERNEL) or "")


# the quantities of a wait counted per global request or sector, and which the
# record quotes: the wait per unit, or the count it is split by
_PER_UNIT_KEYS = ("qty_stall_per_request", "qty_stall_per_sector")
_COUNT_KEYS = ("qty_requests", "qty_ldst_requests", "qty_ld_sectors")


def _each(record: dict[str, Any], key: str) -> str:
    """The other half of a wait split as count x wait per unit, and which way each went.

    SGEMM v0 -> v1: the record quotes the requests (4,295 M -> 134 M), and the clause
    says the other half: "fewer, but each waited longer: 47.0 -> 334.7 cycles".
    Empty for any other quantity.
    """
    if key not in (*_PER_UNIT_KEYS, *_COUNT_KEYS, "qty_instructions"):
        return ""
    params = params_of(record)
    inner = params.get("finding", params)
    detail = inner.get("detail") if isinstance(inner, dict) else None
    if not isinstance(detail, dict):
        return ""
    if detail.get("@") == "detail_wider" and key == "qty_instructions":
        r0, r1 = _float(detail.get("r0")), _float(detail.get("r1"))
        return T(
            "qty_each_wider", before=_value(1e6 * r0, "m"), after=_value(1e6 * r1, "m")
        )
    if detail.get("@") == "detail_instruction_count" and key == "qty_instructions":
        # the kinds are the primary cause's evidence; a secondary one is said short
        primary = record.get(col.ROLE) == "primary"
        return _kinds_moved(inner.get(col.EVIDENCE)) if primary else ""
    if detail.get("@") != "detail_stalls_per_request":
        return ""
    fields = {k: _float(detail.get(k)) for k in ("cx", "cy", "ix", "iy")}
    if any(math.isnan(v) for v in fields.values()):
        return ""
    moved = render("", detail["which"]) if isinstance(detail.get("which"), dict) else ""
    if key in _COUNT_KEYS:  # the count is quoted: the wait per unit follows
        return T(
            "qty_each_wait",
            moved=moved,
            before=number(fields["cx"], 1),
            after=number(fields["cy"], 1),
        )
    return T(
        "qty_each_count",
        moved=moved,
        before=_value(1e6 * fields["ix"], "m"),
        after=_value(1e6 * fields["iy"], "m"),
    )


# the instruction kinds of ``ev_instructions``: its before / after keys, by message
# (the global load requests are a factor of the step of their own, said apart)
_KINDS_OF = (("sh", "qty_kind_shared"), ("f", "qty_kind_ffma"))
KIND_MOVED = 2.0  # a kind whose count moved by at least this factor is said
KIND_LEAST = 0.01  # millions of warp instructions a kind must have on one side


def _kinds_moved(evidence: Any) -> str:
    """The kinds of instruction whose count moved, largest change first, or "".

    Scan v1 -> v2's tile pass: 46.2 M -> 2.05 M instructions, of which shared-memory
    loads and stores 4.11 M -> 0.03 M (the tree pass it no longer runs): the count's
    own evidence, in its own units. A count of none is written 0.
    """
    if not isinstance(evidence, dict) or evidence.get("@") != "ev_instructions":
        return ""
    moved = []
    for prefix, key in _KINDS_OF:
        x, y = _float(evidence.get(f"{prefix}0")), _float(evidence.get(f"{prefix}1"))
        if math.isnan(x) or math.isnan(y) or max(x, y) < KIND_LEAST:
            continue
        if min(x, y) > 0 and max(x / y, y / x) < KIND_MOVED:
            continue
        x_text, y_text = (_value(1e6 * v, "m") if v > 0 else "0" for v in (x, y))
        text = T(key, before=x_text, after=y_text)
        moved.append((abs(y - x), text))
    if not moved:
        return ""
    kinds = [t for _, t in sorted(moved, key=lambda m: -m[0])]
    return T("qty_each_kinds", kinds=", ".join(kinds))


def part_text(record: dict[str, Any]) -> str:
    """The finding's part of its step's change, rendered ("3.1 of the 9.8 us saved").

    Empty where the finding states none (a step without a measurable change).
    """
    params = params_of(record)
    inner = params.get("finding", params)  # a finding that cites a line wraps one
    part = inner.get("part") if isinstance(inner, dict) else None
    if not isinstance(part, dict) or "@" not in part:
        return ""
    return render(str(part["@"]), {k: v for k, v in part.items() if k != "@"})


def reasons_of(record: dict[str, Any]) -> list[str]:
    """The stall reasons a finding names as its evidence (``barrier``, ``drain``)."""
    text = record.get(col.EVIDENCE)
    if not isinstance(text, str):  # empty in findings.csv: read as NaN
        return []
    return [r.strip() for r in text.split(",") if r.strip() and r.strip() != "idle"]


@dataclass(frozen=True)
class Line:
    """A CUDA source line of a variant and its share of the launch's samples."""

    variant: str
    line: int
    code: str
    share: float  # of the launch's warp-state samples
    reason: str  # the state most of its samples were in
    reason_share: float
    file: str = ""  # the source file the line is in (a shared header, or the variant's)

    @property
    def where(self) -> str:
        """What the line is "of": a shared header by its name, else the variant."""
        name = PurePath(self.file).name
        return name if PurePath(name).suffix in HEADERS else self.variant


def cited_line(
    hot: pd.DataFrame | None,
    variants: list[str],
    n: int,
    record: dict[str, Any],
) -> Line | None:
    """The line a cause sits on: the finding's own, else the hottest in its stalls.

    Args:
        hot: ``hotspots.csv`` (None or empty: no line).
        variants: Where to look, first choice first (a step's new variant, then
            the one it improves on).
        n: The size.
        record: The finding; its ``line`` wins, else the line with the most
            samples in its stall reasons (``evidence``), else the hottest line.

    Returns:
        The line, or None where none holds MIN_LINE_SHARE of the samples.
    """
    if hot is None or hot.empty:
        return None
    rows = hot[hot[col.VARIANT].isin(variants) & (hot[col.SIZE] == n)]
    # a sample ncu maps to no line (line 0, no source: a library's kernel, built
    # without -lineinfo) is no line of the author's code to cite
    citable = pd.to_numeric(rows[col.LINE], errors="coerce") > 0
    rows = rows[citable & (rows[col.SOURCE].fillna("").astype(str).str.strip() != "")]
    if rows.empty:
        return None
    rows = _of_kernel(rows, cause_kernel(record))
    own = _float(record.get(col.LINE))
    if not math.isnan(own):  # the variant the finding cites the line in, first
        cited = line_variant(record)
        variants = sorted(variants, key=lambda v: v != cited)
    reasons = [f"samples_{r}" for r in reasons_of(record) if f"samples_{r}" in rows]
    for variant in variants:
        mine = rows[rows[col.VARIANT] == variant]
        if mine.empty:
            continue
        if not math.isnan(own):
            mine = mine[mine[col.LINE] == int(own)]
        if mine.empty:
            continue
        score = (mine[reasons].sum(axis=1) if reasons else mine[col.SAMPLES]).to_numpy()
        if score.max() <= 0:
            continue
        best = mine.iloc[int(score.argmax())]
        if float(best[col.SHARE]) < MIN_LINE_SHARE:
            continue
        return Line(
            variant,
            int(best[col.LINE]),
            str(best[col.SOURCE]).strip(),
            float(best[col.SHARE]),
            str(best[col.TOP_REASON]),
            float(best[col.TOP_REASON_SHARE]),
            str(best.get(col.FILE) or ""),
        )
    return None


def _of_kernel(rows: pd.DataFrame, kernel: str) -> pd.DataFrame:
    """The hot lines of one launch where it has any, else all of them.

    A cause of the main launch sits on its lines: scan v1 -> v2's tile pass, not
    the scan pass's float4 store.
    """
    mine = rows[rows[col.KERNEL] == kernel] if kernel else rows.iloc[:0]
    return mine if not mine.empty else rows


def cause_kernel(record: dict[str, Any]) -> str:
    """The launch a step's cause was measured in (its label's kernel), or ''."""
    params = params_of(record)
    inner = params.get("finding", params) if isinstance(params, dict) else {}
    label = inner.get("label") if isinstance(inner, dict) else None
    if isinstance(label, dict) and label.get("@") == "label_in_kernel":
        return str(label.get(col.KERNEL, ""))
    return ""


def line_variant(record: dict[str, Any]) -> str:
    """The variant whose line a finding cites (its ``params``), or ''."""
    line = params_of(record).get(col.LINE)
    where = line.get("where", {}) if isinstance(line, dict) else {}
    return str(where.get(col.VARIANT, "")) if isinstance(where, dict) else ""
