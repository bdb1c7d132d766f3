"""The one declared list of what the report reads from Nsight Compute.

``profile`` collects exactly these sections and metrics (the lean default set), and
``analyze`` reads them by the names below, so collection and report cannot drift apart.
"""

# Sections whose metrics and rule results (with estimated speedups) the report uses.
# Replay passes for one Jacobi-2D launch on the H200 (ncu 2025.3.1; probes of
# docs/measurements/profile-cost.md): --set full 38; SpeedOfLight alone 10, WarpStateStats 9;
# LaunchStats and Occupancy 1 each; the metrics below 15 with SpeedOfLight's two
# breakdown throughputs (sm__throughput, gpu__compute_memory_throughput: 10 passes on
# their own), which the report never read. Without those two and SpeedOfLight, this
# set takes 10 passes. Other sections' few metrics come through EXTRA_METRICS.
SECTIONS: tuple[str, ...] = (
    "LaunchStats",
    "Occupancy",
    "WarpStateStats",
)

STALL_REASONS: tuple[str, ...] = (
    "barrier",
    "branch_resolving",
    "dispatch_stall",
    "drain",
    "imc_miss",
    "lg_throttle",
    "long_scoreboard",
    "math_pipe_throttle",
    "membar",
    "mio_throttle",
    "misc",
    "no_instruction",
    "not_selected",
    "selected",
    "short_scoreboard",
    "sleeping",
    "tex_throttle",
    "wait",
)

TIME = "gpu__time_duration.sum"
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
FADD = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"
FMUL = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"
SMEM_CONFLICTS_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
SMEM_CONFLICTS_ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
SMEM_WAVEFRONTS_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SMEM_WAVEFRONTS_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
SHARED_LD_INST = "smsp__sass_inst_executed_op_shared_ld.sum"
SHARED_ST_INST = "smsp__sass_inst_executed_op_shared_st.sum"
GLOBAL_LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
GLOBAL_ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
L2_SECTORS = "lts__t_sectors.sum"
SECTOR_BYTES = 32
GLOBAL_LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
ACHIEVED_OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEORETICAL_OCCUPANCY = "sm__maximum_warps_per_active_cycle_pct"
REGISTERS = "launch__registers_per_thread"
L2_HIT_RATE = "lts__t_sector_hit_rate.pct"
L1_HIT_RATE = "l1tex__t_sector_hit_rate.pct"
SMEM_THROUGHPUT = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"
)
OCCUPANCY_LIMITS = (
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
)
# Device attributes ncu records with every launch: the datasheet ceilings.
SM_COUNT = "device__attribute_multiprocessor_count"
SM_CLOCK_KHZ = "device__attribute_max_gpu_frequency_khz"
MEM_CLOCK_KHZ = "device__attribute_max_mem_frequency_khz"
MEM_BUS_BITS = "device__attribute_global_memory_bus_width"
L2_BYTES = "device__attribute_l2_cache_size"
DEVICE_NAME = "device__attribute_display_name"
# What ncu's own roofline uses for the datasheet ceilings at the clocks it ran at.
PEAK_FFMA_PER_CYCLE = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"
SM_CYCLES_PER_SECOND = "sm__cycles_elapsed.avg.per_second"
PEAK_DRAM_BYTES_PER_CYCLE = "dram__bytes.sum.peak_sustained"
DRAM_CYCLES_PER_SECOND = "dram__cycles_elapsed.avg.per_second"


def stall_metric(reason: str) -> str:
    """Warp cycles per issued instruction stalled on ``reason``."""
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


# --- ECE408 pattern families ------------------------------------------------------------
# What the reduction, histogram, scan and vecadd ladders change: lane efficiency and
# branch uniformity (warp divergence), the instruction count (coarsening, vector loads,
# work efficiency; also the weight for averaging per-instruction ratios over the
# launches of a multi-kernel variant), and atomics in L2 (global) and shared memory.
# Lane efficiency counts the threads that are neither inactive nor predicated off per
# warp instruction (ncu's "Avg. Not Predicated Off Threads Per Warp", from the
# WarpStateStats section): the compiler turns short divergent branches into predicated
# code, which the active-thread ratio alone does not show.
INST_EXECUTED = "smsp__inst_executed.sum"
THREADS_PER_INST = "smsp__thread_inst_executed_per_inst_executed.ratio"
LANES_PER_INST = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
BRANCH_UNIFORM = "smsp__sass_average_branch_targets_threads_uniform.pct"
L2_RED_SECTORS = "lts__t_sectors_op_red.sum"
L2_ATOM_SECTORS = "lts__t_sectors_op_atom.sum"
# the busiest L2 slice: its atomic sectors and its throughput (ncu reports every rollup
# of the counters above; the .max is the slice that holds a hot address)
L2_RED_SECTORS_MAX = "lts__t_sectors_op_red.max"
L2_ATOM_SECTORS_MAX = "lts__t_sectors_op_atom.max"
L2_SECTORS_AVG = "lts__t_sectors.avg"
L2_SECTORS_MAX = "lts__t_sectors.max"
L2_THROUGHPUT_MAX = "lts__throughput.max.pct_of_peak_sustained_elapsed"
SHARED_ATOM_INST = "smsp__sass_inst_executed_op_shared_atom.sum"
SMEM_CONFLICTS_ATOM = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
PATTERN_METRICS: tuple[str, ...] = (
    INST_EXECUTED,
    THREADS_PER_INST,
    BRANCH_UNIFORM,
    L2_RED_SECTORS,
    L2_ATOM_SECTORS,
    L2_RED_SECTORS_MAX,
    L2_ATOM_SECTORS_MAX,
    L2_SECTORS_AVG,
    L2_SECTORS_MAX,
    L2_THROUGHPUT_MAX,
    SHARED_ATOM_INST,
    SMEM_CONFLICTS_ATOM,
)
# ----------------------------------------------------------------------------------------

