"""Analyze stage: join compile, verify, timing and ncu data of one family.

Writes into ``results/analysis/<family>/``:

- ``analysis.csv``, one row per variant x swept size (:data:`~nsightflow.contracts.ANALYSIS`): status,
  timing statistics, achieved GB/s and GFLOP/s from the family's ideal counts, % of the
  measured ceilings, speedups vs the baseline and vs the step each variant improves on,
  rank among correct variants, and at profiled sizes the ncu metrics the report uses.
- ``stalls.csv``: ``variant, size, reason, cycles, share`` (warp stall reasons).
- ``rules.csv``: ncu's rule results of every profiled launch.
- ``hotspots.csv``: warp-state samples per CUDA source line of every profiled launch
  (:mod:`nsightflow.analysis.hotspots`).
- ``context.json``: family, variants (idea, status, resources, sanitizer findings),
  ceilings, provenance (:mod:`nsightflow.analysis.context`).

The analyze stage then writes ``findings.csv`` beside them, the diagnosis of these
tables (:func:`nsightflow.diagnosis.build.write_findings`).

The table's columns: :mod:`nsightflow.analysis.derived` (metrics, rates, speedups per
input) and :mod:`nsightflow.analysis.regime` (regime, its ceiling and basis).

All functions that build frames are pure; only :func:`write_analysis` touches files.
"""

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.analysis import integrity
from nsightflow.analysis.compiled import compiler_entries
from nsightflow.analysis.context import OK, context, replay_context, variant_status
from nsightflow.analysis.derived import (
    NCU_COLUMNS,
    add_derived,
    stall_frame,
    wide_metrics,
)
from nsightflow.analysis.hotspots import read_hotspot_inputs, write_hotspots
from nsightflow.analysis.launches import launch_long, launch_table, with_launch_rows
from nsightflow.analysis.mix import mix_columns, with_mix
from nsightflow.analysis.regime import add_regime
from nsightflow.contracts import (
    ANALYSIS,
    FINDINGS,
    GPU_STATE,
    METRICS,
    RULES,
    STALLS,
    TIMINGS,
    Status,
    Table,
)
from nsightflow.contracts import columns as col
from nsightflow.errors import StageInputError
from nsightflow.family.inputs import recorded_sizes
from nsightflow.family.registry import Family, load_family
from nsightflow.io import read_json, write_json
from nsightflow.tools.profile_layout import profile_folders

__all__ = [
    "NCU_COLUMNS",
    "AnalysisInputs",
    "add_derived",
    "build_analysis",
    "stall_frame",
    "wide_metrics",
    "write_analysis",
]


@dataclass(frozen=True)
class AnalysisInputs:
    """Files the analyze stage reads (lists hold one file per variant)."""

    family_dir: Path
    resources: list[Path] = field(default_factory=list)
    verify: list[Path] = field(default_factory=list)
    timing: list[Path] = field(default_factory=list)
    metrics: list[Path] = field(default_factory=list)
    rules: list[Path] = field(default_factory=list)
    profiles: list[Path] = field(default_factory=list)  # profile folders (profile.json)
    ceilings: Path | None = None
    sanitize: list[Path] = field(default_factory=list)  # none: stage switched off
    source: list[Path] = field(default_factory=list)  # per-instruction warp samples


