"""Reading ``.ncu-rep`` files through ``ncu_report``: labels, sizes, metric columns.

This is the only module that imports ``ncu_report`` for the metrics table
(:mod:`nsightflow.tools.ncu_parse` builds the tables from what it reads;
:mod:`nsightflow.tools.ncu_source` reads the source-level samples through
:func:`ncu_report_module`). It imports no pandas: see the import below.
"""

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

# ncu_report must load before pandas: ncu_report 2025.3.1 (Nsight Compute's own
# extras/python) segfaults in IMetric.unit() when pyarrow's C++ libraries, which pandas
# loads, are already in the process (reproduced with ncu-report==2025.3.1 + pyarrow).
try:
    import ncu_report as _NCU_REPORT
except ImportError:  # reported with an install hint when a report is read
    _NCU_REPORT = None

from nsightflow.contracts import columns as col
from nsightflow.errors import ReportParseError
from nsightflow.tools import ncu_limits as limits
from nsightflow.tools.profile_layout import ReportPart, parts_of_folder

_SIZE = re.compile(r"(?:^|[_\-.])n(\d+)(?:[_\-.]|$)")
_SIZES = re.compile(r"(?:^|[_\-.])n(\d+(?:\+\d+)+)(?:[_\-.]|$)")
_ROLLUPS = ("sum", "avg", "min", "max")


def ncu_report_module() -> Any:
    """The ``ncu_report`` module, or a ReportParseError saying how to install it."""
    if _NCU_REPORT is None:
        raise ReportParseError(
            "the ncu_report module is not installed: pip install ncu-report (or add "
            "Nsight Compute's extras/python folder to PYTHONPATH)"
        )
    return _NCU_REPORT


def rollup_of(metric: str) -> str:
    """Ncu rollup operation from a metric name (``dram__bytes_read.sum`` -> ``sum``)."""
    for part in metric.split(".")[1:]:
        if part in _ROLLUPS:
            return part
    return ""


def size_from_name(path: Path) -> int | None:
    """Problem size from a file name such as ``n2048.ncu-rep`` or ``v0_n2048.csv``."""
    match = _SIZE.search(path.name.split(".")[0])
    return int(match.group(1)) if match else None


def sizes_from_name(path: Path) -> list[int]:
    """Sizes of a report holding several, in launch order: ``n2048+8192.ncu-rep``."""
    match = _SIZES.search(path.name.split(".")[0])
    return [int(s) for s in match.group(1).split("+")] if match else []


def file_sizes(path: Path) -> list[int | None]:
    """Sizes named by a file: ``n2048+8192`` -> [2048, 8192], ``n2048`` -> [2048]."""
    return [*sizes_from_name(path)] or [size_from_name(path)]


def report_labels(path: Path) -> tuple[dict[str, Any], list[int | None]]:
    """Family and variant of a report, and the size of each of its profiled runs.

    The profile stage profiles all sizes of a variant in one ncu run (one process
    start instead of one per size), so one report holds the launches of each size in
    order; ``profile.json`` beside it (or the ``n<a>+<b>`` file name) says which.
    """
    part = part_of_file(path)
    return part.labels, list(part.sizes)


def part_of_file(path: Path) -> ReportPart:
    """A report file as one part: labelled by the ``profile.json`` beside it, if any."""
    meta_path = path.parent / "profile.json"
    if meta_path.is_file():
        for part in parts_of_folder(path.parent):
            if part.path == path or part.path.name == path.name:
                return replace(part, path=path)
    return ReportPart(path, {col.FAMILY: "", col.VARIANT: ""}, tuple(file_sizes(path)))


def as_part(report: "Path | ReportPart") -> ReportPart:
    """A part for a file path (all of the file), or the part itself."""
    return report if isinstance(report, ReportPart) else part_of_file(report)