# --- Regime counters --------------------------------------------------------------------
# Which ceiling applies: how busy the FP32 pipe and the issue slots are, how close DRAM
# and L2 run to their peaks, and the L1; stores (requests, so sectors per store request),
# local memory and the bytes of each 32-byte sector a warp actually uses (coalescing
# against the access width). Cost on the H200 (ncu 2025.3.1, one launch, measured
# 2026-11-30, ../shared/device/README.md): the pipe, issue and throughput percentages add
# one replay pass to the lean set's 10 (4.4-4.7 s of ncu wall time against 9-12 s for
# --set full); store requests add none. The local-memory sectors and the bytes used per
# sector (SASS-patched, like the lean set's other smsp__sass_* counts) were not measured
# apart: scripts/benchmarks/bench_profile.py gives the whole set's passes. The analysis works
# without any of them (older recordings): it derives issue and FP32 rates from counts and times, and its rules that
# need one stay silent.
FMA_PIPE = "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"
FMA_PIPE_CYCLES = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
ISSUE_ACTIVE = "sm__inst_issued.avg.pct_of_peak_sustained_active"
DRAM_THROUGHPUT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
L2_THROUGHPUT = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
L1_THROUGHPUT = "l1tex__throughput.avg.pct_of_peak_sustained_active"
GLOBAL_ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
LOCAL_LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"
LOCAL_ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
LD_BYTES_PER_SECTOR = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"
ST_BYTES_PER_SECTOR = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"
REGIME_METRICS: tuple[str, ...] = (
    FMA_PIPE,
    FMA_PIPE_CYCLES,
    ISSUE_ACTIVE,
    DRAM_THROUGHPUT,
    L2_THROUGHPUT,
    L1_THROUGHPUT,
    GLOBAL_ST_REQUESTS,
    LOCAL_LD_SECTORS,
    LOCAL_ST_SECTORS,
    LD_BYTES_PER_SECTOR,
    ST_BYTES_PER_SECTOR,
)
# --- Pipes and instruction mix ----------------------------------------------------------
# Which pipe limits a compute-bound kernel and what its instructions are: the other
# pipes' utilization beside the FMA pipe's (ALU: integer and logic; FP64; XU: special
# functions MUFU and conversions; LSU: memory instructions; tensor), the warp
# instructions each pipe executed, and the thread instructions of the SASS classes that
# name work moved to another pipe (FP64 adds, multiplies, FMAs) or the source of MIO
# waits (inter-thread communication: shuffles and votes). Pass cost on GH100 from the
# NVPW host library's scheduler (ncu_report 2025.3.1's libnvperf_host, chip GH100): the
# hardware counters of the lean list need 14 passes with or without these; the
# pipes' *cycles* counters (sm__pipe_fp64_cycles_active, ...) would add one and are
# left out. Measured on the H200: docs/measurements/h200_lean_passes.md.
PIPE_PCT: dict[str, str] = {
    "alu": "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
    "fp64": "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
    "xu": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    "lsu": "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
    "tensor": "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active",
}
PIPE_INST: dict[str, str] = {
    "fma": "smsp__inst_executed_pipe_fma.sum",
    "alu": "smsp__inst_executed_pipe_alu.sum",
    "fp64": "smsp__inst_executed_pipe_fp64.sum",
    "xu": "smsp__inst_executed_pipe_xu.sum",
    "lsu": "smsp__inst_executed_pipe_lsu.sum",
}
DFMA = "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"
DADD = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"
DMUL = "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum"
SHUFFLE_THREAD_INST = (
    "smsp__sass_thread_inst_executed_op_inter_thread_communication_pred_on.sum"
)
MIX_METRICS: tuple[str, ...] = (
    *PIPE_PCT.values(),
    *PIPE_INST.values(),
    DFMA,
    DADD,
    DMUL,
    SHUFFLE_THREAD_INST,
)
# ----------------------------------------------------------------------------------------

