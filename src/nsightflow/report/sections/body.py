"""Section 2 of the body: each optimization step in the shape of the seed report.

One short section per step: its outcome before -> after at the largest profiled size,
the primary cause in one sentence with the numbers that decide it and the source line
it sits on, at most two secondary causes in a line each, what was expected against
what was observed, the step's figure, and a link to the step in full in the appendix
(diff, every metric at every profiled size, ncu's rule texts, hot lines). Each
sentence has its own template, so none repeats within a step; a metric's ncu name is
a footnote mark where its number is first given (:meth:`SectionBase.note`).
"""

import math
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.account import RESIDUALS
from nsightflow.diagnosis.claims import CLAIMS
from nsightflow.diagnosis.credit import NAMED, OTHER_STALLS
from nsightflow.diagnosis.record import render_row
from nsightflow.diagnosis.verdict import threshold_pct
from nsightflow.i18n import T
from nsightflow.i18n.short_causes import short_cause
from nsightflow.plot.names import step_figured
from nsightflow.report.embed import slug
from nsightflow.report.sections.by_size import spans, verdicts
from nsightflow.report.sections.config_split import config_why
from nsightflow.report.sections.expected_line import expected_line
from nsightflow.report.sections.quantities import (
    change_text,
    cited_line,
    code_text,
    line_variant,
    params_of,
    part_text,
    pct_text,
    quantity,
    reasons_of,
    size_text,
    us_text,
)
from nsightflow.report.sections.step_notes import dram_moved, untimed_init
from nsightflow.report.sections.step_parts import listed
from nsightflow.report.sections.step_parts import rest as rest_line
from nsightflow.report.sections.steps import StepSections
from nsightflow.report.text import inline, plain

# causes shown beside the new variant's hottest line, never "at" it: about no access,
# or a change (wider loads) whose line the samples do not name (its stall's line is)
NO_ACCESS = (
    "launch_changed",
    "launch_removed",
    "launch_added",
    "step_time_only",
    "step_not_in_counters",
    "wider_accesses",
)
SENTENCE_KEYS = ("step_why", "step_also", "step_smaller")  # rank 1, 2, 3


