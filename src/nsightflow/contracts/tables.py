"""The tables stages exchange, each declared once (see :class:`Table`).

Renaming a column is one edit here: writers build their frames from ``columns`` and
readers index by the same names. Folders are in :mod:`nsightflow.contracts.layout`;
the files of one family's analysis are read together by
:mod:`nsightflow.contracts.bundle`.
"""

import nsightflow.contracts.columns as col
from nsightflow.contracts.table import BOOL, FLOAT, INT, NA, STR, Table

# A row's key: one variant at one size; and one launch of it.
KEY = (col.FAMILY, col.VARIANT, col.SIZE)
LAUNCH = (*KEY, col.LAUNCH, col.KERNEL)
_OUTCOME = (col.STATUS, col.MESSAGE)
# A timed size's median and quartiles in us, as the time stage records them.
TIME_QUARTILES = (col.TIME_MEDIAN_US, col.TIME_Q1_US, col.TIME_Q3_US, col.TIME_IQR_US)

# --- the parse stage: results/metrics/<family>/<variant>[.rules|.source].csv ---

# Long: raw ncu names are values of ``metric``, not columns.
METRICS = Table(
    "<variant>.csv",
    (*LAUNCH, col.METRIC, col.UNIT, col.VALUE, col.ROLLUP),
    {col.FAMILY: STR, col.VARIANT: STR, col.METRIC: STR, col.UNIT: STR},
)
# ncu's rule results (its guided analysis) per launch; also the family's rules.csv.
RULES = Table(
    "<variant>.rules.csv",
    (
        *LAUNCH,
        col.RULE,
        col.SECTION,
        col.TYPE,
        col.MESSAGE,
        col.SPEEDUP_TYPE,
        col.SPEEDUP_PCT,
    ),
    {col.RULE: STR, col.SPEEDUP_PCT: FLOAT},
)
# Warp-state samples per SASS instruction, with the CUDA line it came from.
SOURCE = Table(
    "<variant>.source.csv",
    (
        *LAUNCH,
        col.PC,
        col.SASS,
        col.FILE,
        col.LINE,
        col.SOURCE,
        col.ACCESS,
        col.REASON,
        col.SAMPLES,
        col.INLINED,
    ),
    {col.SASS: STR, col.REASON: STR, col.SAMPLES: INT},
)

# --- the time stage: the fields of a row of results/time/<family>/<variant>.json that
# the analysis table carries, in its order ---

TIMINGS = Table(
    "<variant>.json rows",
    (
        col.CACHE,
        col.THROTTLED,
        *TIME_QUARTILES,
        col.TIME_MIN_US,
        col.REPS,
        col.CV,
        col.SETTLED,
        col.ENERGY_J_PER_LAUNCH,  # NVML's energy counter (nsightflow.gpu.energy); NaN: none
        col.ENERGY_POWER_W,
        col.ENERGY_BUSY,  # the timed median over the energy stream's time per launch
        # (not a busy fraction: > 1 where back-to-back launches overlap)
    ),
    {col.TIME_MEDIAN_US: FLOAT, col.REPS: INT},
)
# The GPU's state around a timed size, from the time record's gpu_before/gpu_after
# and verified_after (nsightflow.analysis.analyze.gpu_state_columns): columns of the
# analysis table after the timing's.
GPU_STATE = (
    col.SM_CLOCK_MHZ_BEFORE,
    col.SM_CLOCK_MHZ_AFTER,
    col.MEM_CLOCK_MHZ_BEFORE,
    col.MEM_CLOCK_MHZ_AFTER,
    col.THROTTLE_REASONS,  # NVML's clock-event reasons before | after (a bit mask)
    col.OTHER_PROCESSES,  # the most other processes NVML listed, before or after
    col.RECHECK_STATUS,  # the outputs after the timed repetitions (integrity.py)
    col.RECHECK_MESSAGE,
)

# --- the analyze stage: results/analysis/<family>/ ---

