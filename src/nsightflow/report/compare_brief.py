"""The first screen of ``compare.md``: what changed between the runs, and why.

One line per variant whose verdict is not SAME at some size, or whose code changed,
or whose status changed: how much faster or slower it got at its largest size timed
in both runs, at how many sizes the verdict holds, and what the runs recorded that
explains it, in the order a reader checks: the code (a diff), the counters that
moved most at the largest size profiled in both, ncu rules that appeared or went
away, and what the two runs were not timed alike in. A variant with none of these
says so: nothing recorded explains its change. The per-pair tables follow below.
Names and values read from the runs are data, in code spans.
"""

import pandas as pd

from nsightflow.analysis import compare as C
from nsightflow.analysis.compare_causes import Comparison
from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.i18n.markup import code_span

MAX_LINES = 8  # variants on the first screen; the rest are named in the sections below
TOP_COUNTERS = 3  # counters named per variant
FACTOR = 1.5  # a change at least this factor is written as one ("5.0x slower")


def code(value: object) -> str:
    """A value read from a run as a Markdown code span ('' for an empty one)."""
    return code_span(str(value)) if str(value) else ""


def change_text(ratio: float) -> str:
    """B / A as a reader says it: ``5.0x slower``, ``-10.0%``, ``+3.2%``."""
    if ratio >= FACTOR:
        return T("cmp_brief_x_slower", x=ratio)
    if 0 < ratio <= 1 / FACTOR:
        return T("cmp_brief_x_faster", x=1 / ratio)
    return f"{100 * (ratio - 1):+.1f}%"


def changed_keys(c: Comparison) -> list[tuple[str, str]]:
    """Variants whose verdict moved at some size, whose code or whose status changed."""
    moved = c.pairs[c.pairs[col.VERDICT] != C.SAME][[col.FAMILY, col.VARIANT]]
    changed = c.sources[c.sources[col.CODE] == "changed"][[col.FAMILY, col.VARIANT]]
    keys = {(str(f), str(v)) for f, v in moved.itertuples(index=False)}
    keys |= {(str(f), str(v)) for f, v in changed.itertuples(index=False)}
    if len(c.statuses):
        keys |= {
            (str(f), str(v))
            for f, v in c.statuses[[col.FAMILY, col.VARIANT]].itertuples(index=False)
        }
    return sorted(keys, key=lambda k: (-_weight(c, k), k))


def _weight(c: Comparison, key: tuple[str, str]) -> float:
    """How far the variant moved at its largest size (status changes first)."""
    if (
        len(c.statuses)
        and (
            (c.statuses[col.FAMILY] == key[0]) & (c.statuses[col.VARIANT] == key[1])
        ).any()
    ):
        return float("inf")
    rows = _pairs(c, key)
    if rows.empty:
        return 0.0
    ratio = float(rows[col.RATIO].iloc[-1])
    return abs(ratio - 1) if ratio >= 1 else abs(1 / ratio - 1)


def _pairs(c: Comparison, key: tuple[str, str]) -> pd.DataFrame:
    p = c.pairs
    return p[(p[col.FAMILY] == key[0]) & (p[col.VARIANT] == key[1])].sort_values(
        col.SIZE
    )


def first_screen(c: Comparison) -> str:
    """The heading, the one-line verdict and a line per changed variant."""
    keys = changed_keys(c)
    head = f"## {T('h_cmp_brief')}"
    if not keys:
        return f"{head}\n\n{T('cmp_brief_nothing', n=len(c.pairs))}"
    same = int((c.pairs[col.VERDICT] == C.SAME).sum())
    lines = [f"- {_line(c, k)}" for k in keys[:MAX_LINES]]
    if len(keys) > MAX_LINES:
        lines.append(f"- {T('cmp_brief_more', k=len(keys) - MAX_LINES)}")
    intro = T("cmp_brief_intro", k=len(keys), same=same, n=len(c.pairs))
    return "\n\n".join([head, intro, "\n".join(lines)])


