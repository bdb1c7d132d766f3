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
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.errors import StageInputError
from nsightflow.io import read_json, read_recorded

# Columns of Run.timings, one row per family x variant x size timed.
TIMING_COLUMNS = [
    "family",
    "variant",
    "size",
    "status",
    "cache",
    "time_median_us",
    "time_q1_us",
    "time_q3_us",
    "time_iqr_us",
    "reps",
    "settled",
    "throttled",
    "shared_gpu",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "generated",
    "samples",
]
PROVENANCE_KEYS = (
    "gpu",
    "driver",
    "cuda_driver",
    "nvcc",
    "kernels_git",
    "date",
    "host",
)
# Taken as they are from each row of a time-stage record.
_ROW_FIELDS = (
    "time_median_us",
    "time_q1_us",
    "time_q3_us",
    "time_iqr_us",
    "reps",
    "settled",
    "throttled",
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
        timings: :data:`TIMING_COLUMNS`; ``samples`` holds the per-launch times in us
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
    found = sorted(p.name for p in (path / "time").iterdir() if p.is_dir())
    wanted = families or found
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise StageInputError(
            f"{path}/time: no timings of {', '.join(missing)}; timed there: "
            f"{', '.join(found) or 'none'}"
        )
    records = {
        (f, p.stem): read_json(p)
        for f in wanted
        for p in sorted((path / "time" / f).glob("*.json"))
    }
    metrics, rules = _counters(path, wanted) if counters else (_empty(), _empty())
    info_path = path / "recording.json"
    ceilings_path = path / "ceilings.json"
    return Run(
        path=path,
        kind=kind,
        timings=timing_table(records),
        statuses={
            key: str(rec.get("status", "missing")) for key, rec in records.items()
        },
        metrics=metrics,
        rules=rules,
        families={f: _family_provenance(path, f, records) for f in wanted},
        sources={key: source_of(rec) for key, rec in records.items()},
        ceilings=read_json(ceilings_path) if ceilings_path.is_file() else {},
        info=read_recorded(info_path) if info_path.is_file() else {},
    )


def timing_table(records: dict[tuple[str, str], dict[str, Any]]) -> pd.DataFrame:
    """:data:`TIMING_COLUMNS` from time-stage records keyed by (family, variant)."""
    rows: list[dict[str, Any]] = []
    for (family, variant), record in records.items():
        for r in record.get("rows", []):
            before = r.get("gpu_before") or {}
            after = r.get("gpu_after") or {}
            rows.append(
                {
                    "family": family,
                    "variant": variant,
                    "size": int(r["size"]),
                    "status": r.get("status", "ok"),
                    # recordings made before cache modes existed timed hot
                    "cache": r.get("cache", "hot" if "time_median_us" in r else None),
                    **{c: r.get(c) for c in _ROW_FIELDS},
                    "shared_gpu": bool(
                        before.get("other_processes") or after.get("other_processes")
                    ),
                    "sm_clock_mhz": before.get("sm_clock_mhz"),
                    "mem_clock_mhz": before.get("mem_clock_mhz"),
                    "generated": r.get("generated"),
                    "samples": decode_samples(r.get("samples_ns")),
                }
            )
    frame = pd.DataFrame(rows, columns=TIMING_COLUMNS)
    frame["size"] = frame["size"].astype(int)
    return frame


def source_of(record: dict[str, Any]) -> dict[str, Any]:
    """The timed code a time-stage record carries, or its kernels revision only.

    Returns:
        The record's ``source`` block (``files``, ``sha256``, ``family_sha256``)
        with ``origin: recorded``; else ``{"revision": ..., "origin": "none"}``.
    """
    revision = (record.get("provenance") or {}).get("kernels_git")
    source = record.get("source")
    if source:
        return {**source, "revision": revision, "origin": "recorded"}
    return {"revision": revision, "origin": "none"}


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
        if all("files" in s for s in sides) or (clean and revisions[0] == revisions[1]):
            continue
        for out, src in zip(filled, sides, strict=True):
            revision = src.get("revision")
            if "files" not in src and revision:
                found = lookup(str(revision), *key)
                if found is not None:
                    out[key] = {**found, "revision": revision}
    return (
        Run(**{**a.__dict__, "sources": filled[0]}),
        Run(**{**b.__dict__, "sources": filled[1]}),
    )


def _family_provenance(
    path: Path, family: str, records: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, Any]:
    timed = [r for (f, _), r in sorted(records.items()) if f == family]
    ok = [r for r in timed if r.get("rows")] or timed
    first = ok[0] if ok else {}
    prov = first.get("provenance") or {}
    out: dict[str, Any] = {k: prov.get(k) for k in PROVENANCE_KEYS}
    out["timing_settings"] = first.get("settings") or {}
    out["replayed"] = bool(first.get("replayed_from"))
    revisions = sorted(
        {str((r.get("provenance") or {}).get("kernels_git")) for r in ok}
    )
    if len(revisions) > 1:  # variants timed by different runs
        out["kernels_git"] = ", ".join(revisions)
    meta = next(iter(sorted((path / "profile" / family).glob("*/profile.json"))), None)
    profile = read_json(meta) if meta else {}
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


def _counters(path: Path, families: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The parse stage's tables where present (a results folder), else the reports."""
    metrics: list[pd.DataFrame] = []
    rules: list[pd.DataFrame] = []
    reports: list[Path] = []
    for family in families:
        for folder in sorted((path / "profile" / family).glob("*")):
            if not (folder / "profile.json").is_file():
                continue
            table = path / "metrics" / family / f"{folder.name}.csv"
            if table.is_file() and table.stat().st_size > 0:
                metrics.append(pd.read_csv(table))
                ruled = table.with_suffix(".rules.csv")
                if ruled.is_file() and ruled.stat().st_size > 1:
                    rules.append(pd.read_csv(ruled))
            elif any(folder.glob("*.ncu-rep")):
                reports.append(folder)
    if reports:
        from nsightflow.tools.ncu_parse import parse_files

        parsed, parsed_rules = parse_files(reports, keep_going=True)
        metrics.append(parsed)
        rules.append(parsed_rules)
    return _concat(metrics), _concat(rules)


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


_REVISION = re.compile(r"^[0-9a-f]{7,40}(-dirty)?$")


def plain_revision(revision: str) -> str | None:
    """A git revision as stamped (``699d717e876b``, ``...-dirty``) without the suffix.

    None for anything else (a list of revisions, an empty stamp).
    """
    if not _REVISION.match(revision):
        return None
    return revision.removesuffix("-dirty")
