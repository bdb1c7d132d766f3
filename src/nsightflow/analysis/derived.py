"""Derived columns of the analysis table: ncu metrics per variant and size, rates, speedups.

:func:`wide_metrics` pivots the long ncu table to one row per variant and size and
derives ratios (sectors per request for loads and stores, conflict shares, measured
FLOPs, warp cycles per issued instruction); :func:`stall_frame` keeps the stall
reasons; :func:`add_derived` adds the achieved rates, shares of the measured ceilings,
speedups and ranks. Variants that run on another input (the manifest's
``generator_args``) are compared only within their input: each input has its own
baseline (:func:`input_baselines`) and ranking. Pure functions over frames.
"""

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.analysis.launches import aggregate_launches
from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.family.inputs import ideal_counts
from nsightflow.family.registry import Family
from nsightflow.tools import ncu_metrics as M

OK = Status.OK

# Columns taken from ncu at profiled sizes: output column -> ncu metric.
NCU_COLUMNS: dict[str, str] = {
    "ncu_time_ns": M.TIME,
    "dram_read_bytes": M.DRAM_READ,
    "dram_write_bytes": M.DRAM_WRITE,
    "smem_conflicts_ld": M.SMEM_CONFLICTS_LD,
    "smem_conflicts_st": M.SMEM_CONFLICTS_ST,
    "smem_wavefronts_ld": M.SMEM_WAVEFRONTS_LD,
    "smem_wavefronts_st": M.SMEM_WAVEFRONTS_ST,
    "shared_ld_inst": M.SHARED_LD_INST,
    "shared_st_inst": M.SHARED_ST_INST,
    "global_ld_sectors": M.GLOBAL_LD_SECTORS,
    "global_st_sectors": M.GLOBAL_ST_SECTORS,
    "l2_sectors": M.L2_SECTORS,
    "occ_limit_registers": M.OCCUPANCY_LIMITS[0],
    "occ_limit_shared_mem": M.OCCUPANCY_LIMITS[1],
    "occ_limit_warps": M.OCCUPANCY_LIMITS[2],
    "occ_limit_blocks": M.OCCUPANCY_LIMITS[3],
    "global_ld_requests": M.GLOBAL_LD_REQUESTS,
    "achieved_occupancy_pct": M.ACHIEVED_OCCUPANCY,
    "theoretical_occupancy_pct": M.THEORETICAL_OCCUPANCY,
    col.REGISTERS: M.REGISTERS,
    "l2_hit_pct": M.L2_HIT_RATE,
    "smem_throughput_pct": M.SMEM_THROUGHPUT,
    "ffma": M.FFMA,
    "fadd": M.FADD,
    "fmul": M.FMUL,
    "peak_ffma_per_cycle": M.PEAK_FFMA_PER_CYCLE,
    "sm_hz": M.SM_CYCLES_PER_SECOND,
    "peak_dram_bytes_per_cycle": M.PEAK_DRAM_BYTES_PER_CYCLE,
    "dram_hz": M.DRAM_CYCLES_PER_SECOND,
    "l2_bytes": M.L2_BYTES,
    # the pattern ladders: divergence, instruction count, atomics
    "inst_executed": M.INST_EXECUTED,
    "threads_per_inst": M.THREADS_PER_INST,
    "lanes_per_inst": M.LANES_PER_INST,
    "branch_uniform_pct": M.BRANCH_UNIFORM,
    "l2_red_sectors": M.L2_RED_SECTORS,
    "l2_atom_sectors": M.L2_ATOM_SECTORS,
    "l2_red_sectors_max": M.L2_RED_SECTORS_MAX,
    "l2_atom_sectors_max": M.L2_ATOM_SECTORS_MAX,
    "l2_sectors_avg": M.L2_SECTORS_AVG,
    "l2_sectors_max": M.L2_SECTORS_MAX,
    "l2_slice_max_pct": M.L2_THROUGHPUT_MAX,
    "shared_atom_inst": M.SHARED_ATOM_INST,
    "smem_conflicts_atom": M.SMEM_CONFLICTS_ATOM,
    # regime counters (absent from older recordings: NaN) and launch facts
    "fma_pipe_counter_pct": M.FMA_PIPE,
    "fma_cycles_counter_pct": M.FMA_PIPE_CYCLES,
    "issue_counter_pct": M.ISSUE_ACTIVE,
    "dram_throughput_pct": M.DRAM_THROUGHPUT,
    "l2_throughput_pct": M.L2_THROUGHPUT,
    "l1_throughput_pct": M.L1_THROUGHPUT,
    "global_st_requests": M.GLOBAL_ST_REQUESTS,
    "local_ld_sectors": M.LOCAL_LD_SECTORS,
    "local_st_sectors": M.LOCAL_ST_SECTORS,
    "ld_bytes_per_sector": M.LD_BYTES_PER_SECTOR,
    "st_bytes_per_sector": M.ST_BYTES_PER_SECTOR,
    "waves_per_sm": M.WAVES_PER_SM,
    "grid_blocks": M.GRID_SIZE,
    "sm_count": M.SM_COUNT,
    "schedulers_per_sm": M.SCHEDULERS_PER_SM,
    "max_warps_per_sm": M.MAX_WARPS_PER_SM,
    # pipes and instruction mix (absent from older recordings: NaN)
    **{f"pipe_{p}_pct": m for p, m in M.PIPE_PCT.items()},
    **{f"inst_pipe_{p}": m for p, m in M.PIPE_INST.items()},
    "dfma": M.DFMA,
    "dadd": M.DADD,
    "dmul": M.DMUL,
    "shuffle_thread_inst": M.SHUFFLE_THREAD_INST,
}