def timing_frame(family: str, records: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Timing rows of every variant: ``family, variant, size, status, time_*...``."""
    rows = []
    for variant, record in records.items():
        for row in record.get("rows", []):
            rows.append(
                {
                    col.FAMILY: family,
                    col.VARIANT: variant,
                    col.SIZE: row[col.SIZE],
                    "timing_status": row.get(col.STATUS, OK),
                    **{c: row.get(c) for c in TIMINGS.columns},
                    col.SHARED_GPU: bool(
                        (row.get("gpu_before") or {}).get(col.OTHER_PROCESSES)
                        or (row.get("gpu_after") or {}).get(col.OTHER_PROCESSES)
                    ),
                    **gpu_state_columns(row),
                    # recordings made before cache modes existed were all hot
                    col.CACHE: row.get(
                        col.CACHE, "hot" if col.TIME_MEDIAN_US in row else None
                    ),
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            col.FAMILY,
            col.VARIANT,
            col.SIZE,
            "timing_status",
            col.SHARED_GPU,
            *TIMINGS.columns,
            *GPU_STATE,
        ],
    )


def gpu_state_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    """A timing row's GPU state before and after sampling, and its re-check."""
    before, after = row.get("gpu_before") or {}, row.get("gpu_after") or {}
    reasons = [s.get(col.THROTTLE_REASONS) for s in (before, after)]
    masks = [r for r in reasons if isinstance(r, int)]
    recheck = row.get("verified_after") or {}
    return {
        col.SM_CLOCK_MHZ_BEFORE: before.get(col.SM_CLOCK_MHZ),
        col.SM_CLOCK_MHZ_AFTER: after.get(col.SM_CLOCK_MHZ),
        col.MEM_CLOCK_MHZ_BEFORE: before.get(col.MEM_CLOCK_MHZ),
        col.MEM_CLOCK_MHZ_AFTER: after.get(col.MEM_CLOCK_MHZ),
        col.THROTTLE_REASONS: masks[0] | masks[-1] if masks else None,
        col.OTHER_PROCESSES: max(
            (len(s.get(col.OTHER_PROCESSES) or []) for s in (before, after)), default=0
        )
        if before or after
        else None,
        col.RECHECK_STATUS: recheck.get(col.STATUS),
        col.RECHECK_MESSAGE: recheck.get(col.MESSAGE),
    }


def build_analysis(
    family: Family,
    per_variant: Mapping[str, Mapping[str, Any]],
    long_metrics: pd.DataFrame,
    ceilings: Mapping[str, Any],
) -> pd.DataFrame:
    """The analysis table: every variant x swept size, failed variants included.

    Args:
        family: the family manifest.
        per_variant: variant -> {"resources", "verify", "timing"} stage records.
        long_metrics: parsed ncu metrics of the family (long format; may be empty).
        ceilings: measured ceilings (``copy_gbps``, ``fp32_gflops``).

    Returns:
        One row per variant and size; columns are documented in the module docstring.
    """
    keys = [col.VARIANT, col.SIZE]
    grid = pd.DataFrame(
        [(v, n) for v in family.variants for n in family.sizes], columns=keys
    )
    grid.insert(0, col.FAMILY, family.name)
    status = {
        v: variant_status(
            r.get("resources", {}),
            r.get("verify", {}),
            r.get("sanitize"),
            r.get("timing"),
        )
        for v, r in per_variant.items()
    }
    grid[col.STATUS] = grid[col.VARIANT].map(
        lambda v: status.get(v, ("missing", ""))[0]
    )
    grid[col.MESSAGE] = grid[col.VARIANT].map(
        lambda v: status.get(v, ("", "no record"))[1]
    )
    timing = timing_frame(
        family.name, {v: r.get("timing", {}) for v, r in per_variant.items()}
    )
    frame = grid.merge(timing.drop(columns=col.FAMILY), on=keys, how="left")
    # a size the variant does not accept, or one the concurrency guard refused to time
    for special in (Status.UNSUPPORTED, Status.GPU_BUSY):
        hit = frame["timing_status"] == special
        frame.loc[hit & (frame[col.STATUS] == OK), col.STATUS] = special
    # a swept size the timing record lacks (recorded before the sweep had it)
    absent = frame["timing_status"].isna() & (frame[col.STATUS] == OK)
    frame.loc[absent, col.STATUS] = Status.NOT_RECORDED
    frame.loc[absent, col.MESSAGE] = "this size is not in the timing record"
    frame = frame.drop(columns="timing_status")
    wide = wide_metrics(long_metrics)
    wide[col.VARIANT] = wide[col.VARIANT].astype(object)
    frame = frame.merge(wide, on=keys, how="left")
    frame["profiled"] = frame["ncu_time_ns"].notna()
    sizes = recorded_sizes(per_variant)
    frame = add_derived(frame, family, ceilings, sizes)
    checked = integrity.apply(frame, ceilings)  # implausible times leave the ranking
    if checked is not frame:
        frame = add_derived(checked, family, ceilings, sizes)
    return add_regime(frame, ceilings, vendor_rates(family, ceilings, frame))


CEILING_FIELDS = (
    col.COPY_GBPS,
    col.FP32_GFLOPS,
    col.VENDOR_SGEMM_GFLOPS,
    "l2_gbps",
    "l1_gbps",
    "shared_gbps",
)


def _ceilings(path: Path) -> dict[str, Any]:
    """``ceilings.json``, each rate in it a number above 0.

    Every share of a ceiling divides by it: a rate of 0 (or below, or not a
    number) gave shares without a value and a KeyError deep in the diagnosis.

    Raises:
        StageInputError: one line naming the file, the field and the fix.
    """
    data = read_json(path)
    for name in CEILING_FIELDS:
        value = data.get(name)
        if value is None:
            continue
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or value <= 0:
            raise StageInputError(
                f"{path}: field {name}: {value!r} is no measured rate (a ceiling is "
                "a number above 0); measure the ceilings again (nsightflow "
                "ceilings) or remove the field"
            )
    return data


VENDOR_SIZE = re.compile(r"\bn\s*=\s*(\d+)")  # "cupy.matmul (cuBLAS) float32, n = 8192"


def vendor_rates(
    family: Family, ceilings: Mapping[str, Any], frame: pd.DataFrame
) -> dict[int, float]:
    """The vendor library's rate at each size it was measured at (empty if none).

    A library variant of the ladder (SGEMM's ``v8_torch_matmul``: cuBLAS on the same
    buffers, timed as every variant is) gives its rate at each size it was timed;
    ``ceilings.json``'s own measurement counts at the size its note names (n = 8192)
    where the ladder has none. A size without either has no vendor ceiling: a rate
    measured at n = 8192 is no ceiling at n = 256.
    """
    if not family.vendor:
        return {}
    rates: dict[int, float] = {}
    rate = ceilings.get(f"vendor_{family.vendor}_gflops")
    note = VENDOR_SIZE.search(str(ceilings.get(f"vendor_{family.vendor}_note") or ""))
    if rate and note:
        rates[int(note.group(1))] = float(rate)
    library = {v.name for v in family.variants.values() if v.is_library}
    if col.GFLOPS in frame:
        timed = frame[frame[col.VARIANT].isin(library) & (frame[col.STATUS] == OK)]
        best = timed.groupby(col.SIZE)[col.GFLOPS].max()
        sizes, values = best.index.astype(int), best.to_numpy(dtype=float)
        for size, gflops in zip(sizes, values, strict=True):
            if math.isfinite(gflops) and gflops > 0:
                rates[int(size)] = float(gflops)
    return rates


def _records(paths: list[Path]) -> dict[str, dict[str, Any]]:
    found = {}
    for path in paths:
        data = read_json(path)
        data["_file"] = _origin(path, data)
        found[data[col.VARIANT]] = data
    return found


def _origin(path: Path, data: Mapping[str, Any]) -> str:
    """The raw file a number comes from: the recorded one for replayed outputs."""
    source = data.get(col.REPLAYED_FROM)
    return f"{path} (replayed from {source})" if source else str(path)


def _read_tables(paths: list[Path], table: Table) -> pd.DataFrame:
    frames = [table.read(p) for p in paths if p.stat().st_size > 0]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def write_analysis(
    inputs: AnalysisInputs, out_dir: Path, family: Family | None = None
) -> None:
    """Read the family's stage outputs and write the analysis files.

    ``family``: the manifest of ``inputs.family_dir`` where the caller has loaded it.
    """
    family = family or load_family(inputs.family_dir)
    per_variant: dict[str, dict[str, Any]] = {v: {} for v in family.variants}
    for kind, paths in (
        ("resources", inputs.resources),
        ("verify", inputs.verify),
        ("timing", inputs.timing),
        ("sanitize", inputs.sanitize),
    ):
        for variant, record in _records(paths).items():
            per_variant.setdefault(variant, {})[kind] = record
    for folder in profile_folders(inputs.profiles):
        meta = read_json(folder / "profile.json")
        per_variant.setdefault(meta[col.VARIANT], {})["profile"] = {
            **meta.get("settings", {}),
            **meta.get("provenance", {}),
            col.STATUS: meta[col.STATUS],
            col.MESSAGE: meta.get(col.MESSAGE, ""),
            "argv": (meta.get("reports") or [{}])[0].get("argv", []),
            "reports": list(  # one file holds every size profiled in one process
                dict.fromkeys(
                    os.path.normpath(folder / r[col.FILE])
                    for r in meta.get("reports", [])
                    if r.get(col.STATUS) == Status.OK
                )
            ),
        }
    ceilings = _ceilings(inputs.ceilings) if inputs.ceilings else {}
    long = _read_tables(inputs.metrics, METRICS)
    frame = build_analysis(family, per_variant, long, ceilings)
    # the instruction mix of the sampled SASS (shuffles, MUFU, FP64, branches)
    instructions, texts = read_hotspot_inputs(inputs.source, inputs.family_dir)
    frame = with_mix(frame, mix_columns(instructions, texts, inputs.family_dir))
    ctx = context(family, per_variant, ceilings, frame)
    ctx["replay"] = replay_context(per_variant)
    compiled = compiler_entries(instructions, per_variant)
    for entry in ctx["variants"]:  # what the compiler built, where it was profiled
        entry["compiler"] = compiled.get(entry[col.NAME], {})
    launches = launch_table(long)
    if launches:  # multi-kernel variants: each launch's share of the run, its row
        ctx["launches"] = _with_rows(launches, family, per_variant, long, ceilings)
    out_dir.mkdir(parents=True, exist_ok=True)
    ANALYSIS.write(frame, out_dir / ANALYSIS.name)
    # integrity.csv: findings.csv's columns
    FINDINGS.write(integrity.findings(frame), out_dir / "integrity.csv")
    stalls = stall_frame(long) if not long.empty else STALLS.empty()
    STALLS.write(stalls, out_dir / STALLS.name)
    RULES.write(_read_tables(inputs.rules, RULES), out_dir / "rules.csv")
    write_hotspots(inputs.source, inputs.family_dir, out_dir / "hotspots.csv")
    write_json(out_dir / "context.json", ctx)


def _with_rows(
    launches: dict[str, dict[str, list[dict[str, Any]]]],
    family: Family,
    per_variant: Mapping[str, Mapping[str, Any]],
    long: pd.DataFrame,
    ceilings: Mapping[str, Any],
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """The per-launch table with each launch's analysis row, stall reasons included."""
    positions = {
        int(e[col.LAUNCH]) for s in launches.values() for r in s.values() for e in r
    }
    rows = {}
    for k in sorted(positions):
        part = launch_long(long, k)
        frame = build_analysis(family, per_variant, part, ceilings)
        stalls = stall_frame(part)
        if not stalls.empty:
            wide = stalls.pivot_table(
                index=[col.VARIANT, col.SIZE], columns=col.REASON, values=col.CYCLES
            )
            wide.columns = [f"stall_{c}" for c in wide.columns]
            frame = frame.merge(
                wide.reset_index(), on=[col.VARIANT, col.SIZE], how="left"
            )
        rows[k] = frame
    return with_launch_rows(launches, rows)