def expand_parts(paths: Sequence[Path]) -> tuple[list[ReportPart], list[Path]]:
    """The report parts (``.ncu-rep``) and raw CSV files named by files and folders.

    A variant's folder contributes the parts its ``profile.json`` names (a shared
    family report included), nothing else; another folder, every report in it.
    """
    parts: list[ReportPart] = []
    csvs: list[Path] = []
    for path in paths:
        if path.is_dir() and (path / "profile.json").is_file():
            parts += parts_of_folder(path)  # what the profile stage says is there
        elif path.is_dir():
            found = sorted(path.glob("*.ncu-rep")) + sorted(path.glob("*.csv"))
            linked = [f for f in found if f.is_symlink()]
            if linked:  # a folder's own files are read, never what a link names
                raise ReportParseError(
                    f"{linked[0]}: is a symbolic link (to {os.readlink(linked[0])!r}); "
                    "parse reads a folder's own files: name the file it points to "
                    "instead, or replace the link by the file"
                )
            parts += [part_of_file(f) for f in found if f.suffix != ".csv"]
            csvs += [f for f in found if f.suffix == ".csv"]
        elif path.exists():
            if path.suffix == ".csv":
                csvs.append(path)
            else:
                parts.append(part_of_file(path))
        else:
            raise ReportParseError(f"{path}: no such file or folder")
    return parts, csvs


def part_actions(part: ReportPart, context: Any) -> Iterator[Any]:
    """The launches (ncu actions) of a report that belong to ``part``, in order."""
    index = 0
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(rng.num_actions()):
            if part.holds(index):
                yield rng.action_by_idx(a)
            index += 1


def launches_per_size(path: Path, sizes: Sequence[int | None], launches: int) -> int:
    """Launches per size in a report: each size's run holds the same launches."""
    if launches % len(sizes):
        raise ReportParseError(
            f"{path}: {launches} profiled launches cannot be split over its "
            f"{len(sizes)} sizes {sizes}; the report is incomplete: re-run the "
            "profile stage"
        )
    return launches // len(sizes)


# Per metric name, its value kind, unit and rollup never change: look them up once.
_META: dict[str, tuple[int, str, str]] = {}


@dataclass
class _Found:
    """Metric values as column lists: one dict per value dominated the parse time."""

    launches: list[int] = field(default_factory=list)
    kernels: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    rollups: list[str] = field(default_factory=list)
    rules: list[dict[str, Any]] = field(default_factory=list)


def load_context(path: Path) -> Any:
    """The report's ``ncu_report`` context, or a ReportParseError for a bad file.

    Kept for the file's current version: the variants of a family share one report,
    and its metrics and its source samples are read from it in turn.

    Raises:
        ReportParseError: The file is missing, empty, over the size limit,
            breaks the probe's limits, or is truncated (a launch without a name)
            (:mod:`nsightflow.tools.ncu_limits`).
    """
    if not path.is_file() or path.stat().st_size == 0:
        raise ReportParseError(f"{path}: missing or empty; re-run the profile stage")
    if path.name.endswith(".xz"):  # a recording's compressed copy
        path = limits.expanded(path)
    stat = path.stat()
    limits.check_size(path, stat.st_size)
    return _cached_context(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=2)
def _cached_context(path: str, mtime_ns: int, size: int) -> Any:
    module = ncu_report_module()
    if size > limits.PROBE_BYTES:
        limits.probe(path)
    try:
        context = module.load_report(path)
    except Exception as exc:  # ncu_report raises plain exceptions for bad files
        raise ReportParseError(
            f"{path}: not a readable Nsight Compute report ({exc}); it may be "
            "truncated: re-run the profile stage"
        ) from exc
    limits.check_whole(path, context)
    return context


