"""The tables stages exchange, each declared once (see :class:`Table`).

Renaming a column is one edit here: writers build their frames from ``columns`` and
readers index by the same names. Folders are in :mod:`nsightflow.contracts.layout`;
the files of one family's analysis are read together by
:mod:`nsightflow.contracts.bundle`.
"""

from nsightflow.contracts.table import NA, Table

_KEY = ("family", "variant", "size")
_LAUNCH = (*_KEY, "launch", "kernel")
_OUTCOME = ("status", "message")
# A timed size's median and quartiles in us, as the time stage records them.
TIME_QUARTILES = ("time_median_us", "time_q1_us", "time_q3_us", "time_iqr_us")
_STR = "str"
_FLOAT = "float"
_INT = "int"
_BOOL = "bool"

# --- the parse stage: results/metrics/<family>/<variant>[.rules|.source].csv ---

# Long: raw ncu names are values of ``metric``, not columns.
METRICS = Table(
    "<variant>.csv",
    (*_LAUNCH, "metric", "unit", "value", "rollup"),
    {"family": _STR, "variant": _STR, "metric": _STR, "unit": _STR},
)
# ncu's rule results (its guided analysis) per launch; also the family's rules.csv.
RULES = Table(
    "<variant>.rules.csv",
    (
        *_LAUNCH,
        "rule",
        "section",
        "type",
        "message",
        "speedup_type",
        "speedup_pct",
    ),
    {"rule": _STR, "speedup_pct": _FLOAT},
)
# Warp-state samples per SASS instruction, with the CUDA line it came from.
SOURCE = Table(
    "<variant>.source.csv",
    (
        *_LAUNCH,
        "pc",
        "sass",
        "file",
        "line",
        "source",
        "access",
        "reason",
        "samples",
        "inlined",
    ),
    {"sass": _STR, "reason": _STR, "samples": _INT},
)

# --- the time stage: the fields of a row of results/time/<family>/<variant>.json that
# the analysis table carries, in its order ---

TIMINGS = Table(
    "<variant>.json rows",
    (
        "cache",
        "throttled",
        *TIME_QUARTILES,
        "time_min_us",
        "reps",
        "cv",
        "settled",
        "energy_j_per_launch",  # NVML's energy counter (nsightflow.gpu.energy); NaN: none
        "energy_power_w",
        "energy_busy",  # the timed median over the energy stream's time per launch
    ),
    {"time_median_us": _FLOAT, "reps": _INT},
)
# A run folder's timings as ``nsightflow compare`` reads them (Run.timings): one row
# per family x variant x size timed, ``samples`` the per-launch times in us.
RUN_TIMINGS = Table(
    "Run.timings",
    (
        *_KEY,
        "status",
        "cache",
        *TIME_QUARTILES,
        "reps",
        "settled",
        "throttled",
        "shared_gpu",
        "sm_clock_mhz",
        "mem_clock_mhz",
        "generated",
        "samples",
    ),
    {"status": _STR, "time_median_us": _FLOAT},
)

# The GPU's state around a timed size, from the time record's gpu_before/gpu_after
# and verified_after (nsightflow.analysis.analyze.gpu_state_columns): columns of the
# analysis table after the timing's.
GPU_STATE = (
    "sm_clock_mhz_before",
    "sm_clock_mhz_after",
    "mem_clock_mhz_before",
    "mem_clock_mhz_after",
    "throttle_reasons",  # NVML's clock-event reasons before | after (a bit mask)
    "other_processes",  # the most other processes NVML listed, before or after
    "recheck_status",  # the outputs after the timed repetitions (integrity.py)
    "recheck_message",
)

# --- the analyze stage: results/analysis/<family>/ ---

