"""``record``: a results folder's measured GPU-stage outputs into a recording folder.

Only what was measured there is copied, read through :mod:`nsightflow.untrusted`: no
link is followed, and nothing the reader refuses or that was replayed from a
recording is packed (both are counted in ``recording.json``). Nothing measured is
ever deleted: what an addition replaces moves to ``superseded/<n>/``. Nothing is
written through a link: a recording to add to that holds one is refused.
"""

import json
import lzma
import os
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.errors import StageInputError
from nsightflow.io import read_recorded
from nsightflow.outputs import Output, check_no_link, check_output, write_atomic
from nsightflow.untrusted import (
    COMPRESSED,
    RecordError,
    Tree,
    Where,
    check_table,
    identify,
    profile_reports,
    read_record,
)

# What a recording keeps of a results folder: the GPU stages' raw outputs. Cubins and
# derived tables are left out: replay rebuilds them.
RECORDED = (
    "build/*/*.resources.json",
    "verify/*/*.json",
    "time/*/*.json",
    "profile/*/*.ncu-rep",
    "profile/*/*/*.ncu-rep",
    "profile/*/*/profile.json",
    "timeline/*/*.json",
    "timeline/*/*.csv",
    "sanitize/*/*.json",
    "sweep/*/*.json",
    "ceilings.json",
)
STAGE_DIRS = ("build", "verify", "time", "profile", "timeline", "sanitize", "sweep")
SUPERSEDED = "superseded"  # where an addition keeps the files it replaces
# A report over this size is stored xz-compressed (<name>.ncu-rep.xz; readers expand
# it, ncu_limits.expanded). On the H200 the lean profile of a Python variant is 14 MB
# (the frameworks' modules come with it) and xz makes it 0.7-1.0 MB; a CUDA variant's
# report is 0.1-1.6 MB and a family's shared one up to 4.4 MB (SGEMM's): kept as is.
COMPRESS_BYTES = 8 << 20


@dataclass
class Collected:
    """A results folder's outputs, sorted by what ``record`` does with them.

    Attributes:
        measured: Checked outputs of this run's own measurements: recorded.
        replayed: Outputs copied from a recording (``replayed_from``) or compiled
            for one (``source_changed``): already in that recording, left out.
        refused: One line per output left out because the reader refused it (a
            link, a record that breaks its schema or sits under another name).
    """

    measured: list[PurePosixPath] = field(default_factory=list)
    replayed: list[PurePosixPath] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _matches(rel: PurePosixPath) -> bool:
    return any(
        len(rel.parts) == len(p.split("/"))
        and all(fnmatchcase(a, b) for a, b in zip(rel.parts, p.split("/"), strict=True))
        for p in RECORDED
    )


def collect(results: Path) -> Collected:
    """What of ``results`` a recording keeps, read through :mod:`nsightflow.untrusted`.

    A report is kept when a kept ``profile.json`` names it, a timeline table when
    its record is kept; nothing is read through a link.
    """
    tree, found = Tree(results), Collected()
    entries = [e for top in STAGE_DIRS for e in tree.walk(top)]
    ceilings = results / "ceilings.json"
    if os.path.lexists(ceilings):
        regular = "file"  # contracts: literal (a kind of entry)
        kind = (
            "link" if ceilings.is_symlink() else regular if ceilings.is_file() else ""
        )
        entries.append((PurePosixPath(ceilings.name), kind or "special"))
    tables: list[PurePosixPath] = []
    reports: list[PurePosixPath] = []
    named: dict[PurePosixPath, PurePosixPath] = {}
    for rel, what in entries:
        if what != "file":
            found.refused.append(f"{tree.path(rel)}: is a {what}, not a file; not read")
        elif _matches(rel) and rel.suffix == ".ncu-rep":
            reports.append(rel)
        elif _matches(rel) and rel.suffix == ".csv":
            tables.append(rel)
        elif _matches(rel):
            _classify(tree, rel, found, named)
    for rel in reports + tables:
        owner = named.get(rel, rel.with_suffix(".json"))
        if owner in found.measured and _table_ok(tree, rel, found):
            found.measured.append(rel)
        elif owner in found.replayed:
            found.replayed.append(rel)
        elif rel.suffix == ".ncu-rep" and rel not in named:
            found.refused.append(
                f"{tree.path(rel)}: no profile.json names it; not read"
            )
    return found


def _classify(
    tree: Tree,
    rel: PurePosixPath,
    found: Collected,
    named: dict[PurePosixPath, PurePosixPath],
) -> None:
    """Sort one JSON record; a profile.json also claims the reports it names."""
    try:
        if rel.name == "profile.json":
            data, reports = profile_reports(tree, rel.parent)
            named.update(dict.fromkeys(reports, rel))
        else:
            data = read_record(tree, rel)
    except RecordError as exc:
        found.refused.append(str(exc))
        return
    replayed = col.REPLAYED_FROM in data or data.get("source_changed")
    (found.replayed if replayed else found.measured).append(rel)


