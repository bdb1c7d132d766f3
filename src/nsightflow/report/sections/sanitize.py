"""The report's section on compute-sanitizer: memcheck and racecheck per variant.

Reads the ``sanitize`` entry each variant has in ``context.json`` (see
:func:`nsightflow.tools.sanitizer.summary`); a family without any says why: the stage was
switched off, compute-sanitizer was missing on the machine that measured, or the
recording predates the stage.
"""

from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.report.sections.common import SectionBase, table
from nsightflow.report.text import code_block, plain

_NOT_RUN = (Status.SANITIZER_UNAVAILABLE, Status.NOT_RECORDED)


def _cell_text(text: str) -> str:
    """Sanitizer text in a table cell: a code span, nothing that breaks the table."""
    return "`" + text.replace("`", "'").replace("|", "/") + "`"


def _size(value: Any) -> str:
    """A size as the integer it is (a float column would print 1,000.00)."""
    return "" if value is None or value != value else str(int(value))


def tool_cell(tool: dict[str, Any] | None, record: dict[str, Any]) -> str:
    """One tool's outcome for the table."""
    if record[col.STATUS] == Status.NOT_RECORDED:
        return T("not_recorded")
    if record[col.STATUS] == Status.SKIPPED:
        return T("san_skipped", status=record.get("upstream_status", "?"))
    if tool is None:  # not run: the stage stopped before it
        return ""
    status = tool.get(col.STATUS)
    if status == Status.ERRORS:
        return T("san_errors", n=tool.get("errors") or "?")
    if status == Status.NOT_APPLICABLE:
        return T("san_no_smem")
    return T(
        {"clean": "san_clean", "timeout": "san_timeout"}.get(str(status), "san_failed")
    )


def _clean_sentence(records: dict[str, dict[str, Any]]) -> str:
    """The clean sentence, said of the variants a tool ran on, not of the family.

    A recording where one variant of six was checked (the others not recorded) has
    one clean variant, not six: the sentence names what was checked.
    """
    checked = [
        name
        for name, r in records.items()
        if any(t.get(col.STATUS) in (Status.CLEAN, Status.ERRORS) for t in r["tools"])
    ]
    if len(checked) == len(records):
        return T("sanitizer_all_clean", n=len(checked))
    return T(
        "sanitizer_some_clean",
        k=len(checked),
        n=len(records),
        variants=", ".join(f"`{n}`" for n in checked) or "-",
    )


class SanitizeSections(SectionBase):
    """Memory and race checks (compute-sanitizer)."""

    def sanitizer(self) -> str:
        """The section: what ran, a row per variant, the first findings."""
        records = {
            name: v["sanitize"]
            for name, v in self.variants.items()
            if v.get("sanitize") is not None
        }
        head = ""
        if not records:
            return head + T("sanitizer_off")
        statuses = {r[col.STATUS] for r in records.values()}
        if statuses == {Status.NOT_RECORDED}:
            return head + T("sanitizer_not_recorded")
        if statuses - {Status.SKIPPED} <= set(_NOT_RUN):
            unavailable = next(
                r
                for r in records.values()
                if r[col.STATUS] == Status.SANITIZER_UNAVAILABLE
            )
            return head + T(
                "sanitizer_unavailable", why=plain(unavailable[col.MESSAGE])
            )
        version = next((r["version"] for r in records.values() if r["version"]), "?")
        parts = [T("sanitizer_intro", version=version), self._table(records)]
        marked = [
            n for n, v in self.variants.items() if v[col.STATUS] == "memcheck_error"
        ]
        if marked:
            parts.append(
                T("sanitizer_marked", variants=", ".join(f"`{n}`" for n in marked))
            )
        elif not any(
            t.get(col.STATUS) == Status.ERRORS
            for r in records.values()
            for t in r["tools"]
        ):
            parts.append(_clean_sentence(records))
        parts += self._first_findings(records)
        return head + "\n\n".join(parts)

    @staticmethod
    def _table(records: dict[str, dict[str, Any]]) -> str:
        rows = []
        for name, record in records.items():
            tools = {t["tool"]: t for t in record["tools"]}
            kinds = [k for t in record["tools"] for k in t.get("kinds", {})]
            rows.append(
                {
                    T("col_variant"): f"`{name}`",
                    T("col_n"): _size(record.get(col.SIZE)),
                    T("col_memcheck"): tool_cell(tools.get("memcheck"), record),
                    T("col_racecheck"): tool_cell(tools.get("racecheck"), record),
                    T("col_findings"): "; ".join(_cell_text(k) for k in kinds[:3]),
                }
            )
        return table(pd.DataFrame(rows))

    @staticmethod
    def _first_findings(records: dict[str, dict[str, Any]]) -> list[str]:
        """The first lines of each tool's findings, as the sanitizer wrote them."""
        parts = []
        for name, record in records.items():
            for tool in record["tools"]:
                if tool.get(col.STATUS) != Status.ERRORS or not tool.get("first"):
                    continue
                parts.append(
                    T("sanitizer_first", variant=name, tool=tool["tool"])
                    + "\n\n"
                    + code_block("\n".join(tool["first"]), "text")
                )
        return parts
