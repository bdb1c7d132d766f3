"""Where a recorded variant's profile is, read from its ``profile.json`` alone.

The variants profiled together share one family report
(``profile/<family>/<family>.<hash>.ncu-rep``); each ``profile.json`` entry names it
(``file``, relative to the variant's folder) and the variant's launches in it
(``first_action``, ``actions``). A variant profiled alone has its own report in its
folder, kept as ``<name>.ncu-rep.xz`` when the recording compressed it. These helpers
work that out independently of the code under test (no nsightflow import), so a
test can compare what parse reads against ncu_report itself.

On pytest's path (pyproject `pythonpath = ["tests"]`): `from profiles import ...`.
"""

import json
import lzma
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    """One profiled size of a variant: the report file and its launches (actions)."""

    size: int
    path: Path  # as stored: the named file, or its .xz copy
    actions: tuple[int, ...]  # indices into the file's actions (all ranges)


def stored(path: Path) -> Path:
    """The file a profile.json name refers to: itself, or its ``.xz`` copy."""
    return path if path.is_file() else path.with_name(path.name + ".xz")


def runs(folder: Path, tmp_path: Path) -> list[Run]:
    """The profiled runs of a variant folder, in launch order (by ``result``).

    A shared report's part (``first_action`` .. ``+actions``) is split evenly over
    the sizes that name it; a report without ``first_action`` is the variant's alone.
    """
    meta = json.loads((folder / "profile.json").read_text())
    found: list[Run] = []
    by_file: dict[str, list[dict]] = {}
    for entry in meta["reports"]:
        if entry["status"] == "ok":
            by_file.setdefault(entry["file"], []).append(entry)
    for name, entries in by_file.items():
        entries.sort(key=lambda e: e.get("result", 0))
        path = stored(folder / name)
        if "first_action" not in entries[0]:
            count = len(actions_of(path, tmp_path))
            first = 0
        else:
            first, count = entries[0]["first_action"], entries[0]["actions"]
        each = count // len(entries)
        for i, entry in enumerate(entries):
            start = first + i * each
            found.append(Run(entry["size"], path, tuple(range(start, start + each))))
    return found


def loadable(path: Path, tmp_path: Path) -> Path:
    """A path ncu_report can load: the report itself, or its ``.xz`` expanded."""
    if not path.name.endswith(".xz"):
        return path
    target = tmp_path / path.name.removesuffix(".xz")
    if not target.is_file():
        target.write_bytes(lzma.decompress(path.read_bytes()))
    return target


_CONTEXTS: dict[str, object] = {}


def actions_of(path: Path, tmp_path: Path) -> list:
    """Every action of a report (all ranges, in order), loaded by ncu_report."""
    import ncu_report

    key = str(path)
    if key not in _CONTEXTS:  # kept: the actions belong to their loaded report
        _CONTEXTS[key] = ncu_report.load_report(str(loadable(path, tmp_path)))
    context = _CONTEXTS[key]
    found = []
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        found += [rng.action_by_idx(a) for a in range(rng.num_actions())]
    return found