def _table_ok(tree: Tree, rel: PurePosixPath, found: Collected) -> bool:
    if rel.suffix != ".csv":
        return True
    where = identify(rel) or Where("timeline_table")
    try:
        check_table(tree.read_bytes(rel, 1 << 30), tree.path(rel), where)
    except RecordError as exc:
        found.refused.append(str(exc))
        return False
    return True


def _check_places(results: Path, out: Path, add: bool) -> None:
    """``out`` is a new folder (or, to add to, a recording) apart from ``results``."""
    a, b = results.resolve(), out.resolve()
    if a == b or a in b.parents or b in a.parents:
        raise StageInputError(
            f"record: --results {results} and --out {out} are the same folder or one "
            "holds the other; a folder cannot be recorded into itself: give the "
            "results folder of a run and a separate recording folder"
        )
    fix = "give a new recording folder outside the project, or one to add to"
    check_output(Output("record", "--out", out, fix=fix), [("--results", results)])
    if add and not (out / "recording.json").is_file():
        raise StageInputError(f"{out}: not a recording (no recording.json) to add to")
    if add:
        _check_no_links(out)
    if not add and out.exists() and any(out.iterdir()):
        raise StageInputError(
            f"{out}: exists and is not empty; recordings are never "
            "overwritten, choose a new folder or remove it yourself"
        )


def _check_no_links(out: Path) -> None:
    """A recording added to holds no link: a write or a move would pass through it.

    Raises:
        OutputRefusedError: the first link found, naming it and the fix.
    """
    for rel, what in Tree(out).walk():
        if what == "link":
            check_no_link(out, out / str(rel), "record --add: --out")


def record(results: Path, out: Path, command: str, add: bool = False) -> dict[str, Any]:
    """Copy the measured raw outputs of the GPU stages from ``results`` into ``out``.

    Writes ``recording.json`` (GPU, driver, CUDA, nvcc, ncu, clock control, date, git
    revision, the command) from the provenance the stages stamped into their files.
    Outputs replayed from a recording are left out (they are in that recording), and
    so is anything the reader refuses; both are counted in ``recording.json``.

    With ``add``, ``out`` is an existing recording that gains these outputs (a later
    run of some families or stages): its ``recording.json`` keeps its own account and
    lists this run under ``additions``. Nothing measured is deleted: a file the
    addition replaces, or a report no ``profile.json`` names any more, moves to
    ``superseded/<n>/`` (``n``: the addition's number), where replay never reads.

    Raises:
        StageInputError: ``out`` is ``results`` or nested with it, is not empty
            (not a recording, with ``add``), or nothing measured is left to record.
        OutputRefusedError: ``out`` is or holds a repository, or (with ``add``)
            holds a symbolic link a write or a move would pass through.
    """
    _check_places(results, out, add)
    found = collect(results)
    if not found.measured:
        why = (
            f"its {len(found.replayed)} stage outputs were replayed from a recording "
            "(they are in that recording already)"
            if found.replayed
            else "no stage outputs to record"
        )
        raise StageInputError(f"{results}: nothing measured to record: {why}")
    main = read_recorded(out / "recording.json") if add else {}
    keep = PurePosixPath(SUPERSEDED, str(len(main.get("additions", [])) + 1))
    moved = _copy_measured(Tree(results), out, found.measured, keep)
    info = _recording_info(Tree(results), found, command)
    info["left_out"] = {"replayed": len(found.replayed), "refused": found.refused}
    if add:
        folders = sorted({"/".join(f.parts[:2]) for f in found.measured})
        main.setdefault("additions", []).append(
            {**info, "folders": folders, col.FILES: len(found.measured), **moved}
        )
        info = main
    check_no_link(out, out / "recording.json", "record: --out")
    write_atomic(out / "recording.json", (json.dumps(info, indent=2) + "\n").encode())
    return info


def _copy_measured(
    tree: Tree, out: Path, files: list[PurePosixPath], keep: PurePosixPath
) -> dict[str, Any]:
    """Copy ``files``; move what they replace, and reports no longer named, to ``keep``.

    Returns:
        The addition's ``replaced`` and ``removed`` paths and the ``superseded``
        folder that keeps their previous versions (None when nothing moved).
    """
    stored = {rel: _stored_as(tree, rel) for rel in files}
    replaced = [str(f) for f in stored.values() if os.path.lexists(out / f)]
    removed = []
    for folder in sorted({f.parent for f in files if f.name == "profile.json"}):
        for old in sorted(_reports_in(out / folder)):
            if folder / old.name not in stored.values():  # profiled anew this run
                removed.append(str(folder / old.name))
    for old_path in replaced + removed:
        _supersede(out, old_path, keep)
    for rel, target in stored.items():
        check_no_link(out, out / target, "record: --out")
        if target == rel:
            tree.copy(rel, out / rel)
        else:
            write_atomic(out / target, lzma.compress(tree.read_bytes(rel, 1 << 30)))
    unnamed = _unnamed_reports(out)
    for name in unnamed:
        _supersede(out, name, keep)
    removed += unnamed
    moved = bool(replaced or removed)
    return {
        "replaced": replaced,
        "removed": removed,
        "superseded": str(keep) if moved else None,
    }


