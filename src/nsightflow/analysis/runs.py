"""A run to compare: the raw outputs of one measurement, read from its folder.

``nsightflow compare A B`` takes two folders laid out like ``results/``: a results
folder, a ``results/history/<time>/`` entry or a recording (``examples/h200``). From
each it reads ``time/<family>/<variant>.json`` (timings, the samples where the time
stage kept them, provenance, the timed code where recorded), the parse stage's tables
under ``metrics/`` where a results folder has them or else the ncu reports under
``profile/<family>/<variant>/``, ``ceilings.json`` and ``recording.json``.

Only :func:`load_run` reads files; the frames it returns are documented on
:class:`Run`.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.analysis.run_counters import folders, read_counters
from nsightflow.contracts import RUN_INVALID, RUN_TIMINGS, TIME_QUARTILES, Status
from nsightflow.contracts import columns as col
from nsightflow.errors import StageInputError
from nsightflow.family.params import config_id
from nsightflow.untrusted import (
    MissingRecord,
    RecordError,
    Tree,
    read_record,
    read_rows,
)

# Columns of Run.invalid: a refused timing, its size (NA: unknown), why, and whether
# the whole record was refused (every size of the variant).
INVALID_COLUMNS = list(RUN_INVALID.columns)
PROVENANCE_KEYS = (
    col.GPU,
    "driver",
    "cuda_driver",
    "nvcc",
    "kernels_git",
    col.DATE,
    "host",
)
# Taken as they are from each row of a time-stage record.
_ROW_FIELDS = (
    *TIME_QUARTILES,
    col.REPS,
    col.SETTLED,
    col.THROTTLED,
)
# A source lookup: (kernels revision, family, variant) -> the source record the time
# stage keeps (``files``, ``sha256``), or None where that revision cannot be read.
SourceLookup = Callable[[str, str, str], dict[str, Any] | None]


@dataclass(frozen=True)
class Run:
    """One run's raw outputs as frames.

    Attributes:
        path: The folder.
        kind: ``recording``, ``history`` or ``results``.
        timings: :data:`nsightflow.contracts.RUN_TIMINGS`; ``samples`` holds the per-launch times in us
            (a float array) where the time stage kept them, else None (quartiles only).
        statuses: Per (family, variant), the time stage's status (``ok``, or the
            upstream failure it skipped for: ``wrong``, ``crashed``, ...).
        metrics: The parse stage's long table (``family, variant, size, launch,
            kernel, metric, unit, value, rollup``); empty where nothing was profiled.
        rules: Nsight Compute's rule results (the parse stage's rules table).
        families: Per family, what it was measured with: :data:`PROVENANCE_KEYS`,
            ``ncu``, ``clock_control``, ``ncu_set``, ``ncu_sections``,
            ``timing_settings``, ``replayed``.
        sources: Per (family, variant), the timed code (:func:`source_of`).
        ceilings: ``ceilings.json`` (``gpu``, ``copy_gbps``, ``fp32_gflops``), or empty.
        info: ``recording.json``, or empty.
        invalid: :data:`INVALID_COLUMNS`: timings the reader refused, per size (a
            row taken out) or per variant (``size`` NA: the whole record).
        refused: Other files the reader refused (reports, tables, ``ceilings.json``),
            one line each: what they would have added is left out.
    """

    path: Path
    kind: str
    timings: pd.DataFrame
    statuses: dict[tuple[str, str], str]
    metrics: pd.DataFrame
    rules: pd.DataFrame
    families: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    ceilings: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    invalid: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=INVALID_COLUMNS)
    )
    refused: list[str] = field(default_factory=list)


def decode_samples(text: str | None) -> np.ndarray | None:
    """Samples written by :func:`nsightflow.gpu.timing.encode_samples`, in us."""
    if not text:
        return None
    return np.array(text.split(), dtype=np.float64) / 1000.0


def run_kind(path: Path) -> str:
    """What a folder is: ``recording``, ``history`` or ``results``.

    Raises:
        StageInputError: The folder has no ``time/`` stage outputs.
    """
    if not (path / "time").is_dir():
        raise StageInputError(
            f"{path}: no time/ folder; give a results folder, a "
            "results/history/<time>/ entry or a recording (examples/h200)"
        )
    if (path / "recording.json").is_file():
        return "recording"
    return "history" if path.parent.name == "history" else "results"


def load_run(
    path: Path, families: list[str] | None = None, counters: bool = True
) -> Run:
    """Read one run.

    Args:
        path: The run's folder.
        families: Only these families; None or empty: every family timed there.
        counters: Read the ncu metrics and rules (parsing ``.ncu-rep`` files needs
            ``ncu_report``); False leaves both frames empty.

    Raises:
        StageInputError: Not a run folder, a stage output unreadable, or a family
            asked for that the run did not time.
    """
    kind = run_kind(path)
    tree, refused = Tree(path), list[str]()
    found = folders(tree, "time", refused)
    wanted = families or found
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise StageInputError(
            f"{path}/time: no timings of {', '.join(missing)}; timed there: "
            f"{', '.join(found) or 'none'}"
        )
    records, invalid = {}, []
    for f in wanted:
        for name in [n for n in tree.entries(f"time/{f}") if n.endswith(".json")]:
            record, dropped = read_rows(tree, PurePosixPath("time", f, name))
            if record is not None:
                records[(f, name.removesuffix(".json"))] = record
            invalid += [
                [f, name.removesuffix(".json"), d.size, d.problem, d.whole]
                for d in dropped
            ]
    metrics, rules = (
        read_counters(tree, wanted, refused) if counters else (_empty(), _empty())
    )
    return Run(
        path=path,
        kind=kind,
        timings=timing_table(records),
        statuses={
            key: str(rec.get(col.STATUS, "missing")) for key, rec in records.items()
        },
        metrics=metrics,
        rules=rules,
        families={f: _family_provenance(tree, f, records) for f in wanted},
        sources={
            key: {**source_of(rec), col.CONFIG: config_of(tree, key, rec, refused)}
            for key, rec in records.items()
        },
        ceilings=_optional(tree, "ceilings.json", refused),
        info=_optional(tree, "recording.json", refused),
        invalid=pd.DataFrame(invalid, columns=INVALID_COLUMNS).astype(
            {col.SIZE: "Int64", col.WHOLE: bool}
        ),
        refused=refused,
    )


def _optional(tree: Tree, rel: str, refused: list[str]) -> dict[str, Any]:
    """A record the run may lack (``ceilings.json``, ``recording.json``), or {}."""
    try:
        return read_record(tree, rel)
    except MissingRecord:
        return {}
    except RecordError as exc:
        refused.append(str(exc))
        return {}


def timing_table(records: dict[tuple[str, str], dict[str, Any]]) -> pd.DataFrame:
    """:data:`nsightflow.contracts.RUN_TIMINGS` from time-stage records keyed by (family, variant)."""
    rows: list[dict[str, Any]] = []
    for (family, variant), record in records.items():
        for r in record.get("rows", []):
            before = r.get("gpu_before") or {}
            after = r.get("gpu_after") or {}
            rows.append(
                {
                    col.FAMILY: family,
                    col.VARIANT: variant,
                    col.SIZE: int(r[col.SIZE]),
                    col.STATUS: r.get(col.STATUS, Status.OK),
                    # recordings made before cache modes existed timed hot
                    col.CACHE: r.get(
                        col.CACHE, "hot" if col.TIME_MEDIAN_US in r else None
                    ),
                    **{c: r.get(c) for c in _ROW_FIELDS},
                    col.SHARED_GPU: bool(
                        before.get(col.OTHER_PROCESSES)
                        or after.get(col.OTHER_PROCESSES)
                    ),
                    col.SM_CLOCK_MHZ: before.get(col.SM_CLOCK_MHZ),
                    col.MEM_CLOCK_MHZ: before.get(col.MEM_CLOCK_MHZ),
                    col.GENERATED: r.get(col.GENERATED),
                    col.SAMPLES: decode_samples(r.get("samples_ns")),
                }
            )
    frame = RUN_TIMINGS.frame(rows)
    frame[col.SIZE] = frame[col.SIZE].astype(int)
    return frame


def source_of(record: dict[str, Any]) -> dict[str, Any]:
    """The timed code a time-stage record carries, or its kernels revision only.

    Returns:
        The record's ``source`` block (``files``, ``sha256``, ``family_sha256``)
        with ``origin: recorded``; else ``{"revision": ..., "origin": "none"}``.
    """
    revision = (record.get("provenance") or {}).get("kernels_git")
    source = record.get(col.SOURCE)
    if source:
        return {**source, "revision": revision, "origin": "recorded"}
    return {"revision": revision, "origin": "none"}


def config_of(
    tree: Tree, key: tuple[str, str], record: dict[str, Any], refused: list[str]
) -> str | None:
    """The launch configuration a variant ran with, as ``BM64_BN256_...``, or None.

    The time record's ``config`` block where it has one; else the parameters its
    build record was compiled with (recordings made before time records carried
    them); ``""`` for a variant without parameters; None where neither is there.
    """
    block = record.get(col.CONFIG)
    if isinstance(block, dict) and isinstance(block.get(col.PARAMS), dict):
        return config_id(block[col.PARAMS])
    try:
        built = read_record(tree, f"build/{key[0]}/{key[1]}.resources.json")
    except MissingRecord:
        return None
    except RecordError as exc:
        refused.append(str(exc))
        return None
    params = built.get(col.PARAMS)
    return config_id(params) if isinstance(params, dict) else None


def fill_sources(a: Run, b: Run, lookup: SourceLookup) -> tuple[Run, Run]:
    """Both runs, with the code they did not record looked up by kernels revision.

    Only where it matters: for variants in both runs whose code is not recorded on
    one side, unless both name the same clean revision (then the code is the same).
    """
    filled: list[dict[tuple[str, str], dict[str, Any]]] = [
        dict(a.sources),
        dict(b.sources),
    ]
    for key in sorted(set(a.sources) & set(b.sources)):
        sides = (a.sources[key], b.sources[key])
        revisions = [s.get("revision") for s in sides]
        clean = revisions[0] and plain_revision(str(revisions[0])) == revisions[0]
        if all(col.FILES in s for s in sides) or (
            clean and revisions[0] == revisions[1]
        ):
            continue
        for out, src in zip(filled, sides, strict=True):
            revision = src.get("revision")
            if col.FILES not in src and revision:
                found = lookup(str(revision), *key)
                if found is not None:
                    out[key] = {
                        **found,
                        "revision": revision,
                        col.CONFIG: src.get(col.CONFIG),
                    }
    return (
        Run(**{**a.__dict__, "sources": filled[0]}),
        Run(**{**b.__dict__, "sources": filled[1]}),
    )


def _family_provenance(
    tree: Tree, family: str, records: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, Any]:
    timed = [r for (f, _), r in sorted(records.items()) if f == family]
    ok = [r for r in timed if r.get("rows")] or timed
    first = ok[0] if ok else {}
    prov = first.get("provenance") or {}
    out: dict[str, Any] = {k: prov.get(k) for k in PROVENANCE_KEYS}
    out["timing_settings"] = first.get("settings") or {}
    out["replayed"] = bool(first.get(col.REPLAYED_FROM))
    revisions = sorted(
        {str((r.get("provenance") or {}).get("kernels_git")) for r in ok}
    )
    if len(revisions) > 1:  # variants timed by different runs
        out["kernels_git"] = ", ".join(revisions)
    profile: dict[str, Any] = {}
    for meta in sorted((tree.root / "profile" / family).glob("*/profile.json")):
        profile = _optional(tree, meta.relative_to(tree.root).as_posix(), [])
        if profile:
            break
    pprov = profile.get("provenance") or {}
    settings = profile.get("settings") or {}
    out["ncu"] = pprov.get("ncu")
    out["clock_control"] = settings.get("clock_control", pprov.get("clock_control"))
    out["ncu_set"] = settings.get("set")
    out["ncu_sections"] = _sections((profile.get("reports") or [{}])[0].get("argv", []))
    return out


def _sections(argv: list[str]) -> str | None:
    """The ncu sections an argv collects, joined by spaces.

    ``full`` for ``--set full``; None where no argv was recorded.
    """
    if not argv:
        return None
    if "--set" in argv:
        return str(argv[argv.index("--set") + 1])
    return " ".join(
        argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--section"
    )


def _empty() -> pd.DataFrame:
    return pd.DataFrame()


_REVISION = re.compile(r"^[0-9a-f]{7,40}(-dirty)?$")


def plain_revision(revision: str) -> str | None:
    """A git revision as stamped (``699d717e876b``, ``...-dirty``) without the suffix.

    None for anything else (a list of revisions, an empty stamp).
    """
    if not _REVISION.match(revision):
        return None
    return revision.removesuffix("-dirty")
