"""``compare.md`` of ``nsightflow compare``: what changed between two runs, and why.

Built from a :class:`nsightflow.analysis.compare_causes.Comparison`: first what changed
and why, one line per variant (:mod:`nsightflow.report.compare_brief`), and the figure;
below them the verdict counts and threshold, one section per variant whose verdict is not SAME or whose code changed
(its sizes, its diff, the counters that moved, the ncu rules that appeared or went
away), variants whose status changed, what each run was measured with, the ladders'
shares of their own GPU's ceilings when the GPUs differ, every pair, and the method.
Every sentence comes from the i18n catalogue; names, paths, versions and diffs read
from the runs are data, set in code spans or fenced blocks, never markup.
"""

import math
import re

import pandas as pd

from nsightflow.analysis import compare as C
from nsightflow.analysis.compare_causes import MOVED_PP, MOVED_REL, Comparison
from nsightflow.analysis.runs import Run
from nsightflow.contracts import columns as col
from nsightflow.i18n import T, language
from nsightflow.report.compare_brief import first_screen
from nsightflow.report.compare_config import configuration_lines
from nsightflow.report.compare_invalid import code, invalid_count, invalid_section
from nsightflow.report.sections.common import table

FIGURE = "figures/compare.png"


def fenced(text: str, lang: str = "") -> str:
    """A fenced block longer than any backtick run in ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _value(text: str) -> str:
    return code(text) if text not in ("None", "") else "-"


def _count(value: float) -> str:
    """A counter's value: whole from 1000 on, three significant digits below."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.1f}%"


def _us(value: float) -> str:
    return f"{value:,.2f}"