# One row per variant and size: outcome, timing, then one column per ncu quantity and
# derived rate (nsightflow.analysis.derived.NCU_COLUMNS and what is derived from them).
ANALYSIS = Table(
    "analysis.csv",
    (*_KEY, *_OUTCOME, "shared_gpu", *TIMINGS.columns),
    {"family": _STR, "variant": _STR, "status": _STR, "time_median_us": _FLOAT},
    more=True,
    empty_ok=False,  # analyze writes a row per variant and size, at least a header
)
STALLS = Table(
    "stalls.csv",
    ("variant", "size", "reason", "cycles", "share"),
    {"variant": _STR, "reason": _STR, "cycles": _FLOAT, "share": _FLOAT},
)
# The hottest CUDA lines per launch; one ``samples_<reason>`` column per sampled warp
# state follows, in nsightflow.tools.ncu_metrics.STALL_REASONS order. Its source text
# may be blank, and a blank line is text, not missing.
HOTSPOTS = Table(
    "hotspots.csv",
    (
        *_LAUNCH,
        "file",
        "line",
        "source",
        "samples",
        "share",
        "top_reason",
        "top_reason_share",
        "access",
        "attributed_drain",
        "drain_from_line",
        "inlined",
    ),
    {"source": _STR, "samples": _INT, "share": _FLOAT},
    na=NA.NONE,
    more=True,
)

# --- the diagnosis: results/analysis/<family>/findings.csv (nsightflow.diagnosis) ---

# ``message`` and ``params`` are text: "None" or "NA" in them is no missing value.
FINDINGS = Table(
    "findings.csv",
    (
        *_KEY,
        "section",
        "step_of",
        "regime",
        "rule",
        "role",
        "rank",
        "metric",
        "value",
        "threshold",
        "before",
        "after",
        "share_of_change",
        "evidence",
        "line",
        "line_share",
        "message",
        "params",
        "expected_gain",
        "achieved_gain",
    ),
    {"section": _STR, "rule": _STR, "role": _STR, "params": _STR, "value": _FLOAT},
    na=NA.BLANK,
    float_format="%.10g",
)

# --- the report: results/report/<family>/summary.csv (10 significant digits: the
# same file on any platform) ---

ENERGY = ("energy_j_per_launch", "gflop_per_j", "gb_per_j", "energy_power_w")
_HEADLINE = (
    "status",
    "time_median_us",
    "time_iqr_us",
    "speedup_vs_baseline",
    "speedup_vs_previous",
    "gbps",
    "gflops",
)
SUMMARY = Table(
    "summary.csv",
    (
        *_KEY,
        *_HEADLINE,
        "pct_of_copy_bw",
        "pct_of_fp32_peak",
        "input",
        "regime",
        "regime_ceiling",
        "regime_ceiling_pct",
        *ENERGY,  # empty where the energy was not recorded
    ),
    {"status": _STR, "time_median_us": _FLOAT},
    float_format="%.10g",
)

# The Python API's optimization ladder at one size (Results.ladder): the summary's
# columns with the manifest's words for each step; ``size`` is added last.
LADDER = Table(
    "Results.ladder",
    ("variant", "idea", "improves_on", *_HEADLINE, "regime", "regime_ceiling_pct"),
    {"variant": _STR, "idea": _STR},
)

# --- sweeps: results/analysis/<family>/sweep.csv, sweep_summary.csv ---

# One row per variant and configuration; ``param_<name>`` per axis and
# ``time_us_<size>``, ``gflops_<size>``, ``gbps_<size>`` per size follow.
SWEEP = Table(
    "sweep.csv",
    (
        "family",
        "variant",
        "config_id",
        *_OUTCOME,
        "is_best",
        "is_default",
        "from_cache",
        "verify_n",
        "rel_l2_error",
        "geomean_us",
        "registers",
        "spill_bytes",
        "shared_bytes",
        "wall_s",
    ),
    {"status": _STR, "is_best": _BOOL, "geomean_us": _FLOAT},
    float_format="%.10g",
    more=True,
)
SWEEP_SUMMARY = Table(
    "sweep_summary.csv",
    (
        "family",
        "variant",
        *_OUTCOME,
        "space",
        "strategy",
        "sizes",
        "axes",
        "configs",
        "ok",
        "invalid",
        "not_run",
        "best_id",
        "default_id",
        "best_us",
        "median_us",
        "worst_us",
        "default_us",
        "default_over_best",
        "worst_over_best",
        "sweep_wall_s",
        "compile_wall_s",
        "per_config_s",
        "resumed",
        "restarts",
        "gpu",
        "date",
        "replayed_from",
    ),
    {"status": _STR, "best_us": _FLOAT},
    float_format="%.10g",
)