def _stored_as(tree: Tree, rel: PurePosixPath) -> PurePosixPath:
    """Where the recording keeps ``rel``: a report over COMPRESS_BYTES as ``.xz``."""
    if rel.suffix == ".ncu-rep" and tree.path(rel).stat().st_size > COMPRESS_BYTES:
        return rel.with_name(rel.name + COMPRESSED)
    return rel


def _reports_in(folder: Path) -> list[Path]:
    """A recorded folder's reports, stored as they are or compressed."""
    return sorted([*folder.glob("*.ncu-rep"), *folder.glob("*.ncu-rep" + COMPRESSED)])


def _supersede(out: Path, rel: str, keep: PurePosixPath) -> None:
    """Move a recorded file out of replay's way, into ``out/keep`` (never deleted)."""
    target = out / str(keep) / rel
    for path in (out / rel, target):  # neither moved from nor into another folder
        check_no_link(out, path, "record --add: --out")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(out / rel, target)


def _unnamed_reports(out: Path) -> list[str]:
    """Shared family reports that no ``profile.json`` of the family names.

    A family whose ``profile.json`` files cannot all be read keeps its reports.
    """
    tree, found = Tree(out), []
    for family in sorted(p for p in (out / "profile").glob("*") if p.is_dir()):
        named: set[PurePosixPath] = set()
        try:
            for meta in sorted(family.glob("*/profile.json")):
                rel = PurePosixPath(meta.parent.relative_to(out).as_posix())
                named |= set(profile_reports(tree, rel)[1])
        except RecordError:
            continue
        for report in _reports_in(family):
            rel = PurePosixPath(report.relative_to(out).as_posix())
            if rel not in named:
                found.append(str(rel))
    return found


def _recording_info(tree: Tree, found: Collected, command: str) -> dict[str, Any]:
    """Where and how the measured outputs were measured (their stamped provenance)."""

    def first(stage: str) -> dict[str, Any]:
        rel = next(
            (
                f
                for f in found.measured
                if f.parts[0] == stage and len(f.parts) == 3 and f.suffix == ".json"
            ),
            None,
        )
        return read_record(tree, rel) if rel is not None else {}

    stamped = [first(stage) for stage in ("time", "sanitize", "verify", "timeline")]
    prof = next((f for f in found.measured if f.name == "profile.json"), None)
    p = read_record(tree, prof) if prof else {}
    # an addition of profiles alone: the profiles' own provenance names GPU and date
    t = next((s.get("provenance") or {} for s in stamped if s), None)
    t = t if t is not None else p.get("provenance") or {}
    ceilings = PurePosixPath("ceilings.json")
    if not t and ceilings in found.measured:  # the ceilings alone, measured again
        t = read_record(tree, ceilings).get("provenance") or {}
    stages = ("verify", "sanitize", "timeline", "profile")
    info = {
        col.GPU: t.get(col.GPU),
        "driver": t.get("driver"),
        "cuda_driver": t.get("cuda_driver"),
        "nvcc": t.get("nvcc"),
        "ncu": (p.get("provenance") or {}).get("ncu"),
        "clock_control": (p.get("settings") or {}).get("clock_control"),
        "ncu_set": (p.get("settings") or {}).get("set"),
        col.DATE: t.get(col.DATE),
        "kernels_git": t.get("kernels_git"),
        "command": command,
        "families": sorted(
            {
                f.parts[1]
                for f in found.measured
                if f.parts[0] in stages and f.suffix == ".json"
            }
        ),
    }
    traced = stamped[3]
    if traced:
        info["timeline"] = timeline_info(traced, command)
    return info


def timeline_info(traced: dict[str, Any], command: str) -> dict[str, Any]:
    """``recording.json``'s ``timeline`` entry: how and where the traces were made."""
    prov = traced.get("provenance", {})
    keys = (col.GPU, "driver", "cuda_driver", col.DATE, "kernels_git")
    return {
        **{k: prov.get(k) for k in keys},
        col.BACKEND: traced.get(col.BACKEND),
        col.BACKEND_NOTE: traced.get(col.BACKEND_NOTE),
        "command": command,
    }