def _line(c: Comparison, key: tuple[str, str]) -> str:
    """One variant: its change, where it holds, and why."""
    name = f"{code(key[0])} {code(key[1])}"
    status = _status(c, key)
    rows = _pairs(c, key)
    if rows.empty:
        what = status or T("cmp_brief_not_paired")
    else:
        last = rows.iloc[-1]
        held = int((rows[col.VERDICT] == last[col.VERDICT]).sum())
        what = T(
            "cmp_brief_change",
            change=change_text(float(last[col.RATIO])),
            n=int(last[col.SIZE]),
            verdict=str(last[col.VERDICT]),
            k=held,
            sizes=len(rows),
        )
        what = T("cmp_brief_and").join([status, what]) if status else what
    reasons = [r for r in (_code(c, key), *_counters(c, key), *_rules(c, key)) if r]
    reasons += _caveats(rows)
    why = T("cmp_brief_and").join(reasons) or T("cmp_brief_unexplained")
    return T("cmp_brief_line", name=name, what=what, why=why)


def _status(c: Comparison, key: tuple[str, str]) -> str:
    s = c.statuses
    if not len(s):
        return ""
    mine = s[(s[col.FAMILY] == key[0]) & (s[col.VARIANT] == key[1])]
    if mine.empty:
        return ""
    row = mine.iloc[0]
    return T("cmp_brief_status", a=code(row["status_a"]), b=code(row["status_b"]))


def _code(c: Comparison, key: tuple[str, str]) -> str:
    src = c.sources
    mine = src[(src[col.FAMILY] == key[0]) & (src[col.VARIANT] == key[1])]
    if mine.empty or mine.iloc[0][col.CODE] != "changed":
        return ""
    row = mine.iloc[0]
    if row.get(col.CONFIG) == "different":  # another configuration ran: say which
        return T(
            "cmp_brief_config", a=code(row[col.CONFIG_A]), b=code(row[col.CONFIG_B])
        )
    names = str(row[col.FILES]).split(", ")
    files = T("cmp_brief_list").join(code(f) for f in names)
    return T("cmp_brief_code", files=files)


def _counters(c: Comparison, key: tuple[str, str]) -> list[str]:
    """The counters that moved most at the largest size profiled in both runs."""
    k = c.counters
    mine = k[(k[col.FAMILY] == key[0]) & (k[col.VARIANT] == key[1]) & k[col.MOVED]]
    if mine.empty:
        return []
    at = mine[mine[col.SIZE] == mine[col.SIZE].max()]
    top = at.sort_values(col.SCORE, ascending=False).head(TOP_COUNTERS)
    moves = T("cmp_brief_list").join(
        f"{code(r['counter'])} {_value(r['a'], r['kind'])} → "
        f"{_value(r['b'], r['kind'])}"
        for r in top.to_dict("records")
    )
    return [T("cmp_brief_counters", n=int(at[col.SIZE].iloc[0]), moves=moves)]


def _value(value: float, kind: str) -> str:
    """A counter's value: a share in %, a count with k / M / G."""
    if kind == "pp":
        return f"{value:.3g}%"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def _rules(c: Comparison, key: tuple[str, str]) -> list[str]:
    r = c.rules
    mine = r[(r[col.FAMILY] == key[0]) & (r[col.VARIANT] == key[1])]
    if mine.empty:
        return []
    appeared = sorted(set(mine[mine[col.CHANGE] == "appeared"][col.RULE].astype(str)))
    gone = sorted(set(mine[mine[col.CHANGE] == "gone"][col.RULE].astype(str)))
    out = []
    if appeared:
        rules = T("cmp_brief_list").join(map(code, appeared))
        out.append(T("cmp_brief_rules_new", rules=rules))
    if gone:
        rules = T("cmp_brief_list").join(map(code, gone))
        out.append(T("cmp_brief_rules_gone", rules=rules))
    return out


def _caveats(rows: pd.DataFrame) -> list[str]:
    if rows.empty:
        return []
    codes = rows[col.CAVEATS].fillna("").str.split(";").explode()
    found = sorted({str(x) for x in codes if x})
    if not found:
        return []
    which = T("cmp_brief_list").join(T(f"cmp_caveat_{x}") for x in found)
    return [T("cmp_brief_unlike", which=which)]