def wide_metrics(long: pd.DataFrame) -> pd.DataFrame:
    """One row per variant x size with the ncu metrics the report uses.

    Stall metrics stay out (see :func:`stall_frame`); sectors per request and measured
    FLOPs (2*ffma + fadd + fmul) are derived here. The launches of a multi-kernel run
    are combined first (:func:`nsightflow.analysis.launches.aggregate_launches`).
    """
    long, keys = aggregate_launches(long), [col.VARIANT, col.SIZE]
    wide = _pivoted(long, keys)
    wide["sectors_per_request"] = wide["global_ld_sectors"] / wide["global_ld_requests"]
    # ncu counts a conflict as a wavefront beyond the access's minimum (1 for 32-bit,
    # 4 for 128-bit accesses), so conflicts / wavefronts is the share of replays.
    wavefronts = wide["smem_wavefronts_ld"] + wide["smem_wavefronts_st"]
    wide["smem_wavefronts_per_inst"] = wavefronts / (
        wide["shared_ld_inst"] + wide["shared_st_inst"]
    ).replace(0, np.nan)
    wide["smem_conflict_share"] = (
        wide["smem_conflicts_ld"] + wide["smem_conflicts_st"]
    ) / wavefronts.replace(0, np.nan)
    wide["measured_flops"] = 2 * wide["ffma"] + wide["fadd"] + wide["fmul"]
    wide["fp64_flops"] = 2 * wide["dfma"] + wide["dadd"] + wide["dmul"]
    wide["dram_bytes"] = wide["dram_read_bytes"] + wide["dram_write_bytes"]
    wide["l2_bytes_moved"] = wide["l2_sectors"] * M.SECTOR_BYTES
    wide["l1_bytes_moved"] = (wide["global_ld_sectors"] + wide["global_st_sectors"]) * (
        M.SECTOR_BYTES
    )
    wide["ncu_time_us"] = wide["ncu_time_ns"] / 1e3
    wide["dram_gbps"] = wide["dram_bytes"] / wide["ncu_time_ns"]  # bytes/ns = GB/s
    wide["peak_fp32_gflops_datasheet"] = (
        2 * wide["peak_ffma_per_cycle"] * wide["sm_hz"] / 1e9
    )
    wide["peak_dram_gbps_datasheet"] = (
        wide["peak_dram_bytes_per_cycle"] * wide["dram_hz"] / 1e9
    )
    wide["lane_efficiency_pct"] = 100 * wide["lanes_per_inst"] / 32
    wide["l2_atomic_sectors"] = wide["l2_red_sectors"] + wide["l2_atom_sectors"]
    # the busiest slice's atomic sectors (red and atom may peak on different slices:
    # their sum is an upper bound of one slice's), and the number of L2 slices
    wide["l2_atomic_sectors_max"] = (
        wide["l2_red_sectors_max"] + wide["l2_atom_sectors_max"]
    )
    wide["l2_slices"] = wide["l2_sectors"] / wide["l2_sectors_avg"].replace(0, np.nan)
    st_requests = wide["global_st_requests"].replace(0, np.nan)
    wide["st_sectors_per_request"] = wide["global_st_sectors"] / st_requests
    # Store sectors per byte the output puts in DRAM: 1 when each written sector
    # leaves the SM once; 8 for 4-byte stores strided past a sector. Defined only
    # where the writes reach DRAM (at small sizes they stay in the L2: NaN).
    written = wide["dram_write_bytes"].where(wide["dram_write_bytes"] >= MIN_WRITTEN)
    wide["st_sectors_per_written_sector"] = (
        wide["global_st_sectors"] * M.SECTOR_BYTES / written
    )
    wide["local_sectors"] = wide["local_ld_sectors"] + wide["local_st_sectors"]
    wide = wide.merge(_cycles_per_issue(long), on=keys, how="left", validate="1:1")
    wide[col.SIZE] = wide[col.SIZE].astype(int)
    return wide