class CompareReport:
    """Builds ``compare.md`` in one language.

    Args:
        comparison: Every table of the comparison.
        language: ``en`` or ``zh``.
    """

    def __init__(self, comparison: Comparison, language: str = "en") -> None:
        self.c = comparison
        self.language = language
        self.pairs = comparison.pairs
        self.sources = {
            (str(r[col.FAMILY]), str(r[col.VARIANT])): r
            for r in comparison.sources.to_dict("records")
        }

    def build(self) -> str:
        """The whole document."""
        with language(self.language):
            parts = [
                self._header(),
                first_screen(self.c),
                f"![{T('cmp_fig')}]({FIGURE})" if len(self.pairs) else "",
                self._summary(),
                self._changed(),
                self._statuses(),
                self._provenance(),
                self._shares(),
                self._all_pairs(),
                invalid_section(self.c.invalid),
                self._method(),
            ]
        return "\n\n".join(p for p in parts if p) + "\n"

    # --- header and summary ------------------------------------------------------
    def _header(self) -> str:
        lines = [f"# {T('h_cmp')}", ""]
        for side, run in (("A", self.c.a), ("B", self.c.b)):
            lines.append(f"- **{side}**: {self._describe(run)}")
        return "\n".join(lines)

    def _describe(self, run: Run) -> str:
        fams = run.families.values()
        gpus = sorted({str(f.get(col.GPU)) for f in fams})
        dates = sorted(str(f.get(col.DATE))[:10] for f in fams if f.get(col.DATE))
        span = "?" if not dates else " .. ".join(dict.fromkeys([dates[0], dates[-1]]))
        return T(
            "cmp_run",
            path=code(run.path),
            kind=T(f"cmp_kind_{run.kind}"),
            gpu=", ".join(code(g) for g in gpus),
            date=span,
            families=len(run.families),
        )

    def _summary(self) -> str:
        said = invalid_count(self.c.invalid)
        if self.pairs.empty:
            return "\n\n".join(filter(None, [T("cmp_no_pairs"), said]))
        counts = C.verdict_counts(self.pairs)
        slow = C.verdict_counts(self.pairs, C.FAST_US)
        lines = [
            T(
                "cmp_summary",
                n=len(self.pairs),
                **{k.lower(): v for k, v in counts.items()},
            ),
            T(
                "cmp_summary_20",
                n=sum(slow.values()),
                us=C.FAST_US,
                same=slow[C.SAME],
                pct=100 * slow[C.SAME] / max(1, sum(slow.values())),
            ),
            T(
                "cmp_threshold",
                floor=100 * self.c.settings.min_change,
                conf=100 * self.c.settings.confidence,
            ),
        ]
        codes = self.pairs[col.CAVEATS].str.split(";").explode()
        flagged = codes[codes != ""].value_counts()
        if len(flagged):
            which = ", ".join(
                f"{T(f'cmp_caveat_{c}')} ({n})" for c, n in flagged.items()
            )
            lines.append(
                T(
                    "cmp_caveats_summary",
                    k=int((self.pairs[col.CAVEATS] != "").sum()),
                    which=which,
                )
            )
        lines += [said] if said else []
        lines += configuration_lines(self.c.sources)
        quartiles = self.pairs[self.pairs[col.BASIS] == "quartiles"]
        if len(quartiles):
            lines.append(T("cmp_basis_quartiles", k=len(quartiles), n=len(self.pairs)))
        else:
            lines.append(T("cmp_basis_samples", resamples=self.c.settings.resamples))
        return "\n\n".join(lines)

    # --- per variant ----------------------------------------------------------------
    def _changed(self) -> str:
        moved = self.pairs[self.pairs[col.VERDICT] != C.SAME][[col.FAMILY, col.VARIANT]]
        changed = self.c.sources[self.c.sources[col.CODE] == "changed"]
        keys = sorted(
            set(map(tuple, moved.to_numpy().tolist()))
            | set(map(tuple, changed[[col.FAMILY, col.VARIANT]].to_numpy().tolist()))
        )
        out = [f"## {T('h_cmp_changed')}"]
        if not keys:
            out.append(T("cmp_all_same"))
        for family, variant in keys:
            out.append(self._variant(str(family), str(variant)))
        unknown = int((self.c.sources[col.CODE] == "unknown").sum())
        if unknown:
            out.append(T("cmp_code_unknown_count", k=unknown))
        return "\n\n".join(out)

    def _variant(self, family: str, variant: str) -> str:
        rows = self.pairs[
            (self.pairs[col.FAMILY] == family) & (self.pairs[col.VARIANT] == variant)
        ]
        out = [f"### {code(family)} {code(variant)}", self._size_table(rows)]
        out.append(self._code(family, variant))
        out += self._counters(family, variant)
        out += self._rules(family, variant)
        return "\n\n".join(p for p in out if p)

    def _size_table(self, rows: pd.DataFrame) -> str:
        frame = pd.DataFrame(
            {
                "n": rows[col.SIZE],
                T("cmp_col_a"): rows[col.MEDIAN_A_US].map(_us),
                T("cmp_col_b"): rows[col.MEDIAN_B_US].map(_us),
                T("cmp_col_change"): rows[col.CHANGE_PCT].map(_pct),
                T("cmp_col_interval"): [
                    f"{100 * (lo - 1):+.1f}% .. {100 * (hi - 1):+.1f}%"
                    for lo, hi in zip(rows[col.CI_LOW], rows[col.CI_HIGH], strict=True)
                ],
                T("cmp_col_threshold"): rows[col.THRESHOLD_PCT].map(
                    lambda v: f"{v:.1f}%"
                ),
                T("cmp_col_verdict"): rows[col.VERDICT].map(lambda v: f"**{v}**"),
                T("cmp_col_caveats"): rows[col.CAVEATS].map(self._caveats),
            }
        )
        return table(frame)

    def _caveats(self, codes: str) -> str:
        return "; ".join(T(f"cmp_caveat_{c}") for c in codes.split(";") if c)

    def _code(self, family: str, variant: str) -> str:
        src = self.sources.get((family, variant))
        if src is None:
            return T("cmp_code_unknown")
        if src[col.CODE] == "changed":
            files = ", ".join(code(f) for f in str(src[col.FILES]).split(", "))
            return (
                T("cmp_code_changed", files=files)
                + "\n\n"
                + fenced(str(src[col.DIFF]), "diff")
            )
        if src[col.CODE] == "same":
            return T(
                "cmp_code_same",
                a=code(src[col.REVISION_A]),
                b=code(src[col.REVISION_B]),
            )
        return T("cmp_code_unknown")

    def _counters(self, family: str, variant: str) -> list[str]:
        mine = self.c.counters[
            (self.c.counters[col.FAMILY] == family)
            & (self.c.counters[col.VARIANT] == variant)
        ]
        if mine.empty:
            return [T("cmp_counters_not_profiled")]
        out = []
        for size, group in mine.groupby(col.SIZE, sort=True):
            moved = group[group[col.MOVED]].sort_values(col.SCORE, ascending=False)
            if moved.empty:
                out.append(
                    T("cmp_counters_none", n=size, rel=100 * MOVED_REL, pp=MOVED_PP)
                )
                continue
            frame = pd.DataFrame(
                {
                    T("cmp_col_counter"): moved[col.COUNTER].map(code),
                    "A": moved[col.A].map(_count),
                    "B": moved[col.B].map(_count),
                    T("cmp_col_change"): [
                        f"{c:+.1f} pp" if k == "pp" else _pct(c)
                        for c, k in zip(moved[col.CHANGE], moved[col.KIND], strict=True)
                    ],
                }
            )
            text = frame.to_markdown(index=False, disable_numparse=True)
            out.append(T("cmp_counters_at", n=size) + "\n\n" + text)
        return out

    def _rules(self, family: str, variant: str) -> list[str]:
        r = self.c.rules
        mine = r[(r[col.FAMILY] == family) & (r[col.VARIANT] == variant)]
        items = [
            "- "
            + T(
                f"cmp_rule_{row['change']}",
                rule=code(row[col.RULE]),
                kernel=code(row[col.KERNEL]),
                n=row[col.SIZE],
                speedup=""
                if math.isnan(row[col.SPEEDUP_PCT])
                else T("cmp_rule_speedup", pct=row[col.SPEEDUP_PCT]),
            )
            for row in mine.to_dict("records")
        ]
        return ["\n".join(items)] if items else []

    # --- runs as a whole ------------------------------------------------------------
    def _statuses(self) -> str:
        s, one = self.c.statuses, self.c.unpaired
        out = []
        if len(one):
            items = [
                f"{code(f)} {code(v)} n = {n} ({side})"
                for f, v, n, side in one[
                    [col.FAMILY, col.VARIANT, col.SIZE, "timed_in"]
                ].itertuples(index=False)
            ]
            out.append(T("cmp_unpaired", items="; ".join(items)))
        if s.empty:
            return "\n\n".join([f"## {T('h_cmp_status')}", *out]) if out else ""
        frame = pd.DataFrame(
            {
                T("cmp_col_family"): s[col.FAMILY].map(code),
                T("cmp_col_variant"): s[col.VARIANT].map(code),
                "A": s["status_a"].map(code),
                "B": s["status_b"].map(code),
            }
        )
        return "\n\n".join(
            [f"## {T('h_cmp_status')}", T("cmp_status_intro"), table(frame), *out]
        )

    def _provenance(self) -> str:
        """What each run was measured with.

        Fields with one value per run go in a table; fields that differ between
        families get one line each, families with the same values grouped.
        """
        p = self.c.provenance[~self.c.provenance["field"].isin([col.DATE, "host"])]
        if p.empty:
            return ""
        rows, lines = [], []
        for field, group in p.groupby("field", sort=False):
            label = T(f"cmp_field_{field}")
            pairs: dict[tuple[str, str], list[str]] = {}
            for family, va, vb in group[[col.FAMILY, col.A, col.B]].itertuples(
                index=False
            ):
                pairs.setdefault((str(va), str(vb)), []).append(str(family))
            if len(pairs) == 1:
                ((va, vb),) = pairs
                changed = T("cmp_yes") if group["changed"].any() else ""
                rows.append(
                    {
                        T("cmp_col_field"): label,
                        "A": _value(va),
                        "B": _value(vb),
                        T("cmp_col_changed"): changed,
                    }
                )
                continue
            items = [
                f"{', '.join(code(f) for f in fams)}: {_value(va)} -> {_value(vb)}"
                if va != vb
                else f"{', '.join(code(f) for f in fams)}: {_value(va)}"
                for (va, vb), fams in pairs.items()
            ]
            lines.append(f"- {label}: " + "; ".join(items))
        out = [f"## {T('h_cmp_provenance')}"]
        if rows:
            out.append(table(pd.DataFrame(rows)))
        if lines:
            out.append(T("cmp_provenance_by_family") + "\n\n" + "\n".join(lines))
        return "\n\n".join(out)

    def _shares(self) -> str:
        s = self.c.shares
        if s.empty:
            return ""
        out = [f"## {T('h_cmp_gpus')}", T("cmp_gpus_intro")]
        for family, rows in s.groupby(col.FAMILY, sort=True):
            rows = rows[rows[col.SIZE] == rows[col.SIZE].max()]  # the ladder at its top
            frame = pd.DataFrame(
                {
                    T("cmp_col_variant"): rows[col.VARIANT].map(code),
                    "n": rows[col.SIZE],
                    "B / A": rows[col.RATIO].map(lambda v: f"{v:.3f}"),
                    T("cmp_col_ceiling"): rows["ceiling"].map(
                        lambda c: T(f"cmp_ceiling_{c}")
                    ),
                    T("cmp_col_pct_a"): rows["pct_a"].map(lambda v: f"{v:.0f}%"),
                    T("cmp_col_pct_b"): rows["pct_b"].map(lambda v: f"{v:.0f}%"),
                }
            )
            out.append(f"### {code(family)}\n\n{table(frame)}")
        return "\n\n".join(out)

    def _all_pairs(self) -> str:
        if self.pairs.empty:
            return ""
        out = [f"## {T('h_cmp_all')}", T("cmp_all_intro")]
        for family, rows in self.pairs.groupby(col.FAMILY, sort=True):
            cells = rows.assign(
                cell=[
                    f"{_pct(c)} {v if v != C.SAME else '='}"
                    for c, v in zip(
                        rows[col.CHANGE_PCT], rows[col.VERDICT], strict=True
                    )
                ]
            ).pivot(index=col.VARIANT, columns=col.SIZE, values="cell")
            cells.index = [code(v) for v in cells.index]
            frame = cells.reset_index().rename(columns={"index": T("cmp_col_variant")})
            frame.columns = [str(c) for c in frame.columns]
            out.append(f"### {code(family)}\n\n{table(frame)}")
        return "\n\n".join(out)

    def _method(self) -> str:
        return f"## {T('h_cmp_method')}\n\n" + "\n\n".join(
            T(
                key,
                floor=100 * self.c.settings.min_change,
                rel=100 * MOVED_REL,
                pp=MOVED_PP,
            )
            for key in ("cmp_method_ratio", "cmp_method_verdict", "cmp_method_counters")
        )
