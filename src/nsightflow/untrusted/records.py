"""The records of a recording or run folder, read and checked for what they claim.

:func:`read_record` reads one JSON record of a :class:`~nsightflow.untrusted.paths.Tree`:
the path is contained and link-free, the bytes are UTF-8 JSON holding an object of
this ``schema_version``, the object meets the schema of its kind
(:mod:`nsightflow.untrusted.schema`), and its ``family`` and ``variant`` are those of
the place it sits in (``time/<family>/<variant>.json``): a record copied under
another variant's name is refused, not read as that variant's.
:func:`profile_reports` does the same for a profile folder and the reports its
``profile.json`` names, :func:`check_table` for a recorded CSV table.
"""

import csv
import io
import json
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

from nsightflow import SCHEMA_VERSION
from nsightflow.contracts import columns as col
from nsightflow.untrusted.paths import MissingRecord, RecordError, Tree, relative
from nsightflow.untrusted.schema import MAX_SIZE, errors, first_error

# The largest stage record nsightflow writes is a time record with its samples
# (about 100 KB); a file a thousand times larger is not one of them.
MAX_JSON_BYTES = 128 << 20
MAX_TABLE_BYTES = 1 << 30


# Columns of recorded tables that hold counts or nanoseconds (the timeline's).
_WHOLE_CELLS = (col.START_NS, col.END_NS, col.BYTES, col.STREAM)


@dataclass(frozen=True)
class Where:
    """What a file's place in the folder says it is."""

    kind: str
    family: str | None = None
    variant: str | None = None


# (path pattern, kind, suffix of the variant's file name), in the layout of results/.
_LAYOUT = (
    ("time/*/*.json", "time", ".json"),
    ("verify/*/*.json", "verify", ".json"),
    ("sanitize/*/*.json", "sanitize", ".json"),
    ("timeline/*/*.json", "timeline", ".json"),
    ("timeline/*/*.csv", "timeline_table", ".csv"),
    ("sweep/*/*.json", "sweep", ".json"),
    ("build/*/*.resources.json", "resources", ".resources.json"),
    ("profile/*/*/profile.json", "profile", ""),
    ("ceilings.json", "ceilings", ""),
    ("recording.json", "recording", ""),
)


def identify(path: PurePosixPath | Path) -> Where | None:
    """The kind, family and variant a path names, by the layout of ``results/``.

    The path may be relative to its folder's root or longer (its tail is matched).
    """
    parts = PurePosixPath(path.as_posix()).parts
    for pattern, kind, suffix in _LAYOUT:
        want = pattern.split("/")
        tail = parts[-len(want) :]
        if len(tail) != len(want) or not all(
            fnmatchcase(p, q) for p, q in zip(tail, want, strict=True)
        ):
            continue
        if len(want) == 1:
            return Where(kind)
        variant = tail[2] if kind == "profile" else tail[2].removesuffix(suffix)
        return Where(kind, tail[1], variant)
    return None


