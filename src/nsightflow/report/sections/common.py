"""What the report's sections share: number formats, tables, sources and the base builder.

:class:`SectionBase` holds one family's analysis files and answers the look-ups every
section needs; the sections themselves are in :mod:`nsightflow.report.sections.family`,
:mod:`nsightflow.report.sections.steps` and :mod:`nsightflow.report.sections.appendix`.
"""

import difflib
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.analysis.derived import input_column
from nsightflow.contracts import columns as col
from nsightflow.diagnosis import core as diagnose
from nsightflow.diagnosis.record import render_row
from nsightflow.i18n import T, parse_language
from nsightflow.i18n.markup import code_span
from nsightflow.report.text import inline, plain


def fmt(value: Any, digits: int = 2, unit: str = "") -> str:
    """A number for the text: ``n/a`` when missing, thousands separated from 1000."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float) and abs(value) >= 1000:
        return f"{value:,.0f}{unit}"
    return f"{value:.{digits}f}{unit}" if isinstance(value, float) else f"{value}{unit}"


def delta(name: str, before: Any, after: Any, unit: str = "", digits: int = 2) -> str:
    """``name before -> after (+x.x%)``, the relative change left out when undefined."""
    change = diagnose.pct_change(before, after)
    tail = "" if math.isnan(change) else f" ({change:+.1f}%)"
    return f"{name} {fmt(before, digits)}{unit} -> {fmt(after, digits)}{unit}{tail}"


def table(frame: pd.DataFrame, numbers: bool = True) -> str:
    """A Markdown table of a frame, missing values as blank cells.

    Args:
        frame: The table.
        numbers: Format numbers (and text that reads as one) with two decimals;
            False writes every cell as it is (cells formatted by the caller).
    """
    clean = frame.astype(object).where(frame.notna(), None)  # NaN -> blank cell
    return clean.to_markdown(
        index=False, floatfmt=",.2f", missingval="", disable_numparse=not numbers
    )


def bullets(items: Iterable[str]) -> list[str]:
    """Markdown list items."""
    return [f"- {item}" for item in items]


def figure(caption_key: str, name: str) -> str:
    """A Markdown image of one of the plot stage's figures."""
    return f"![{T(caption_key)}](figures/{name}.png)"