# One row per variant and size: outcome, timing, then one column per ncu quantity and
# derived rate (nsightflow.analysis.derived.NCU_COLUMNS and what is derived from them).
ANALYSIS = Table(
    "analysis.csv",
    (*KEY, *_OUTCOME, col.SHARED_GPU, *TIMINGS.columns),
    {col.FAMILY: STR, col.VARIANT: STR, col.STATUS: STR, col.TIME_MEDIAN_US: FLOAT},
    more=True,
    empty_ok=False,  # analyze writes a row per variant and size, at least a header
)
STALLS = Table(
    "stalls.csv",
    (col.VARIANT, col.SIZE, col.REASON, col.CYCLES, col.SHARE),
    {col.VARIANT: STR, col.REASON: STR, col.CYCLES: FLOAT, col.SHARE: FLOAT},
)
# The hottest CUDA lines per launch; one ``samples_<reason>`` column per sampled warp
# state follows, in nsightflow.tools.ncu_metrics.STALL_REASONS order. Its source text
# may be blank, and a blank line is text, not missing.
HOTSPOTS = Table(
    "hotspots.csv",
    (
        *LAUNCH,
        col.FILE,
        col.LINE,
        col.SOURCE,
        col.SAMPLES,
        col.SHARE,
        col.TOP_REASON,
        col.TOP_REASON_SHARE,
        col.ACCESS,
        col.ATTRIBUTED_DRAIN,
        col.DRAIN_FROM_LINE,
        col.INLINED,
    ),
    {col.SOURCE: STR, col.SAMPLES: INT, col.SHARE: FLOAT},
    na=NA.NONE,
    more=True,
)

# --- the diagnosis: results/analysis/<family>/findings.csv (nsightflow.diagnosis) ---

# ``message`` and ``params`` are text: "None" or "NA" in them is no missing value.
FINDINGS = Table(
    "findings.csv",
    (
        *KEY,
        col.SECTION,
        col.STEP_OF,
        col.REGIME,
        col.RULE,
        col.ROLE,
        col.RANK,
        col.METRIC,
        col.VALUE,
        col.THRESHOLD,
        col.BEFORE,
        col.AFTER,
        col.SHARE_OF_CHANGE,
        col.EVIDENCE,
        col.LINE,
        col.LINE_SHARE,
        col.MESSAGE,
        col.PARAMS,
        col.EXPECTED_GAIN,
        col.ACHIEVED_GAIN,
    ),
    {
        col.SECTION: STR,
        col.RULE: STR,
        col.ROLE: STR,
        col.PARAMS: STR,
        col.VALUE: FLOAT,
    },
    na=NA.BLANK,
    float_format="%.10g",
)

# --- the report: results/report/<family>/summary.csv (10 significant digits: the
# same file on any platform) ---

ENERGY = (col.ENERGY_J_PER_LAUNCH, col.GFLOP_PER_J, col.GB_PER_J, col.ENERGY_POWER_W)
_HEADLINE = (
    col.STATUS,
    col.TIME_MEDIAN_US,
    col.TIME_IQR_US,
    col.SPEEDUP_VS_BASELINE,
    col.SPEEDUP_VS_PREVIOUS,
    col.GBPS,
    col.GFLOPS,
)
SUMMARY = Table(
    "summary.csv",
    (
        *KEY,
        *_HEADLINE,
        col.PCT_OF_COPY_BW,
        col.PCT_OF_FP32_PEAK,
        col.INPUT,
        col.REGIME,
        col.REGIME_CEILING,
        col.REGIME_CEILING_PCT,
        *ENERGY,  # empty where the energy was not recorded
    ),
    {col.STATUS: STR, col.TIME_MEDIAN_US: FLOAT},
    float_format="%.10g",
)

# The Python API's optimization ladder at one size (Results.ladder): the summary's
# columns with the manifest's words for each step; ``size`` is added last.
LADDER = Table(
    "Results.ladder",
    (
        col.VARIANT,
        col.IDEA,
        col.IMPROVES_ON,
        *_HEADLINE,
        col.REGIME,
        col.REGIME_CEILING_PCT,
    ),
    {col.VARIANT: STR, col.IDEA: STR},
)

# --- sweeps: results/analysis/<family>/sweep.csv, sweep_summary.csv ---