_JSON_TYPES = {
    list: "list",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def parse_json(raw: bytes, path: Path) -> dict[str, Any]:
    """A JSON object from a file's bytes.

    Raises:
        RecordError: not UTF-8, not JSON (named with line and column), nested past
            what a reader can follow, or not an object.
    """
    try:
        data = json.loads(raw.decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise RecordError(
            path,
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "the file is corrupt or truncated",
        ) from None
    except UnicodeDecodeError as exc:
        raise RecordError(path, f"cannot be read ({exc})") from None
    except (RecursionError, ValueError) as exc:  # deep nesting, 5,000-digit numbers
        raise RecordError(
            path, f"not valid JSON ({type(exc).__name__}: {exc})"
        ) from None
    if not isinstance(data, dict):
        kind = _JSON_TYPES.get(type(data), type(data).__name__)
        raise RecordError(path, f"holds a JSON {kind}, not an object")
    return data


def check_version(data: dict[str, Any], path: Path) -> None:
    """The record was written by a stage of this ``schema_version``.

    Raises:
        RecordError: another version, or none.
    """
    if data.get("schema_version") != SCHEMA_VERSION:
        raise RecordError(
            path,
            f"{data.get('schema_version')!r}, expected {SCHEMA_VERSION}",
            "schema_version",
            fix="record it again with this version",
        )


def check_record(data: dict[str, Any], where: Where, path: Path) -> None:
    """``data`` meets the schema of its kind and names the place it sits in.

    Raises:
        RecordError: naming the file and the first field at fault.
    """
    if where.kind != "recording":
        check_version(data, path)
    error = first_error(where.kind, data)
    if error is not None:
        raise RecordError(path, error[1], error[0])
    for key in (col.FAMILY, col.VARIANT):
        expected = getattr(where, key)
        if expected is not None and data.get(key) != expected:
            raise RecordError(
                path,
                f"says {data.get(key)!r}, but the file sits where {key} "
                f"{expected!r} keeps its record: it is another {key}'s (copied or "
                "renamed) and is not read as this one's",
                key,
                fix="put it back where it belongs, or record again",
            )


def read_record(
    tree: Tree, rel: PurePosixPath | str, where: Where | None = None
) -> dict[str, Any]:
    """One JSON record of ``tree``, checked (module docstring).

    Args:
        tree: The recording or run folder.
        rel: The record's path relative to the folder.
        where: What it is; by default what its place says (:func:`identify`). A
            file outside the layout is only checked to be a JSON object.

    Raises:
        MissingRecord: the file is not there.
        RecordError: the file is refused, naming it and the field.
    """
    rel = tree.locate(rel)
    path = tree.path(rel)
    data = parse_json(tree.read_bytes(rel, MAX_JSON_BYTES), path)
    where = where or identify(rel)
    if where is not None:
        check_record(data, where, path)
    return data


@dataclass(frozen=True)
class Dropped:
    """A row taken out of a record (``size`` None: it named none), or the record."""

    size: int | None
    problem: str  # one line naming the file, the field and the fix
    whole: bool = False  # the record itself was refused


def read_rows(
    tree: Tree, rel: PurePosixPath | str
) -> tuple[dict[str, Any] | None, list[Dropped]]:
    """A record of ``rows`` (a time record) with the rows that break its schema out.

    Every row of a size whose row is at fault goes (a repeated size: each copy), so
    what is left is whole. The record is refused whole where a field outside its
    rows is at fault, or it is another variant's.

    Returns:
        (record, dropped): the record (None where refused whole) and one
        :class:`Dropped` per row taken out, or one ``whole`` for the record.
    """
    rel = tree.locate(rel)
    path, where = tree.path(rel), identify(rel) or Where("time")
    bad: dict[int, RecordError] = {}
    try:
        data = parse_json(tree.read_bytes(rel, MAX_JSON_BYTES), path)
        for field, problem in errors(where.kind, data):
            index = _row_index(field)
            if index is None:
                raise RecordError(path, problem, field)
            bad.setdefault(index, RecordError(path, problem, field))
        rows = data.get("rows") or []
        sizes = {_size(rows[i]) for i in bad} - {None}
        kept = [r for i, r in enumerate(rows) if i not in bad and _size(r) not in sizes]
        data = {**data, "rows": kept} if "rows" in data else data
        check_record(data, where, path)
    except RecordError as exc:
        return None, [Dropped(None, str(exc), whole=True)]
    return data, [Dropped(_size(rows[i]), str(e)) for i, e in sorted(bad.items())]


def _row_index(field: str) -> int | None:
    parts = field.split(".")
    return int(parts[1]) if parts[0] == "rows" and len(parts) > 1 else None


def _size(row: Any) -> int | None:
    size = row.get(col.SIZE) if isinstance(row, dict) else None
    ok = isinstance(size, int) and not isinstance(size, bool) and 1 <= size <= MAX_SIZE
    return size if ok else None


def report_path(
    tree: Tree, folder: PurePosixPath, name: object, named_by: tuple[Path, str]
) -> PurePosixPath:
    """Where a ``profile.json`` entry's report is: in its folder or its family's.

    ``folder`` is the variant's profile folder (``profile/<family>/<variant>``); a
    report may be there, or shared by the family one level up and named
    ``<family>.<...>.ncu-rep``. Nothing else: not another variant's folder, not
    another family's.

    Raises:
        RecordError: the name leaves those folders, or is not a report's name.
    """
    family = folder.parent
    rel = tree.locate(
        folder / relative(name, *named_by), family, named_by, shown=str(name)
    )
    shared = rel.parent == family and rel.name.startswith(f"{family.name}.")
    if not rel.name.endswith(".ncu-rep") or not (rel.parent == folder or shared):
        raise RecordError(
            named_by[0],
            f"{name!r} is not a report of this variant: a variant's reports are in "
            f"its folder, or shared as {family.name}.<...>.ncu-rep beside it",
            named_by[1],
        )
    return rel


def profile_reports(
    tree: Tree, folder: PurePosixPath, where: Where | None = None
) -> tuple[dict[str, Any], dict[PurePosixPath, list[dict[str, Any]]]]:
    """A profile folder's ``profile.json`` and the entries of each report it names.

    Every named report is checked to be a regular file inside the variant's or the
    family's folder (:func:`report_path`).

    Raises:
        MissingRecord: there is no ``profile.json``.
        RecordError: the record or a report is refused.
    """
    meta_rel = folder / "profile.json"
    meta = read_record(tree, meta_rel, where)
    by_file: dict[PurePosixPath, list[dict[str, Any]]] = {}
    for i, entry in enumerate(meta.get("reports", [])):
        if not entry.get(col.FILE):
            continue  # a size that was not profiled: its status says why
        named_by = (tree.path(meta_rel), f"reports.{i}.file")
        rel = stored_report(tree, report_path(tree, folder, entry[col.FILE], named_by))
        if rel is None:
            raise RecordError(
                named_by[0], f"names {entry['file']!r}, which is not there", named_by[1]
            )
        by_file.setdefault(rel, []).append(entry)
    return meta, by_file


COMPRESSED = ".xz"  # a recording stores a large report as <name>.ncu-rep.xz


def stored_report(tree: Tree, rel: PurePosixPath) -> PurePosixPath | None:
    """Where the report ``rel`` is stored: itself, its ``.xz`` copy, or None.

    A recording keeps a report over :data:`nsightflow.machine.recorder.COMPRESS_BYTES`
    xz-compressed beside the name its ``profile.json`` gives (``record``); readers load
    it through :func:`nsightflow.tools.ncu_limits.expanded`. Both are checked to be
    regular files, never links.
    """
    for candidate in (rel, rel.with_name(rel.name + COMPRESSED)):
        try:
            tree.check(candidate)
        except MissingRecord:
            continue
        return candidate
    return None


def check_table(raw: bytes, path: Path, where: Where) -> None:
    """A recorded CSV table (a timeline's): header, whole rows, its own identity.

    Raises:
        RecordError: not UTF-8 CSV, a row of another width, a ``family`` or
            ``variant`` cell of another place, or a ``size`` that is not a size.
    """
    try:
        rows = list(csv.reader(io.StringIO(raw.decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise RecordError(path, f"not a CSV table ({exc})") from None
    if not rows:
        raise RecordError(path, "is empty, not even a header")
    header = rows[0]
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise RecordError(
                path, f"line {number} has {len(row)} cells for {len(header)} columns"
            )
        cells = dict(zip(header, row, strict=True))
        for key in (col.FAMILY, col.VARIANT):
            if key in cells and cells[key] != getattr(where, key):
                raise RecordError(
                    path,
                    f"line {number} says {cells[key]!r}, not {getattr(where, key)!r}",
                    key,
                )
        if col.SIZE in cells and not (
            cells[col.SIZE].isdigit() and 1 <= int(cells[col.SIZE]) <= MAX_SIZE
        ):
            raise RecordError(path, f"line {number}: {cells['size']!r}", col.SIZE)
        for key in _WHOLE_CELLS:  # empty, or a whole number that is no negative
            value = cells.get(key, "")
            if value and not (value.isdigit() and len(value) <= 20):
                raise RecordError(path, f"line {number}: {value[:40]!r}", key)
        start, end = cells.get(col.START_NS, ""), cells.get(col.END_NS, "")
        if start and end and int(end) < int(start):
            raise RecordError(
                path,
                f"line {number}: ends ({end}) before it starts ({start})",
                col.END_NS,
            )