# Launch and device facts the LaunchStats section and ncu's device attributes always
# hold: the waves of blocks per SM (tail effects), the grid, and the SM's sub-partitions
# and warp slots (the issue rate and occupancy in warps).
WAVES_PER_SM = "launch__waves_per_multiprocessor"
GRID_SIZE = "launch__grid_size"
SCHEDULERS_PER_SM = "device__attribute_num_schedulers_per_multiprocessor"
MAX_WARPS_PER_SM = "device__attribute_max_warps_per_multiprocessor"
# ----------------------------------------------------------------------------------------

EXTRA_METRICS: tuple[str, ...] = (
    TIME,
    DRAM_READ,
    DRAM_WRITE,
    FFMA,
    FADD,
    FMUL,
    SMEM_CONFLICTS_LD,
    SMEM_CONFLICTS_ST,
    SMEM_WAVEFRONTS_LD,
    SMEM_WAVEFRONTS_ST,
    SHARED_LD_INST,
    SHARED_ST_INST,
    GLOBAL_LD_SECTORS,
    GLOBAL_ST_SECTORS,
    GLOBAL_LD_REQUESTS,
    L2_SECTORS,
    ACHIEVED_OCCUPANCY,
    REGISTERS,
    L2_HIT_RATE,
    L1_HIT_RATE,
    SMEM_THROUGHPUT,
    PEAK_FFMA_PER_CYCLE,
    SM_CYCLES_PER_SECOND,
    PEAK_DRAM_BYTES_PER_CYCLE,
    DRAM_CYCLES_PER_SECOND,
    *OCCUPANCY_LIMITS,
    *(stall_metric(r) for r in STALL_REASONS),
    *PATTERN_METRICS,
    *REGIME_METRICS,
    *MIX_METRICS,
)

# Per-instruction warp-state samples (hotspots.csv): ncu samples each SM sub-partition's
# warps at a fixed cycle interval and records the PC and the warp's state (the stall
# reason, or ``selected`` when it issued) -- the numbers of ncu's Source page. The group
# holds one metric per reason on the GPU's architecture (``_not_issued`` twins are a
# separate group, not collected); its instances are per PC, with the PC as correlation
# id. Requested by name through --metrics, the samples cost ncu's warp-sampling pass
# and no SASS patching, unlike the SourceCounters section (inst_executed per PC).
PCSAMP_PREFIX = "smsp__pcsamp_warps_issue_stalled_"
PCSAMP_SAMPLES = "smsp__pcsamp_sample_count"
SOURCE_METRICS: tuple[str, ...] = (
    PCSAMP_SAMPLES,
    "group:smsp__pcsamp_warp_stall_reasons",
)

# Metrics the report reads that the sections above (or ncu itself, for device
# attributes) always collect, so they need no --metrics entry.
FROM_SECTIONS: tuple[str, ...] = (
    L2_BYTES,
    THEORETICAL_OCCUPANCY,
    LANES_PER_INST,
    WAVES_PER_SM,
    GRID_SIZE,
    SM_COUNT,
    SCHEDULERS_PER_SM,
    MAX_WARPS_PER_SM,
)

# nvprof-era names used in course material, mapped to the ncu metrics above.
ALIASES: dict[str, str] = {
    "gld_throughput": "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second",
    "gst_throughput": "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second",
    "shared_store_throughput": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum.per_second",
    "gld_transactions": GLOBAL_LD_SECTORS,
    "gst_transactions": GLOBAL_ST_SECTORS,
    "dram_utilization": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "sm_efficiency": "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed",
    "warp_execution_efficiency": "smsp__thread_inst_executed_per_inst_executed.ratio",
    "dram_read_bytes": DRAM_READ,
    "dram_write_bytes": DRAM_WRITE,
    "achieved_occupancy": ACHIEVED_OCCUPANCY,
    "shared_load_bank_conflict": SMEM_CONFLICTS_LD,
    "shared_store_bank_conflict": SMEM_CONFLICTS_ST,
    "shared_load_throughput": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum.per_second",
    "l2_hit_rate": L2_HIT_RATE,
    "gpu_time": TIME,
}


def resolve(names: list[str]) -> list[str]:
    """The ncu metric names for user-given names, nvprof-era aliases mapped (``ALIASES``)."""
    return [ALIASES.get(name, name) for name in names]


def launch_rollup(metric: str) -> str:
    """How one metric combines over the launches of a multi-kernel run.

    ``sum``: counts (bytes, sectors, instructions, durations); ``first``: launch and
    device attributes, taken from the first (main) kernel; ``per_instruction``: ratios
    per issued instruction, weighted by each launch's issued instructions; ``time``:
    percentages and rates, weighted by each launch's duration.
    """
    if metric.startswith(("launch__", "device__")) or metric == THEORETICAL_OCCUPANCY:
        return "first"
    if metric.endswith("_per_issue_active.ratio") or metric.endswith(
        "_per_inst_executed.ratio"
    ):
        return "per_instruction"
    if metric.endswith(".sum"):
        return "sum"
    return "time"
