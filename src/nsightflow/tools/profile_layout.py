"""Where the profile stage's reports are, and which of their results are a variant's.

``results/profile/<family>/`` holds one folder per variant with its ``profile.json``.
The variants profiled together share one report beside those folders
(``<family>.<hash>.ncu-rep``); a variant profiled alone has its own report in its
folder (``n<sizes>.ncu-rep``). Each ``profile.json`` entry names its report
(``file``, relative to the variant's folder), its size, and where the variant's
launches sit in that report (``first_action``, ``actions``; absent: the whole file).
Light on purpose: no ncu_report, no pandas.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ReportPart:
    """A variant's launches in one report: all of it, or a contiguous range."""

    path: Path
    labels: dict[str, Any] = field(default_factory=dict)  # family, variant
    sizes: tuple[int | None, ...] = ()  # the size of each run, in launch order
    first: int = 0  # the part's first launch (action) in the file
    count: int | None = None  # its launches; None: to the end of the file

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
    """The report parts a variant folder's ``profile.json`` names, in file order."""
    meta = json.loads((folder / "profile.json").read_text())
    labels = {"family": meta.get("family", ""), "variant": meta.get("variant", "")}
    by_file: dict[str, list[dict[str, Any]]] = {}
    for entry in meta.get("reports", []):
        if entry.get("file"):
            by_file.setdefault(entry["file"], []).append(entry)
    parts = []
    for name, entries in by_file.items():
        entries.sort(key=lambda e: e.get("result", 0))
        path = Path(os.path.normpath(folder / name))
        parts.append(
            ReportPart(
                path,
                labels,
                tuple(e.get("size") for e in entries),
                int(entries[0].get("first_action", 0)),
                entries[0].get("actions"),
            )
        )
    return parts