def read_columns(
    report: "Path | ReportPart",
) -> tuple[dict[str, list[Any]], list[dict[str, Any]]]:
    """The metrics of one report (or a variant's part of it) as column lists."""
    part = as_part(report)
    path = part.path
    ncu = ncu_report_module()
    context = load_context(path)
    names_labels, sizes = part.labels, list(part.sizes)
    found = _Found()
    launch = 0
    for action in part_actions(part, context):
        kernel = action.name()
        _check_kernel(part, launch, kernel)
        _add_metrics(ncu, path, (launch, kernel), action, found)
        found.rules += [
            {**names_labels, col.LAUNCH: launch, col.KERNEL: kernel, **rule}
            for rule in _rule_results(action)
        ]
        launch += 1
    if launch == 0:
        raise ReportParseError(
            f"{path}: holds no profiled launch; it is truncated, or ncu's kernel filter "
            "matched nothing: re-run the profile stage"
        )
    # Launch numbers restart at 0 for each size's run.
    per_size = launches_per_size(path, sizes, launch)
    for rule in found.rules:
        rule[col.SIZE] = sizes[rule[col.LAUNCH] // per_size]
        rule[col.LAUNCH] %= per_size
    columns = {
        **{k: [v] * len(found.values) for k, v in names_labels.items()},
        col.SIZE: [sizes[i // per_size] for i in found.launches],
        col.LAUNCH: [i % per_size for i in found.launches],
        col.KERNEL: found.kernels,
        col.METRIC: found.names,
        col.UNIT: found.units,
        col.VALUE: found.values,
        col.ROLLUP: found.rollups,
    }
    return columns, found.rules


def part_kernels(part: ReportPart) -> list[str]:
    """The kernel of each launch of ``part``, in order (its identity).

    Raises:
        ReportParseError: the report cannot be read, or ncu_report is missing.
    """
    return [action.name() for action in part_actions(part, load_context(part.path))]


def _check_kernel(part: ReportPart, launch: int, kernel: str) -> None:
    """A launch of a kernel the variant's ``profile.json`` says was profiled.

    A report copied over another variant's holds that variant's kernels: its
    metrics would be read as this one's.
    """
    if part.kernels and kernel not in part.kernels:
        raise ReportParseError(
            f"{part.path}: launch {launch} is of kernel {kernel!r}, but "
            f"{part.labels.get('variant') or 'its'} profile.json says "
            f"{', '.join(part.kernels)} was profiled (ncu --kernel-name): the report "
            "is another variant's; put the variant's own report back, or record again"
        )


def _add_metrics(
    ncu: Any, path: Path, at: tuple[int, str], action: Any, found: _Found
) -> None:
    """Append the numeric metric values of one launch to ``found``."""
    launch, kernel = at
    names = action.metric_names()
    if not names:
        raise ReportParseError(
            f"{path}: launch {launch} ({kernel}) has no metrics; the report is "
            "truncated or corrupt: re-run the profile stage"
        )
    skip = {ncu.IMetric.ValueKind_STRING, ncu.IMetric.ValueKind_UNKNOWN}
    # The extension's functions, without the per-call Python wrapper methods of
    # IAction / IMetric: the inner loop below runs once per metric value.
    c_api = ncu._ncu_report
    by_name, has_value, as_double = (
        c_api.IAction_metric_by_name,
        c_api.IMetric_has_value,
        c_api.IMetric_as_double,
    )
    launches, kernels, names_col = found.launches, found.kernels, found.names
    units, values, rollups = found.units, found.values, found.rollups
    for name in names:
        metric = by_name(action, name)
        if not has_value(metric):
            continue
        meta = _META.get(name)
        if meta is None:
            meta = _META[name] = (metric.kind(), metric.unit(), rollup_of(name))
        if meta[0] in skip:
            continue
        value = as_double(metric)
        if value != value:  # NaN: ncu's placeholders carry no value
            continue
        launches.append(launch)
        kernels.append(kernel)
        names_col.append(name)
        units.append(meta[1])
        rollups.append(meta[2])
        values.append(value)


def _rule_results(action: Any) -> list[dict[str, Any]]:
    """Ncu's rule results of one launch: guidance text and estimated speedup."""
    found = []
    for result in action.rule_results_as_dicts():
        message = result.get("rule_message") or {}
        if not message.get(col.MESSAGE):
            continue
        speedup = result.get("speedup_estimation") or {}
        found.append(
            {
                col.RULE: result.get("rule_identifier", ""),
                col.SECTION: result.get("section_identifier", ""),
                col.TYPE: _MSG_TYPES.get(int(message.get(NCU_TYPE, 0)), "none"),
                col.MESSAGE: message[col.MESSAGE],
                col.SPEEDUP_TYPE: _SPEEDUP_TYPES.get(
                    int(speedup.get(NCU_TYPE, 0)), "unknown"
                )
                if speedup
                else "",
                col.SPEEDUP_PCT: float(speedup.get("speedup", float("nan"))),
            }
        )
    return found


# ncu_report.MsgType_* and SpeedupType_* values (ncu 2025.3 / ncu-report 2026.3).
# ncu's message types by number, under the message's field "type"
NCU_TYPE = "type"  # contracts: literal (ncu's field, not the rules table's)
_MSG_TYPES = {
    0: "none",
    1: "ok",  # contracts: literal (ncu's message type, not a status)
    2: "optimization",
    3: "warning",
    4: "error",
}
_SPEEDUP_TYPES = {0: "unknown", 1: "local", 2: "global"}
