"""Where the profile stage's reports are, and which of their results are a variant's.

``results/profile/<family>/`` holds one folder per variant with its ``profile.json``.
The variants profiled together share one report beside those folders
(``<family>.<hash>.ncu-rep``); a variant profiled alone has its own report in its
folder (``n<sizes>.ncu-rep``). Each ``profile.json`` entry names its report
(``file``, relative to the variant's folder), its size, and where the variant's
launches sit in that report (``first_action``, ``actions``; absent: the whole file).
Light on purpose: no ncu_report, no pandas.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.untrusted import Tree, Where, profile_reports


@dataclass(frozen=True)
class ReportPart:
    """A variant's launches in one report: all of it, or a contiguous range."""

    path: Path
    labels: dict[str, Any] = field(default_factory=dict)  # family, variant
    sizes: tuple[int | None, ...] = ()  # the size of each run, in launch order
    first: int = 0  # the part's first launch (action) in the file
    count: int | None = None  # its launches; None: to the end of the file
    kernels: tuple[str, ...] = ()  # the kernels profiled (argv); (): not recorded

    def holds(self, action: int) -> bool:
        """Whether the file's ``action``-th launch belongs to this part."""
        return action >= self.first and (
            self.count is None or action < self.first + self.count
        )


def profile_folders(paths: list[Path]) -> list[Path]:
    """Variant profile folders: named directly, or every one in a family's folder."""
    found: list[Path] = []
    for path in paths:
        if (path / "profile.json").is_file():
            found.append(path)
        else:
            found += sorted(p.parent for p in path.glob("*/profile.json"))
    return found


def parts_of_folder(folder: Path) -> list[ReportPart]:
    """The report parts a variant folder's ``profile.json`` names, in file order.

    Read through :mod:`nsightflow.untrusted`: each named report must be a regular
    file in the variant's folder or shared in its family's (``../<family>.*``), so
    a tampered ``profile.json`` cannot make parse read a file anywhere else.

    Raises:
        RecordError: ``profile.json`` or a report it names is refused.
    """
    root = folder.parent.parent
    rel = PurePosixPath(folder.parent.name, folder.name)
    meta, reports = profile_reports(Tree(root), rel, Where("profile"))
    return parts_from(meta, {root / str(r): e for r, e in reports.items()})


def parts_from(
    meta: dict[str, Any], reports: dict[Path, list[dict[str, Any]]]
) -> list[ReportPart]:
    """The parts of checked reports (``profile.json`` and its entries per report)."""
    labels = {
        col.FAMILY: meta.get(col.FAMILY, ""),
        col.VARIANT: meta.get(col.VARIANT, ""),
    }
    parts = []
    for path, entries in reports.items():
        entries = sorted(entries, key=lambda e: e.get("result", 0))
        parts.append(
            ReportPart(
                path,
                labels,
                tuple(e.get(col.SIZE) for e in entries),
                int(entries[0].get("first_action", 0)),
                entries[0].get("actions"),
                filtered_kernels(entries[0].get("argv") or []),
            )
        )
    return parts


# The value of ncu's --kernel-name that tools.ncu.kernel_filter writes: a name, or
# regex:^(a|b)$ of escaped names (identifiers need no escape).
_FILTER = re.compile(r"^regex:\^\(([A-Za-z0-9_|]+)\)\$$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def filtered_kernels(argv: list[str]) -> tuple[str, ...]:
    """The kernels an ncu argv profiled (``--kernel-name``); () if it names none.

    Only the two forms the profile stage writes are read; the pattern is never run.
    """
    if "--kernel-name" not in argv[:-1]:
        return ()
    value = str(argv[argv.index("--kernel-name") + 1])
    if _NAME.match(value):
        return (value,)
    found = _FILTER.match(value)
    return tuple(found.group(1).split("|")) if found else ()
