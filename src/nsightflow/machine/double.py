"""A test double of the GPU workers: outputs recorded on a GPU, returned in measure mode.

**A test seam, never a measurement.** With ``NSIGHTFLOW_TEST_GPU_DOUBLE=<folder>`` set
(a folder laid out like a recording: ``verify/``, ``time/``, ``profile/``,
``sanitize/``, ``sweep/``, ``timeline/``, ``ceilings.json``, ``recording.json``), each
GPU entry point returns that folder's file for its family and variant instead of
starting a GPU worker: ``nsightflow measure`` (verify, time, timeline), ``profile``,
``sweep``, ``sanitize``, ``ceilings`` and ``timeline-backend``. Everything around
them runs as on a GPU machine: the measure-mode rules and their arguments, the GPU
lock, the stages' own records, nvcc's stand-in, parse, analyze and report. So a change
that breaks measure mode fails a CPU test (tests/workflow/test_measure_double.py, the
only place that sets the variable).

Each file is read as replay reads a recording (:func:`nsightflow.machine.replay.
replay_file`: checked against its schema and its place; a missing one becomes a
``not_recorded`` record) and carries ``test_double: <folder>`` besides
``replayed_from``, so the report says that its numbers came from a test double.
:func:`folder` is the one reader of the variable.
"""

import os
import tempfile
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.io import read_json
from nsightflow.machine.replay import replay_file

ENV = "NSIGHTFLOW_TEST_GPU_DOUBLE"


def folder() -> Path | None:
    """The double's folder, or None (the GPU workers run): the variable's one reader."""
    value = os.environ.get(ENV, "")
    return Path(value) if value else None


def _root() -> Path:
    root = folder()
    assert root is not None, f"{ENV} is not set"
    return root


def record(kind: str, ident: tuple[str, str] | None = None) -> dict[str, Any]:
    """The folder's ``<kind>/<family>/<variant>.json`` (or ``<kind>.json``), stamped.

    Args:
        kind: ``verify``, ``time``, ``timeline``, ``sanitize``, ``sweep`` or
            ``ceilings`` (no ident).
        ident: (family, variant).
    """
    root = _root()
    rel = Path(kind, *ident).with_suffix(".json") if ident else Path(f"{kind}.json")
    with tempfile.TemporaryDirectory(prefix="nsightflow-double-") as tmp:
        out = Path(tmp) / rel
        replay_file(root / rel, out, ident, root)
        data: dict[str, Any] = read_json(out)
    data.pop("schema_version", None)
    return {**data, "test_double": str(root)}


def sweep_record(ident: tuple[str, str]) -> dict[str, Any]:
    """The folder's sweep record; one it lacks has no best (the variant's defaults)."""
    data = record("sweep", ident)
    for key, empty in (("best", None), (col.CONFIGS, []), (col.SWEEP_WALL_S, None)):
        data.setdefault(key, empty)
    return {col.RESUMED: 0, col.RESTARTS: 0, **data}


def measure_records(
    ident: tuple[str, str], timeline: bool
) -> dict[str, dict[str, Any]]:
    """What :func:`nsightflow.gpu.measure.measure` returns: verify, time, timeline."""
    kinds = ("verify", "time", "timeline") if timeline else ("verify", "time")
    return {kind: record(kind, ident) for kind in kinds}


def profile_records(
    family: str, variants: list[str], out_dir: Path
) -> dict[str, dict[str, Any]]:
    """Each variant's recorded profile folder copied into ``out_dir``; its records."""
    root = _root()
    records = {}
    for name in variants:
        rel = Path("profile", family, name)
        replay_file(root / rel, out_dir / name, (family, name), root)
        meta: dict[str, Any] = read_json(out_dir / name / "profile.json")
        meta.pop("schema_version", None)
        records[name] = {**meta, "test_double": str(root)}
    return records


def timeline_capabilities() -> tuple[bool, str, bool, str]:
    """(nsys usable, why; CUPTI usable, why): the recorded traces are CUPTI's."""
    return False, f"test double ({ENV})", True, f"test double ({ENV})"
