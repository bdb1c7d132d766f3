"""Stage outputs on disk: JSON with ``schema_version``, and a recording's account.

:func:`read_recorded` is the one loader of a recording's JSON files
(``recording.json`` and the recorded stage outputs): it names the file and the fix.

Pure file I/O, importable from every layer (analysis and report included).
"""

import json
from pathlib import Path
from typing import Any

from nsightflow import SCHEMA_VERSION
from nsightflow.errors import StageInputError
from nsightflow.outputs import write_atomic


def write_json(path: Path, payload: dict[str, Any]) -> None:
    """Write a stage output with ``schema_version`` first, atomically.

    Written to a temporary file of a unique name beside it, then renamed: two
    writers of one file never share the temporary file.
    """
    text = json.dumps(
        {"schema_version": SCHEMA_VERSION, **payload}, indent=2, default=str
    )
    write_atomic(path, (text + "\n").encode())


def read_json(path: Path) -> dict[str, Any]:
    """Read a stage output, checking its schema version."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise StageInputError(f"{path}: cannot read stage output: {exc}") from exc
    if data.get("schema_version") != SCHEMA_VERSION:
        raise StageInputError(
            f"{path}: field schema_version is {data.get('schema_version')!r}, expected "
            f"{SCHEMA_VERSION}; re-run the stage that wrote it"
        )
    return data  # type: ignore[no-any-return]


def read_recorded(path: Path, stage_output: bool = False) -> dict[str, Any]:
    """One JSON file of a recording, read by :mod:`nsightflow.untrusted` (no links).

    Args:
        path: ``recording.json`` or a recorded stage output.
        stage_output: Also check its ``schema_version`` (a stage wrote it).

    Raises:
        StageInputError: the file is missing, a link, unreadable, not JSON, not an
            object or of another schema version, naming the file and the fix.
    """
    from nsightflow.untrusted import MAX_JSON_BYTES, Tree, Where, parse_json
    from nsightflow.untrusted.records import check_record, check_version

    data = parse_json(Tree(path.parent).read_bytes(path.name, MAX_JSON_BYTES), path)
    if path.name == "recording.json":  # its schema: additions, folders, families
        check_record(data, Where("recording"), path)
    if stage_output:
        check_version(data, path)
    return data


def recording_for(info: dict[str, Any], family: str | None) -> dict[str, Any]:
    """The account of the run a family's timings come from.

    The recording's own, or that of the latest addition holding ``time/<family>``.
    """
    base = {k: v for k, v in info.items() if k != "additions"}
    for addition in reversed(info.get("additions", [])):
        if f"time/{family}" in addition.get("folders", []):
            keep = {
                k: v for k, v in addition.items() if k not in ("replaced", "folders")
            }
            return {**base, **keep}
    return base