class BodySections(StepSections):
    """The steps of the body, each linked to its part of the appendix."""

    detail_numbers: dict[str, int]  # variant -> number of its appendix part

    def steps_body(self) -> str:
        """Section 2: one short section per step."""
        lines = [f"## {T('h_steps')}"]
        for k, name in enumerate(self.step_names(), start=1):
            lines += ["", *self._step_body(k, name)]
        return "\n".join(lines)

    def _by_size(self, name: str, prev: str) -> str:
        """The step's verdict at every size both variants were timed at."""
        sizes = sorted(int(n) for n in self.fam[col.SIZES])
        found = spans(verdicts(sizes, self.row, prev, name))
        parts = [
            T(
                "by_size_span" if a != b else "by_size_one",
                verdict=T(f"by_size_{v}"),
                first=size_text(a),
                last=size_text(b),
            )
            for v, a, b in found
        ]
        return T("step_by_size", spans="; ".join(parts)) if parts else ""

    def _step_body(self, k: int, name: str) -> list[str]:
        v = self.variants[name]
        prev = str(v[col.IMPROVES_ON])
        lines = ["### " + T("h_step", k=k, variant=name, idea=inline(v[col.IDEA])), ""]
        if v[col.STATUS] != Status.OK:
            message = plain(str(v.get(col.MESSAGE, ""))[:200])
            lines.append(
                T("step_failed", variant=name, status=v[col.STATUS], message=message)
            )
        elif not step_figured(self.variants, name):  # a step onto another input
            lines += [render_row(r) for r in self.found("step", name)]
        else:
            lines += self._outcome(name, prev)
        return [*lines, "", self._more(name)]

    def _outcome(self, name: str, prev: str) -> list[str]:
        """Outcome, causes, expected against observed, and the figure of one step."""
        n = self.key_size
        a = self.row(prev, n).get(col.TIME_MEDIAN_US)
        b = self.row(name, n).get(col.TIME_MEDIAN_US)
        out = self._head(name, prev, a, b)
        found = self._step_found(name)
        changed = any(r[col.RULE] == "step_params_changed" for r in found)
        split, counters = (
            config_why(
                self.variants,
                (self.ctx.get("sweep") or {}).get(col.CONFIGS),
                (name, prev),
                n,
                (_float(a), _float(b) - _float(a)),
            )
            if changed
            else ("", "")
        )
        # a split names the previous configuration and both parts: it stands for the
        # sentence that says only that code and configuration changed together
        ran = {"step_params_text"} | (set() if counters else {"step_params_changed"})
        out += [render_row(r) for r in found if r[col.RULE] in ran]
        out += [split] if split else []
        causes = [r for r in found if r[col.ROLE] in ("primary", "secondary")]
        if not causes:
            out.append(T("step_unprofiled"))
        causes = [r for r in causes if r[col.RULE] not in RESIDUALS]
        de = _float(b) - _float(a)
        shown = listed(causes, found, de)
        out += self._causes(shown, (name, prev), counters)
        rest = rest_line(found, shown, de)
        if rest:
            out.append(rest)
        out += dram_moved(found, self.row(prev, n), self.row(name, n))
        out += untimed_init(self.variants, self.ctx.get("timeline"), name, prev)
        # the compiler had made the step's change already (its SASS says how)
        out += [render_row(r) for r in found if r[col.RULE] == "advice_compiler_did"]
        expected = [r for r in found if r[col.RULE] == "expected_observed"]
        if expected:
            both = T("step_expected_both") if counters == "step_counters_why" else ""
            out.append(expected_line(expected[0]) + both)
        out += [render_row(r) for r in found if r[col.RULE] in CLAIMS]
        now = [
            r
            for r in self.found("stand", name, n)
            if str(r[col.RULE]).startswith("limit_")
        ]
        out += [render_row(r) for r in now[:1]]
        figure = f"![{T('fig_step')}](figures/steps/step_{name}.png)"
        return [" ".join(out), "", figure]

    def _head(self, name: str, prev: str, a: Any, b: Any) -> list[str]:
        """The step's outcome at the key size, then its verdict at every size."""
        n = self.key_size
        line = threshold_pct(self.row(prev, n), self.row(name, n))
        change = change_text(a, b, line)
        out = [
            T(
                "step_outcome",
                before=us_text(a),
                after=us_text(b),
                n=size_text(n),
                prev=prev,
                change=change,
            )
            if change
            else T("step_no_time", n=size_text(n), prev=prev, variant=name)
        ]
        return out + [t for t in [self._by_size(name, prev)] if t]

    def _causes(
        self, shown: list[dict[str, Any]], step: tuple[str, str], counters: str
    ) -> list[str]:
        """The listed causes, a sentence each by rank, the rest in one list.

        Where the sweep split the change into code and configuration, ncu's factors
        are of both together (ncu profiled the new code at its own configuration only).
        """
        variants = list(step)
        keys = (counters, *SENTENCE_KEYS[1:]) if counters else SENTENCE_KEYS
        out = [self._cause(k, r, variants) for k, r in zip(keys, shown, strict=False)]
        if len(shown) > len(keys):
            items = [self._cause("step_item", r, variants) for r in shown[len(keys) :]]
            out.append(T("step_smaller_list", items="; ".join(items)))
        return out

    def _step_found(self, name: str) -> list[dict[str, Any]]:
        """The step's findings at the largest size that has them (key size first)."""
        found = self.found("step", name, self.key_size)
        if found:
            return found
        for n in sorted(self.profile_sizes, reverse=True):
            found = self.found("step", name, n)
            if found:
                return found
        return []

    def _cause(self, key: str, record: dict[str, Any], variants: list[str]) -> str:
        """One cause in one sentence: its name, the numbers that moved, its line."""
        q = quantity(record)
        cause = _cause_name(record) + self._conflicts(record, variants)
        cause += self._spills(record, variants)
        what = ""
        if q:
            # "occupancy: achieved occupancy 74% -> 86%" says the name twice
            named = cause.lower() in q.name.lower()
            what = T(
                "what_bare" if named else "what_clause",
                name=q.name + self.note(q.metric),
                before=q.before,
                after=q.after,
            )
            what += q.each
            cause = "" if named else cause
        part = part_text(record)
        fields = {
            "cause": cause,
            "what": what,
            "alone": T("part_clause", part=part) if part else "",
        }
        if key not in ("step_why", "step_counters_why", "step_counters_code"):
            return T(key, **fields)
        # a step cites its own variant's lines: a cause that fell sat on a line of
        # the variant before, which is not this step's code; the new variant's
        # hottest line is cited instead
        own_line = line_variant(record) in ("", variants[0])
        cited = record if own_line else {**record, col.LINE: None}
        hot, n = self.ctx.get("hotspots"), int(record[col.SIZE])
        line = cited_line(hot, variants[:1], n, cited)
        fallback = line is None  # no line of its own: the new variant's hottest
        if fallback:
            bare = {**record, col.LINE: None, col.EVIDENCE: ""}  # its launch kept
            line = cited_line(hot, variants[:1], n, bare)
        if line is None:
            return T(key, line="", **fields)
        # a cause with stall reasons (or a line of its own) sits on its line; any
        # other is shown with the line where the new variant's warps spend most time
        own = (
            own_line
            and not fallback
            and str(record[col.RULE]) not in NO_ACCESS
            and (bool(reasons_of(record)) or _has_line(record))
        )
        # without a line of its own the cause is shown where its stall reasons are
        # largest, which need not be the kernel's hottest line (SGEMM v1: its global
        # loads' waits at line 30, 13% of the samples; the MIO waits at line 34, 70%)
        kind = "hot_clause" if fallback or not reasons_of(cited) else "wait_clause"
        where = T(
            "line_clause" if own else kind,
            line=line.line,
            variant=line.where,
            code=code_text(line.code),
            share=pct_text(100 * line.share),
            **({} if own else {col.REASON: line.reason}),
        )
        return T(key, line=where, **fields)

    def _conflicts(self, record: dict[str, Any], variants: list[str]) -> str:
        """A mechanism said with its own counter beside the waits it cost.

        The step's time factor is a stall's cycles; the mechanism is named from its
        own counter, so the cause names both: bank conflicts by the replays ncu
        counts (``smem_conflict_share``, SGEMM v2 -> v3: 84% -> 1%). Local memory
        is quoted by its sectors as its quantity (SGEMM v4 -> v5: 134.7 M -> 0).
        """
        own = OWN_COUNTERS.get(str(record[col.RULE]))
        if own is None:
            return ""
        column, key, scale = own
        n = int(record[col.SIZE])
        x, y = (_float(self.row(v, n).get(column)) for v in variants[::-1])
        if math.isnan(x) or math.isnan(y):
            return ""
        return T(key, before=scale * x, after=scale * y)

    def _spills(self, record: dict[str, Any], variants: list[str]) -> str:
        """Local memory beside the compiler's spills that make it, where it spilled.

        SGEMM v4 -> v5: 134.7 M local sectors -> 0 reads as a large array in local
        memory; ptxas spilled 4 bytes a thread in ``v4`` (the sectors are about 4 per
        warp per k-step: one 4-byte reload a thread each step).
        """
        if record[col.RULE] != "local_memory":
            return ""
        spills = [
            (self.variants[v].get("resources") or {}).get("spill_store_bytes")
            for v in variants[::-1]
        ]
        if not all(isinstance(b, int | float) for b in spills) or not any(spills):
            return ""
        return T("step_spills", before=spills[0], after=spills[1])

    def _more(self, name: str) -> str:
        """The link to the step in full, in the appendix."""
        k = self.detail_numbers.get(name, 0)
        return T(
            "step_more",
            sizes=", ".join(size_text(n) for n in self.profile_sizes),
            label=T("appendix_ref", k=k),
            anchor=f"detail-step-{slug(name)}",
        )


# a cause's own counter: (analysis column, message, scale of its values)
OWN_COUNTERS = {
    "bank_conflicts": ("smem_conflict_share", "cause_conflict_share", 100.0),
}


def _cause_name(record: dict[str, Any]) -> str:
    """A cause's short name; the pooled stalls with their names, by why pooled."""
    rule = str(record[col.RULE])
    if rule != OTHER_STALLS:
        return short_cause(rule)
    pooled = params_of(record).get("pooled") or {}
    groups, left = [], NAMED  # the largest few by why, the rest counted
    for why, names in pooled.items():
        said = [short_cause(n) for n in names[: max(left, 1)]]
        if len(names) > len(said):
            said.append(T("pooled_more", k=len(names) - len(said)))
        left -= len(said)
        groups.append(T(f"pooled_{why}", names=T("expected_or").join(said)))
    joined = groups[0] if groups else ""
    for group in groups[1:]:  # a semicolon between groups, in either language
        joined = T("pooled_and", head=joined, tail=group)
    return T("other_stalls_body", groups=joined)


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _has_line(record: dict[str, Any]) -> bool:
    try:
        return float(record.get(col.LINE)) > 0  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