def _pivoted(long: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The :data:`NCU_COLUMNS` of the long table, one row per ``keys``, under our names.

    Every column is there, NaN where ncu did not record it (profiling off, failed or
    not recorded: no row at all).
    """
    wanted = long[long[col.METRIC].isin(NCU_COLUMNS.values())] if len(long) else long
    if wanted.empty:  # profiling off, failed or not recorded: every column NaN
        return pd.DataFrame(columns=[*keys, *NCU_COLUMNS], dtype=float)
    wide = wanted.pivot_table(
        index=keys, columns=col.METRIC, values=col.VALUE, aggfunc="first"
    )
    wide = wide.rename(columns={v: k for k, v in NCU_COLUMNS.items()})
    return wide.reindex(columns=list(NCU_COLUMNS)).reset_index()


# Written bytes below this stay in the 60 MB L2 of a short launch too often to stand
# for the output (at small sizes ncu counts 0 written bytes).
MIN_WRITTEN = 1e6


def _cycles_per_issue(long: pd.DataFrame) -> pd.DataFrame:
    """Warp cycles per issued instruction: every stall reason's ratio, ``selected`` too.

    The sum of ``smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio``
    over all reasons is the warps resident per issue-active cycle, so a launch's time
    is about instructions x this sum / (resident warps x sub-partitions x clock).
    """
    names = {M.stall_metric(r) for r in M.STALL_REASONS}
    stalls = long[long[col.METRIC].isin(names)] if len(long) else long
    if stalls.empty:
        return pd.DataFrame({col.VARIANT: [], col.SIZE: [], "cycles_per_issue": []})
    summed = (
        stalls.groupby([col.VARIANT, col.SIZE])[col.VALUE]
        .sum()
        .rename("cycles_per_issue")
        .reset_index()
    )
    summed[col.VARIANT] = summed[col.VARIANT].astype(object)
    return summed


def stall_frame(long: pd.DataFrame) -> pd.DataFrame:
    """Warp stall reasons per variant x size: cycles per issued instruction and share."""
    names = {M.stall_metric(r): r for r in M.STALL_REASONS}
    long = aggregate_launches(long)
    stalls = long[long[col.METRIC].isin(names)].copy()
    stalls[col.REASON] = stalls[col.METRIC].map(names)
    stalls = stalls.rename(columns={col.VALUE: col.CYCLES})[
        [col.VARIANT, col.SIZE, col.REASON, col.CYCLES]
    ]
    # "selected" is the issuing warp itself, not a stall.
    stalls = stalls[stalls[col.REASON] != "selected"]
    totals = stalls.groupby([col.VARIANT, col.SIZE])[col.CYCLES].transform("sum")
    stalls[col.SHARE] = stalls[col.CYCLES] / totals.replace(0, np.nan)
    stalls[col.SIZE] = stalls[col.SIZE].astype(int)
    return stalls.sort_values(
        [col.VARIANT, col.SIZE, col.CYCLES], ascending=[True, True, False]
    ).reset_index(drop=True)


def add_derived(
    frame: pd.DataFrame,
    family: Family,
    ceilings: Mapping[str, Any],
    generated: Mapping[tuple[str, int], dict[str, int]] | None = None,
) -> pd.DataFrame:
    """Achieved rates, % of ceilings, speedups and rank (returns a new frame).

    ``generated`` holds the generator's sizes per (variant, n) for families whose
    ideal FLOPs and bytes depend on them (see :func:`nsightflow.family.inputs.recorded_sizes`).
    """
    out = frame.copy()
    sizes = (generated or {}) if family.generated else None
    out["ideal_flops"] = ideal_counts(out, family.ideal_flops, sizes)
    out["ideal_bytes"] = ideal_counts(out, family.ideal_bytes, sizes)
    out["ai_ideal"] = out["ideal_flops"] / out["ideal_bytes"]
    seconds = out[col.TIME_MEDIAN_US] * 1e-6
    out[col.GBPS] = out["ideal_bytes"] / seconds / 1e9
    out[col.GFLOPS] = out["ideal_flops"] / seconds / 1e9
    copy = ceilings.get(col.COPY_GBPS)
    fp32 = ceilings.get(col.FP32_GFLOPS)
    out[col.PCT_OF_COPY_BW] = 100 * out[col.GBPS] / copy if copy else np.nan
    out[col.PCT_OF_FP32_PEAK] = 100 * out[col.GFLOPS] / fp32 if fp32 else np.nan
    ok = out[col.STATUS] == OK
    times = out[ok].set_index([col.VARIANT, col.SIZE])[col.TIME_MEDIAN_US]
    labels = {v: input_label(var.generator_args) for v, var in family.variants.items()}
    bases = input_baselines(family)
    out[col.INPUT] = out[col.VARIANT].map(labels)
    out["input_baseline"] = out[col.VARIANT].map(bases)
    base = out.apply(
        lambda r: times.get((r["input_baseline"], r[col.SIZE]), np.nan), axis=1
    )
    out[col.SPEEDUP_VS_BASELINE] = np.where(ok, base / out[col.TIME_MEDIAN_US], np.nan)
    previous = out.apply(
        lambda r: times.get(
            (_same_input_step(family, r[col.VARIANT]), r[col.SIZE]), np.nan
        ),
        axis=1,
    )
    out[col.SPEEDUP_VS_PREVIOUS] = np.where(
        ok, previous / out[col.TIME_MEDIAN_US], np.nan
    )
    # Cross-check: ncu's duration of its one profiled launch vs the event median.
    if "ncu_time_us" in out:
        out["ncu_vs_event_pct"] = 100 * (
            out["ncu_time_us"] / out[col.TIME_MEDIAN_US] - 1
        )
    out[col.RANK] = (
        out[ok].groupby([col.INPUT, col.SIZE])[col.TIME_MEDIAN_US].rank(method="min")
    )
    return out


def input_column(values: pd.Series) -> pd.Series:
    """An ``input`` column read back from CSV: the default input's empty cells as ``""``."""
    return values.astype(object).where(values.notna(), "").astype(str)


def input_label(generator_args: Mapping[str, Any]) -> str:
    """The input a variant runs on, as text: ``""`` for the generator's default.

    ``{kind: skewed}`` gives ``kind=skewed``; several arguments are sorted by name.
    """
    return ", ".join(f"{k}={generator_args[k]}" for k in sorted(generator_args))


def input_baselines(family: Family) -> dict[str, str]:
    """Each variant's baseline: the family's for its input, else its input's first step.

    A variant's chain of ``improves_on`` is followed while the input stays the same;
    where it reaches another input (or its start), that variant starts its input's
    ladder and is the baseline of every variant on that input.
    """
    base_input = input_label(family.variants[family.baseline].generator_args)
    roots = {}
    for name in family.variants:
        label = input_label(family.variants[name].generator_args)
        if label == base_input:
            roots[name] = family.baseline
            continue
        root = name
        while (step := _same_input_step(family, root)) is not None:
            root = step
        roots[name] = root
    return roots


def _same_input_step(family: Family, variant: str) -> str | None:
    """The variant this one improves on, if it runs on the same input (else None)."""
    before = family.variants[variant].improves_on
    if before is None:
        return None
    same = input_label(family.variants[before].generator_args) == input_label(
        family.variants[variant].generator_args
    )
    return before if same else None