def demote(text: str, levels: int = 1) -> str:
    """Markdown with every heading ``levels`` deeper (code blocks left as they are)."""
    out, fence = [], ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence) and not stripped.strip("`~"):
                fence = ""
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`~"))]
        elif line.startswith("#"):
            line = "#" * levels + line
        out.append(line)
    return "\n".join(out)


def source(path: str) -> str:
    """A variant's source text, or a comment saying it is missing."""
    file = Path(path)
    return file.read_text().strip() if file.is_file() else f"// {path} not found"


def diff(before: str, after: str) -> str:
    """Unified diff of two variant sources, file names as in the kernels folder."""
    a = source(before).splitlines()
    b = source(after).splitlines()
    lines = difflib.unified_diff(
        a, b, fromfile=Path(before).name, tofile=Path(after).name, lineterm="", n=2
    )
    return "\n".join(lines)


class SectionBase:
    """One family's analysis files and the look-ups every section needs.

    Args:
        analysis: ``analysis.csv``: one row per variant and size.
        stalls: ``stalls.csv``: stall reasons per variant and profiled size.
        rules: ``rules.csv``: Nsight Compute's rule results (may be empty).
        ctx: ``context.json``: family manifest, variants, ceilings, provenance.
        language: Language of the report's text, ``en`` or ``zh``.
        findings: ``findings.csv``; None where the analysis folder lacks it: the
            report then names no cause and says so.

    Raises:
        ValueError: The language is not one the catalogue has.
    """

    def __init__(
        self,
        analysis: pd.DataFrame,
        stalls: pd.DataFrame,
        rules: pd.DataFrame,
        ctx: dict[str, Any],
        language: str = "en",
        findings: pd.DataFrame | None = None,
    ) -> None:
        self.a = analysis.copy()
        if col.INPUT in self.a:
            self.a[col.INPUT] = input_column(self.a[col.INPUT])
        self.stalls = stalls
        self.diagnosed = findings is not None
        self.findings = findings if findings is not None else pd.DataFrame()
        self.rules = rules
        self.ctx = ctx
        self.language = parse_language(language)
        self.fam = ctx[col.FAMILY]
        self.variants = {v[col.NAME]: v for v in ctx["variants"]}
        profiled = analysis[analysis["profiled"].astype(bool)][col.SIZE]
        self.profile_sizes = (
            sorted(profiled.unique().tolist()) or self.fam["profile_sizes"]
        )
        self.key_size = (
            max(self.profile_sizes) if self.profile_sizes else max(self.fam[col.SIZES])
        )
        self.notes: dict[str, int] = {}  # metric -> its footnote's number

    def note(self, metric: str) -> str:
        """A footnote mark naming ``metric``, the first time the body gives it.

        Later numbers of the same metric carry no mark: the reader has been told
        where it comes from. The footnotes are written by :meth:`glossary`.
        """
        metric = " ".join(str(metric).split())
        if not metric or metric in self.notes:
            return ""
        self.notes[metric] = len(self.notes) + 1
        return f"[^m{self.notes[metric]}]"

    def found(
        self,
        section: str,
        variant: str | None = None,
        size: int | None = None,
    ) -> list[dict[str, Any]]:
        """The stored findings of one section (and variant, size), in report order."""
        f = self.findings
        if f.empty:
            return []
        hit = f[col.SECTION] == section
        if variant is not None:
            hit &= f[col.VARIANT] == variant
        if size is not None:
            hit &= f[col.SIZE] == size
        return [{str(k): v for k, v in r.items()} for r in f[hit].to_dict("records")]

    def said(self, records: list[dict[str, Any]]) -> list[str]:
        """The findings' sentences in the report's language, primary and rivals marked."""
        out = []
        for r in records:
            text = render_row(r)
            if r[col.ROLE] == "primary" and r[col.SECTION] in ("baseline", "step"):
                text = T("role_primary", text=text)
            elif r[col.ROLE] == "secondary":
                text = T("role_secondary", text=text)
            out.append(text)
        return out

    def lens(self) -> str:
        """The family's throughput lens: ``compute`` (GFLOP/s) or ``memory`` (GB/s).

        The lens of most rows (analysis ``lens``: the side of the ridge the ideal
        intensity is on), so that one family reads in one unit.
        """
        lenses = self.a["lens"].dropna() if "lens" in self.a else pd.Series(dtype=str)
        return str(lenses.mode().iloc[0]) if not lenses.empty else "memory"

    def inputs(self) -> dict[str, list[str]]:
        """Variant names per input (generator arguments), the baseline's input first."""
        base = self.variants[self.fam["baseline"]].get(col.INPUT, "")
        groups: dict[str, list[str]] = {base: []}
        for name, v in self.variants.items():
            groups.setdefault(v.get(col.INPUT, ""), []).append(name)
        return groups

    def row(self, variant: str, size: int) -> dict[str, Any]:
        """The analysis row of a variant at a size (empty dict when absent)."""
        rows = self.a[(self.a[col.VARIANT] == variant) & (self.a[col.SIZE] == size)]
        return {str(k): v for k, v in rows.iloc[0].items()} if not rows.empty else {}

    def rule_quotes(
        self, variant: str, size: int, section: str | None = None
    ) -> list[str]:
        """Nsight Compute's optimization rules for one launch, quoted as it wrote them."""
        if self.rules.empty:
            return []
        r = self.rules[
            (self.rules[col.VARIANT] == variant)
            & (self.rules[col.SIZE] == size)
            & (self.rules[col.TYPE] == "optimization")
        ]
        if section:
            r = r[r[col.SECTION] == section]
        out = []
        # a multi-kernel run: say which launch's kernel each rule is about
        several = col.KERNEL in r and r[col.KERNEL].nunique() > 1
        for rule in r.to_dict("records"):
            pct = float(rule[col.SPEEDUP_PCT])
            speedup = "" if math.isnan(pct) else T("rule_quote_speedup", pct=pct)
            # the report's text, not nsightflow's: emphasis and web links at most
            text = inline(diagnose.clean_ncu_text(str(rule[col.MESSAGE])))
            if several:
                text = f"{code_span(str(rule['kernel']))}: {text}"
            name = plain(rule[col.RULE])
            out.append("> " + T("rule_quote", rule=name, speedup=speedup, text=text))
        return out
