"""Stage outputs on disk: JSON with ``schema_version``, and a recording's account.

:func:`read_recorded` is the one loader of a recording's JSON files
(``recording.json`` and the recorded stage outputs): it names the file and the fix.

Pure file I/O, importable from every layer (analysis and report included).
"""

import json
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from nsightflow import SCHEMA_VERSION
from nsightflow.errors import ManifestError, StageInputError
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
    """Read a stage output, checking its size and schema version.

    Raises:
        StageInputError: the file is over MAX_JSON_BYTES (checked before it is
            opened), unreadable, not a JSON object, or of another schema version.
    """
    from nsightflow.untrusted import MAX_JSON_BYTES

    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise StageInputError(
                f"{path}: {size:,} bytes, over the {MAX_JSON_BYTES >> 20} MiB a stage "
                "output stays under: not read; re-run the stage that wrote it"
            )
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as exc:
        raise StageInputError(f"{path}: cannot read stage output: {exc}") from exc
    if not isinstance(data, dict):
        raise StageInputError(
            f"{path}: holds a JSON {type(data).__name__}, not an object; re-run the "
            "stage that wrote it"
        )
    if data.get("schema_version") != SCHEMA_VERSION:
        raise StageInputError(
            f"{path}: field schema_version is {data.get('schema_version')!r}, expected "
            f"{SCHEMA_VERSION}; re-run the stage that wrote it"
        )
    return data


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


# A manifest is a few kB (the bundled families' largest, sgemm's, is under 10 kB); a
# YAML file over 1 MiB is no manifest and is refused before it is parsed.
MAX_YAML_BYTES = 1 << 20
# Aliases share a value (spmv's manifest shares its CSR inputs), but nested ones
# multiply: ten lines expand to 10^9 values (the "billion laughs"), which every
# later walk of the manifest (its schema check) would visit. A manifest is counted
# as its aliases expand; the bundled ones hold at most 463 values (sgemm).
MAX_YAML_NODES = 100_000


def read_yaml(path: Path) -> Any:
    """A YAML file (a ``family.yaml``, a ``tuned.yaml``) read as plain data.

    Safe tags only; aliases may expand to at most MAX_YAML_NODES values (a few
    lines of nested aliases expand to billions: the "billion laughs"), and a key
    that a mapping holds twice is refused (YAML keeps the last silently). Each
    refusal is one line naming the file (and the line and key).

    Raises:
        ManifestError: the file is over MAX_YAML_BYTES, unreadable, not YAML,
            expands past MAX_YAML_NODES or holds a duplicate key.
    """
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            raise ManifestError(
                f"{path}: {size:,} bytes, over the {MAX_YAML_BYTES >> 20} MiB a "
                "manifest stays under: not read"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path}: not UTF-8 text ({exc})") from exc
    return parse_yaml(text, path)


def parse_yaml(text: str, where: Any) -> Any:
    """YAML text read as :func:`read_yaml` reads a file (``where``: its name).

    Raises:
        ManifestError: the text is over MAX_YAML_BYTES, not YAML, expands past
            MAX_YAML_NODES or holds a duplicate key.
    """
    import yaml

    if len(text) > MAX_YAML_BYTES:
        raise ManifestError(
            f"{where}: {len(text):,} characters, over the {MAX_YAML_BYTES >> 20} MiB "
            "a manifest stays under: not read"
        )
    try:
        return yaml.load(text, Loader=_loader(where))
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ManifestError(f"{where}: not readable YAML ({first}); fix it") from None


def _loader(path: Any) -> Any:
    """A SafeLoader for ``path`` that bounds aliases and refuses duplicate keys.

    libyaml's parser (``CSafeLoader``) where PyYAML was built with it: the workflow's
    start reads every manifest, and the pure-Python scanner was 12% of it.
    """
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def get_single_node(self) -> Any:
            node = super().get_single_node()
            if node is not None and _expanded(node, {}) > MAX_YAML_NODES:
                raise ManifestError(
                    f"{path}: its anchors and aliases expand to over "
                    f"{MAX_YAML_NODES:,} values (a manifest holds a few hundred): "
                    "not read; write the repeated values out or share fewer"
                )
            return node

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, Hashable):
                    continue  # SafeLoader refuses it with its own message
                if key in seen:
                    raise ManifestError(
                        f"{path}: line {key_node.start_mark.line + 1}: key {key!r} "
                        "appears twice in one mapping (YAML would keep the last "
                        "silently); remove or rename one"
                    )
                seen.add(key)
            return super().construct_mapping(node, deep)

    return Loader


def _expanded(node: Any, sizes: dict[int, int]) -> int:
    """How many values ``node`` stands for with every alias expanded (memoized)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    sizes[id(node)] = 1  # a cycle (an alias inside its own anchor) counts once
    children: list[Any] = []
    if isinstance(node.value, list):
        for item in node.value:
            children += list(item) if isinstance(item, tuple) else [item]
    total = 1 + sum(_expanded(child, sizes) for child in children)
    sizes[id(node)] = min(total, MAX_YAML_NODES + 1)
    return sizes[id(node)]
