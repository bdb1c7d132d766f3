"""Sanitize stage: one launch of each variant under NVIDIA compute-sanitizer.

``memcheck`` runs on every variant that compiled (wrong and crashing ones too: it
names the bad access), ``racecheck`` on those that use shared memory (static bytes
from ptxas in the resources JSON, or the manifest's dynamic ``shared_bytes``). Both
run the worker's ``launch`` task, the same launch ncu profiles, at one small size
(the sanitizers slow kernels down 10-100x), in a process group of its own with a
time limit.

Writes ``results/sanitize/<family>/<variant>.json``: ``status`` (``ok``, ``errors``,
``timeout``, ``skipped``, ``sanitizer_unavailable``), ``message``, ``size`` and one
entry per tool (``status`` clean / errors / timeout / failed / not_applicable, error
count, kinds of finding with counts, the first lines of the findings). A variant
whose memcheck finds a device-side error is marked ``memcheck_error`` by the
analyze stage and kept out of the ranking.
"""

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.family.registry import Variant
from nsightflow.records import Status

PREFIX = "========= "
PRINT_LIMIT = 20  # findings printed per run; the summary still counts them all
FIRST_LINES = 12  # lines of findings kept in the record
# Output that means the sanitizer could not check this device at all.
UNSUPPORTED = (
    "Device not supported",
    "Internal Sanitizer Error",
    "Unable to find injection library",
)
_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?$")
_RACE_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) err")
_API = re.compile(r"Program hit (\w+) .*on CUDA API call to (\w+)")
_RACE = re.compile(r"(Error|Warning): Race reported between (\w+) access")
_RACE_OTHER = re.compile(r"and (\w+) access")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_NOT_FINDINGS = (
    "COMPUTE-SANITIZER",
    "ERROR SUMMARY",
    "RACECHECK SUMMARY",
    "LEAK SUMMARY",
    "Target application returned an error",
)


def shared_memory_bytes(resources: Mapping[str, Any], variant: Variant, n: int) -> int:
    """Shared memory per block: ptxas's static bytes plus the manifest's dynamic ones."""
    static = int(resources.get("resources", {}).get(col.SHARED_BYTES, 0))
    return static + variant.dynamic_shared(n)


def sanitizer_argv(tool: str, target: list[str]) -> list[str]:
    """The compute-sanitizer command line for one tool around the target (pure)."""
    return [
        "compute-sanitizer",
        "--tool",
        tool,
        "--print-limit",
        str(PRINT_LIMIT),
        *target,
    ]


def _findings(lines: list[str]) -> list[list[str]]:
    """Top-level findings, each with its indented detail lines (no host frames)."""
    found: list[list[str]] = []
    for line in lines:
        if not line.startswith(PREFIX):
            continue
        body = line[len(PREFIX) :]
        if not body.strip() or "Host Frame" in body or "host backtrace" in body:
            continue
        if body[0] != " ":
            if not body.startswith(_NOT_FINDINGS):
                found.append([body.strip()])
        elif found and len(found[-1]) < 5:
            found[-1].append(body.strip())
    return found


def _kind(finding: list[str]) -> tuple[str, bool]:
    """A finding's kind, and whether it is a host API error rather than a device one."""
    head = finding[0]
    api = _API.search(head)
    if api:
        return f"CUDA API error {api.group(1)} on {api.group(2)}", True
    race = _RACE.search(head)
    if race:
        other = next(
            (m.group(1) for line in finding[1:] if (m := _RACE_OTHER.search(line))),
            "?",
        )
        return f"race ({race.group(1).lower()}): {race.group(2)} vs {other}", False
    return _HEX.sub("0x...", head), False


def parse_output(text: str) -> dict[str, Any]:
    """Findings of one compute-sanitizer run.

    Returns:
        ``errors`` (the ERROR SUMMARY count, or the racecheck error count; None when
        no summary was printed), ``hazards`` (racecheck), ``device_findings`` and
        ``api_findings`` (printed findings of each sort), ``kinds`` (kind -> count of
        printed findings), ``first`` (the first lines of the findings) and
        ``unsupported`` (the line saying the sanitizer could not run, or None).
    """
    lines = text.splitlines()
    unsupported = next((ln for ln in lines if any(u in ln for u in UNSUPPORTED)), None)
    errors: int | None = None
    hazards = None
    for line in lines:
        if (m := _SUMMARY.search(line)) and errors is None:
            errors = int(m.group(1))
        if m := _RACE_SUMMARY.search(line):
            hazards = int(m.group(1))
            errors = max(errors or 0, int(m.group(2)))
    findings = _findings(lines)
    kinds: Counter[str] = Counter()
    api = 0
    for finding in findings:
        kind, is_api = _kind(finding)
        kinds[kind] += 1
        api += is_api
    # the first findings, a blank line between two
    first = [ln for f in findings[:3] for ln in [*f, ""]][: FIRST_LINES + 2]
    first = first[:-1] if first and not first[-1] else first
    return {
        "errors": errors,
        "hazards": hazards,
        "device_findings": len(findings) - api,
        "api_findings": api,
        "kinds": dict(kinds.most_common()),
        "first": first,
        "unsupported": unsupported.removeprefix(PREFIX).strip()
        if unsupported
        else None,
    }


def tool_status(exit_code: int | None, parsed: Mapping[str, Any]) -> str:
    """The outcome of one tool run: clean, errors, timeout or failed."""
    if exit_code is None:
        return Status.TIMEOUT
    if parsed["unsupported"] or parsed["errors"] is None:
        return "failed"
    return Status.ERRORS if parsed["errors"] else Status.CLEAN


def kept_output(text: str) -> str:
    """The run's output without host backtraces: the first 60 lines and the last 5."""
    lines = [ln for ln in text.splitlines() if "Host Frame" not in ln]
    if len(lines) > 65:
        lines = [*lines[:60], "...", *lines[-5:]]
    return "\n".join(lines)


def memcheck_error(record: Mapping[str, Any]) -> str | None:
    """The message that marks a variant, when memcheck found a device-side error."""
    for tool in record.get("tools", []):
        if (
            tool.get("tool") == "memcheck"
            and tool.get(col.STATUS) == Status.ERRORS
            and tool.get("device_findings")
        ):
            return str(tool.get(col.MESSAGE, "memcheck errors"))
    return None


def summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a record the report shows (no argv, no raw output)."""
    keep = (
        "tool",
        col.STATUS,
        "errors",  # contracts: literal (the tool's count of errors, a field)
        "hazards",
        "kinds",
        "first",
        col.MESSAGE,
    )
    return {
        col.STATUS: record.get(col.STATUS),
        col.MESSAGE: record.get(col.MESSAGE, ""),
        "upstream_status": record.get("upstream_status"),
        col.SIZE: record.get(col.SIZE),
        "version": record.get("provenance", {}).get("compute_sanitizer"),
        "tools": [{k: t[k] for k in keep if k in t} for t in record.get("tools", [])],
    }
