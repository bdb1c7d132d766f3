"""A family report: a one-page brief, a short body, and everything else in an appendix.

The reader is a GPU performance engineer who wants, in five minutes, the best variant
and how close it is to the hardware, why each step helped or did not, and what to try
next. So the report has three parts:

1. the brief (:mod:`nsightflow.report.sections.brief`): the result, one ladder
   table, one figure, what next;
2. the body: the bound in a few lines of arithmetic, then one short section per step
   (:mod:`nsightflow.report.sections.body`);
3. the appendix: every table and finding behind the body, each part numbered A.k
   (summary, sizes, bound per size, the baselines under Nsight Compute, the plan, each
   step in full, sweeps, failures, timeline, sanitizer, conclusion, measurement
   checks, limitations, provenance, and the metrics behind the body's footnote marks).

Every sentence, heading and table header comes from the catalogue of
:mod:`nsightflow.i18n`, in the language the builder was given.
"""

from collections.abc import Callable

from nsightflow import i18n
from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.i18n.markup import code_span
from nsightflow.report.embed import slug
from nsightflow.report.sections.appendix import AppendixSections
from nsightflow.report.sections.body import BodySections
from nsightflow.report.sections.brief import BriefSections
from nsightflow.report.sections.common import demote, figure
from nsightflow.report.sections.energy import EnergySections
from nsightflow.report.sections.quantities import size_text
from nsightflow.report.sections.sanitize import SanitizeSections
from nsightflow.report.sections.sweep import SweepSections
from nsightflow.report.sections.timeline import TimelineSections
from nsightflow.report.text import inline, plain

# A part of the appendix: its heading's catalogue key and fields, and its content.
Part = tuple[str, dict[str, object], Callable[[], str]]


MD_ANCHOR = '<a id="{}"></a>\n'  # an anchor line of report.md, before its heading


class ReportBuilder(
    BriefSections,
    BodySections,
    AppendixSections,
    TimelineSections,
    SanitizeSections,
    SweepSections,
    EnergySections,
):
    """Assembles the Markdown of one family from its analysis files.

    Args:
        analysis: ``analysis.csv``: one row per variant and size.
        stalls: ``stalls.csv``: stall reasons per variant and profiled size.
        rules: ``rules.csv``: Nsight Compute's rule results (may be empty).
        ctx: ``context.json``: family manifest, variants, ceilings, provenance.
        language: Language of the report's text, ``en`` (default) or ``zh``.
        findings: ``findings.csv``; None runs the rules here.

    :meth:`build` writes every section in that language; a section method called on
    its own writes in the language in force (see :func:`nsightflow.i18n.language`).
    """

    def build(self) -> str:
        """The whole report, in the builder's language."""
        with i18n.language(self.language):
            self.notes.clear()
            parts = self._numbered(self._parts())  # numbers the steps' link targets
            body = [self.header(), self.brief(), self.bound_body(), self.steps_body()]
            appendix = [f"## {T('h_appendix')}", T("appendix_intro", family=self.name)]
            appendix += [demote(text) for text in parts]
            glossary = self.glossary()  # after the body: it lists the body's marks
            if glossary:
                k = len(parts) + 1
                appendix.append(f"### {T('h_glossary', k=k)}\n\n{glossary}")
        return "\n\n".join(p for p in [*body, *appendix] if p) + "\n"

    @property
    def name(self) -> str:
        """The family's name (its folder)."""
        return str(self.fam.get(col.NAME, ""))

    def header(self) -> str:
        """Title, description, and one line on where the numbers come from."""
        return "\n".join(
            [
                "# " + T("h_report", title=inline(self.fam["title"])),
                "",
                inline(self.fam["description"], paragraphs=True),
                "",
                self._origin(),
                *([] if self.diagnosed else ["", "> " + T("no_findings")]),
            ]
        )

    def _origin(self) -> str:
        timing = self.ctx["provenance"].get("timing", {})
        replay = self.ctx.get("replay")
        if not timing.get(col.DATE) and not replay:
            return T("no_timing")
        gpu = timing.get(col.GPU) or (replay or {}).get(col.GPU)
        gpu = plain(gpu) if gpu else T("unknown_gpu")
        date = plain(
            str(timing.get(col.DATE) or (replay or {}).get(col.DATE) or "?")[:10]
        )
        if replay:
            source = code_span(str(replay[col.SOURCE]))
            key = (
                "origin_test_double" if replay.get("test_double") else "origin_replayed"
            )
            return T(key, source=source, gpu=gpu, date=date)
        return T("origin_measured", gpu=gpu, date=date)

    def _parts(self) -> list[Part]:
        """The appendix's parts in order, each built when numbered."""
        n = size_text(self.key_size)
        parts: list[Part] = [
            ("h_summary", {"n": n}, self._summary_part),
            ("h_baseline", {}, self.baseline),
            ("h_theory", {}, self.bound_table),
            ("h_baseline_ncu", {col.VARIANT: self.fam["baseline"]}, self.baseline_ncu),
            ("h_plan", {}, self.plan),
        ]
        for s, name in enumerate(self.step_names(), start=1):
            parts.append(
                ("h_detail_step", {"s": s, col.VARIANT: name}, self._detail(name))
            )
        parts += [
            ("h_app_sweep", {}, self.sweeps),
            ("h_failures", {}, self.failures),
            ("h_app_timeline", {}, self.timeline),
            ("h_sanitizer", {}, self.sanitizer),
            ("h_conclusion", {}, self.conclusion),
            ("h_advice_all", {}, self.advice_all),
            ("h_advice_score", {}, self.advice_scores),
            ("h_measurement", {}, self.measurement),
            ("h_app_energy", {}, self._energy_part),
            ("h_limitations", {}, self.limitations),
            ("h_provenance", {}, self.provenance),
        ]
        return parts

    def _energy_part(self) -> str:
        """The energy section without its own heading (the part gives it one)."""
        return self.energy().split("\n\n", 1)[-1]

    def _detail(self, name: str) -> Callable[[], str]:
        return lambda: self.step_detail(name)

    def _summary_part(self) -> str:
        return self.summary() + "\n\n" + figure("fig_step_changes", "step_changes")

    def _numbered(self, parts: list[Part]) -> list[str]:
        """The non-empty parts as ``## A.k heading`` + content; steps' numbers kept."""
        out: list[str] = []
        self.detail_numbers = {}
        for key, fields, build in parts:
            text = build()
            if not text.strip():
                continue
            k = len(out) + 1
            anchor = ""
            if key == "h_detail_step":
                self.detail_numbers[str(fields[col.VARIANT])] = k
                # the body's links land here in report.md (the HTML page gives the
                # heading this id itself: :data:`MD_ANCHOR` lines are left out there)
                anchor = MD_ANCHOR.format(f"detail-step-{slug(str(fields['variant']))}")
            out.append(f"{anchor}## {T(key, k=k, **fields)}\n\n{text}")
        return out