# --- timelines: results/timeline/<family>/<variant>.csv and the family's analysis ---

# The tidy timeline both backends produce: times in ns from the first activity of the
# traced sequence of that variant and size, bytes only for copies and memsets;
# ``kind`` one of TIMELINE_KINDS.
TIMELINE = Table(
    "timeline.csv",
    (*_KEY, "kind", "name", "start_ns", "end_ns", "bytes", "stream"),
    {"kind": _STR, "start_ns": _INT, "end_ns": _INT},
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
        *_KEY,
        *_OUTCOME,
        "backend",
        "backend_note",
        "gpu",
        "date",
        "htod_ns",
        "htod_bytes",
        "htod_gbps",
        "memset_ns",
        "kernel_ns",
        "dtoh_ns",
        "dtoh_bytes",
        "dtoh_gbps",
        "transfer_ns",
        "transfer_to_kernel",
        "launch_gap_ns",
        "span_ns",
        "overlap_ns",
    ),
    {"status": _STR, "kernel_ns": _FLOAT},
    float_format="%.10g",
)

# --- the measured ceilings: results/report/ceilings.csv (nsightflow ceilings-table) ---

CEILINGS = Table(
    "ceilings.csv",
    ("gpu", "copy_gbps", "fp32_gflops", "vendor_sgemm_gflops"),
    {"gpu": _STR, "copy_gbps": _FLOAT, "fp32_gflops": _FLOAT},
)

# --- nsightflow compare: the run comparison's tables (results/compare/) ---

# One row per family x variant x size timed in both runs (compare.csv: these, then
# ``code`` and the counters that moved).
COMPARE_PAIRS = Table(
    "compare.csv",
    (
        *_KEY,
        "median_a_us",
        "median_b_us",
        "ratio",
        "ci_low",
        "ci_high",
        "change_pct",
        "noise_pct",
        "threshold_pct",
        "verdict",
        "basis",
        "reps_a",
        "reps_b",
        "cache_a",
        "cache_b",
        "caveats",
    ),
    {"verdict": _STR, "ratio": _FLOAT},
    float_format="%.6g",
    more=True,
)
# A run's refused timings (Run.invalid): the size (NA: unknown), why, and whether
# the whole record was refused (every size of the variant).
RUN_INVALID = Table(
    "Run.invalid",
    (*_KEY, "problem", "whole"),
    {"problem": _STR, "whole": _BOOL},
)
# A pair that cannot be compared: a timing refused in run A, B or both (``run``).
COMPARE_INVALID = Table(
    "compare invalid",
    (*_KEY, "run", "problem", "whole"),
    {"run": _STR, "problem": _STR, "whole": _BOOL},
)

# A counter of one variant and size in run A and in run B, and whether it moved.
COMPARE_COUNTERS = Table(
    "compare_counters.csv",
    (*_KEY, "counter", "kind", "a", "b", "change", "score", "moved"),
    {"counter": _STR, "moved": _BOOL},
    float_format="%.6g",
)
# An ncu rule that appeared, disappeared or changed its estimate between the runs.
COMPARE_RULES = Table(
    "compare rules",
    (*_LAUNCH, "rule", "type", "change", "speedup_pct"),
    {"rule": _STR, "change": _STR},
)
# A variant's source in each run: its revision, the files that differ, their diff.
COMPARE_SOURCE = Table(
    "compare source",
    (
        "family",
        "variant",
        "code",
        "revision_a",
        "revision_b",
        "files",
        "diff",
        "config",
        "config_a",
        "config_b",
    ),
    {"code": _STR},
)

TABLES = (
    METRICS,
    RULES,
    SOURCE,
    TIMINGS,
    RUN_TIMINGS,
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
    COMPARE_PAIRS,
    RUN_INVALID,
    COMPARE_INVALID,
    COMPARE_COUNTERS,
    COMPARE_RULES,
    COMPARE_SOURCE,
)