# One row per variant and configuration; ``param_<name>`` per axis and
# ``time_us_<size>``, ``gflops_<size>``, ``gbps_<size>`` per size follow.
SWEEP = Table(
    "sweep.csv",
    (
        col.FAMILY,
        col.VARIANT,
        col.CONFIG_ID,
        *_OUTCOME,
        col.IS_BEST,
        col.IS_DEFAULT,
        col.FROM_CACHE,
        col.VERIFY_N,
        col.REL_L2_ERROR,
        col.GEOMEAN_US,
        col.REGISTERS,
        col.SPILL_BYTES,
        col.SHARED_BYTES,
        col.WALL_S,
    ),
    {col.STATUS: STR, col.IS_BEST: BOOL, col.GEOMEAN_US: FLOAT},
    float_format="%.10g",
    more=True,
)
SWEEP_SUMMARY = Table(
    "sweep_summary.csv",
    (
        col.FAMILY,
        col.VARIANT,
        *_OUTCOME,
        col.SPACE,
        col.STRATEGY,
        col.SIZES,
        col.AXES,
        col.CONFIGS,
        col.OK,
        col.INVALID,
        col.NOT_RUN,
        col.BEST_ID,
        col.DEFAULT_ID,
        col.BEST_US,
        col.MEDIAN_US,
        col.WORST_US,
        col.DEFAULT_US,
        col.DEFAULT_OVER_BEST,
        col.WORST_OVER_BEST,
        col.SWEEP_WALL_S,
        col.COMPILE_WALL_S,
        col.PER_CONFIG_S,
        col.RESUMED,
        col.RESTARTS,
        col.GPU,
        col.DATE,
        col.REPLAYED_FROM,
    ),
    {col.STATUS: STR, col.BEST_US: FLOAT},
    float_format="%.10g",
)

# --- timelines: results/timeline/<family>/<variant>.csv and the family's analysis ---

# The tidy timeline both backends produce: times in ns from the first activity of the
# traced sequence of that variant and size, bytes only for copies and memsets;
# ``kind`` one of TIMELINE_KINDS.
TIMELINE = Table(
    "timeline.csv",
    (*KEY, col.KIND, col.NAME, col.START_NS, col.END_NS, col.BYTES, col.STREAM),
    {col.KIND: STR, col.START_NS: INT, col.END_NS: INT},
)
TIMELINE_KINDS = (
    "memcpy_htod",
    "memset",
    "kernel",
    "memcpy_dtoh",
    "memcpy_dtod",
    "memcpy_other",
)
# One row per variant and traced size. Times in ns, bytes in bytes, bandwidth in GB/s
# (bytes / ns). transfer_ns = copy in + copy out; transfer_to_kernel = transfer_ns /
# kernel_ns; launch_gap_ns = kernel start - end of the last activity before it;
# overlap_ns = summed durations - time covered by at least one activity.
TIMELINE_SUMMARY = Table(
    "timeline_summary.csv",
    (
        *KEY,
        *_OUTCOME,
        col.BACKEND,
        col.BACKEND_NOTE,
        col.GPU,
        col.DATE,
        col.HTOD_NS,
        col.HTOD_BYTES,
        col.HTOD_GBPS,
        col.MEMSET_NS,
        col.KERNEL_NS,
        col.DTOH_NS,
        col.DTOH_BYTES,
        col.DTOH_GBPS,
        col.TRANSFER_NS,
        col.TRANSFER_TO_KERNEL,
        col.LAUNCH_GAP_NS,
        col.SPAN_NS,
        col.OVERLAP_NS,
    ),
    {col.STATUS: STR, col.KERNEL_NS: FLOAT},
    float_format="%.10g",
)

# --- the measured ceilings: results/report/ceilings.csv (nsightflow ceilings-table) ---

CEILINGS = Table(
    "ceilings.csv",
    (col.GPU, col.COPY_GBPS, col.FP32_GFLOPS, col.VENDOR_SGEMM_GFLOPS),
    {col.GPU: STR, col.COPY_GBPS: FLOAT, col.FP32_GFLOPS: FLOAT},
)

STAGE_TABLES = (
    METRICS,
    RULES,
    SOURCE,
    TIMINGS,
    ANALYSIS,
    STALLS,
    HOTSPOTS,
    FINDINGS,
    SUMMARY,
    LADDER,
    SWEEP,
    SWEEP_SUMMARY,
    TIMELINE,
    TIMELINE_SUMMARY,
    CEILINGS,
)
