"""The tables of ``nsightflow compare``, each declared once (see :class:`Table`).

What the comparison reads of a run folder (:data:`RUN_TIMINGS`, :data:`RUN_INVALID`)
and the tables it writes into ``-o DIR`` (``compare.csv``, ``compare_counters.csv``)
or shows (rules, sources, invalid pairs). The stage tables are in
:mod:`nsightflow.contracts.tables`.
"""

import nsightflow.contracts.columns as col
from nsightflow.contracts.table import BOOL, FLOAT, STR, Table
from nsightflow.contracts.tables import KEY, LAUNCH, TIME_QUARTILES

# A run folder's timings as ``nsightflow compare`` reads them (Run.timings): one row
# per family x variant x size timed, ``samples`` the per-launch times in us.
RUN_TIMINGS = Table(
    "Run.timings",
    (
        *KEY,
        col.STATUS,
        col.CACHE,
        *TIME_QUARTILES,
        col.REPS,
        col.SETTLED,
        col.THROTTLED,
        col.SHARED_GPU,
        col.SM_CLOCK_MHZ,
        col.MEM_CLOCK_MHZ,
        col.GENERATED,
        col.SAMPLES,
    ),
    {col.STATUS: STR, col.TIME_MEDIAN_US: FLOAT},
)

# One row per family x variant x size timed in both runs (compare.csv: these, then
# ``code`` and the counters that moved).
COMPARE_PAIRS = Table(
    "compare.csv",
    (
        *KEY,
        col.MEDIAN_A_US,
        col.MEDIAN_B_US,
        col.RATIO,
        col.CI_LOW,
        col.CI_HIGH,
        col.CHANGE_PCT,
        col.NOISE_PCT,
        col.THRESHOLD_PCT,
        col.VERDICT,
        col.BASIS,
        col.REPS_A,
        col.REPS_B,
        col.CACHE_A,
        col.CACHE_B,
        col.CAVEATS,
    ),
    {col.VERDICT: STR, col.RATIO: FLOAT},
    float_format="%.6g",
    more=True,
)
# A run's refused timings (Run.invalid): the size (NA: unknown), why, and whether
# the whole record was refused (every size of the variant).
RUN_INVALID = Table(
    "Run.invalid",
    (*KEY, col.PROBLEM, col.WHOLE),
    {col.PROBLEM: STR, col.WHOLE: BOOL},
)
# A pair that cannot be compared: a timing refused in run A, B or both (``run``).
COMPARE_INVALID = Table(
    "compare invalid",
    (*KEY, col.RUN, col.PROBLEM, col.WHOLE),
    {col.RUN: STR, col.PROBLEM: STR, col.WHOLE: BOOL},
)

# A counter of one variant and size in run A and in run B, and whether it moved.
COMPARE_COUNTERS = Table(
    "compare_counters.csv",
    (*KEY, col.COUNTER, col.KIND, col.A, col.B, col.CHANGE, col.SCORE, col.MOVED),
    {col.COUNTER: STR, col.MOVED: BOOL},
    float_format="%.6g",
)
# An ncu rule that appeared, disappeared or changed its estimate between the runs.
COMPARE_RULES = Table(
    "compare rules",
    (*LAUNCH, col.RULE, col.TYPE, col.CHANGE, col.SPEEDUP_PCT),
    {col.RULE: STR, col.CHANGE: STR},
)
# A variant's source in each run: its revision, the files that differ, their diff.
COMPARE_SOURCE = Table(
    "compare source",
    (
        col.FAMILY,
        col.VARIANT,
        col.CODE,
        col.REVISION_A,
        col.REVISION_B,
        col.FILES,
        col.DIFF,
        col.CONFIG,
        col.CONFIG_A,
        col.CONFIG_B,
    ),
    {col.CODE: STR},
)

COMPARE_TABLES = (
    RUN_TIMINGS,
    RUN_INVALID,
    COMPARE_PAIRS,
    COMPARE_INVALID,
    COMPARE_COUNTERS,
    COMPARE_RULES,
    COMPARE_SOURCE,
)
