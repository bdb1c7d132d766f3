"""Compare two runs' timings: ratio of medians, its interval, and a verdict.

Each family x variant x size timed in both runs A and B gets ``ratio`` = median time
in B / median time in A (above 1: B is slower), a confidence interval for it, and a
verdict against a threshold ``t``:

- ``SAME``: the whole interval lies within [1/(1+t), 1+t];
- ``SLOWER``: the whole interval lies above 1+t; ``FASTER``: below 1/(1+t);
- ``UNCERTAIN``: the interval crosses 1+t or 1/(1+t): the data cannot tell.

The interval comes from the samples where both runs kept them (a percentile bootstrap
of the two medians, resampled independently), else from the stored quartiles (the
median's standard error of a normal sample, 0.93 IQR / sqrt(n), on the log scale); the
``basis`` column says which. The threshold defaults to the noise the data shows: the
larger relative IQR of the pair's two sample sets, and never less than
:data:`DEFAULT_MIN_CHANGE`, the run-to-run drift between recorded runs (``--min``
changes that floor). Across GPUs, :func:`ceiling_shares` sets each pair's share of its
own GPU's measured ceiling beside the ratio. Pure functions over frames; see
:mod:`nsightflow.analysis.runs` for reading runs.
"""

import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.analysis.compare_invalid import INVALID
from nsightflow.analysis.runs import Run
from nsightflow.contracts import COMPARE_PAIRS, Status
from nsightflow.contracts import columns as col
from nsightflow.family.inputs import ideal_counts
from nsightflow.family.model import Family

SAME, FASTER, SLOWER, UNCERTAIN = "SAME", "FASTER", "SLOWER", "UNCERTAIN"
VERDICTS = (SAME, FASTER, SLOWER, UNCERTAIN)
# The floor of the threshold. Between the two recorded H200 runs of the same Jacobi-2D
# and SGEMM kernels a day apart (examples/h200 at a382fd9 vs now, both timed hot, all
# 34 pairs above 20 us) the median moved by -2.6% .. +0.3%; scan's two runs of one day
# by at most 2.0%. 3% sits above both (docs/decisions/compare-verdict.md).
DEFAULT_MIN_CHANGE = 0.03
# Standard error of a normal sample's median: sqrt(pi/2) sigma / sqrt(n), with
# sigma = IQR / 1.349 (quartiles of the normal at +-0.6745 sigma).
MEDIAN_SE_PER_IQR = math.sqrt(math.pi / 2) / 1.349
# Sizes this fast are launch-jitter dominated (0.2 us of jitter is 1% at 20 us): the
# calibration target (95% SAME in an A/A pair) counts pairs above it only.
FAST_US = 20.0
# Columns of the pairs frame, one row per family x variant x size timed in both runs.
PAIR_COLUMNS = list(COMPARE_PAIRS.columns)


@dataclass(frozen=True)
class CompareSettings:
    """How pairs are judged.

    Attributes:
        min_change: Floor of the threshold, relative (0.03 = 3%).
        confidence: Level of the intervals.
        resamples: Bootstrap resamples per pair.
        seed: Seed of the bootstrap (each pair's stream also depends on its name, so
            a pair's interval does not depend on which other pairs are compared).
    """

    min_change: float = DEFAULT_MIN_CHANGE
    confidence: float = 0.95
    resamples: int = 2000
    seed: int = 0


@dataclass(frozen=True)
class Side:
    """One run's timing of one variant at one size."""

    median: float
    q1: float
    q3: float
    reps: int
    samples: np.ndarray | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Side":
        """From a row of :attr:`nsightflow.analysis.runs.Run.timings`.

        With samples, every statistic is taken from them (an edited copy of a run
        may carry changed samples under unchanged summaries); else the stored ones.
        """
        samples = row.get(col.SAMPLES)
        if isinstance(samples, np.ndarray) and samples.size >= 2:
            q1, median, q3 = np.percentile(samples, [25, 50, 75])
            return cls(float(median), float(q1), float(q3), int(samples.size), samples)
        return cls(
            float(row[col.TIME_MEDIAN_US]),
            float(row[col.TIME_Q1_US]),
            float(row[col.TIME_Q3_US]),
            int(row.get(col.REPS) or 1),
        )

    @property
    def rel_iqr(self) -> float:
        """Interquartile range over the median: the spread of the middle half."""
        return (self.q3 - self.q1) / self.median if self.median > 0 else math.nan


def bootstrap_medians(
    samples: np.ndarray, resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Medians of ``resamples`` bootstrap resamples of ``samples``.

    Drawn as multinomial counts over the distinct values (event times come in 32 ns
    steps, so there are few), which gives the same distribution as resampling the
    values one by one at a fraction of the cost.
    """
    values, counts = np.unique(samples, return_counts=True)
    n = int(samples.size)
    draws = rng.multinomial(n, counts / n, size=resamples).cumsum(axis=1)
    low = (draws >= (n + 1) // 2).argmax(axis=1)  # the 1-based middle order
    high = (draws >= n // 2 + 1).argmax(axis=1)  # statistics, as np.median takes them
    return np.asarray((values[low] + values[high]) / 2.0)


def ratio_interval(
    a: Side, b: Side, settings: CompareSettings, key: str
) -> tuple[float, float, float, str]:
    """Ratio of medians B / A, its interval, and the basis of the interval.

    Args:
        a: Run A's timing.
        b: Run B's timing.
        settings: Confidence, resamples and seed.
        key: The pair's name (seeds its bootstrap stream).

    Returns:
        ``(ratio, low, high, basis)``, basis ``samples`` or ``quartiles``.
    """
    ratio = b.median / a.median
    alpha = 1.0 - settings.confidence
    if a.samples is not None and b.samples is not None:
        rng = np.random.default_rng([settings.seed, zlib.crc32(key.encode())])
        ma = bootstrap_medians(a.samples, settings.resamples, rng)
        mb = bootstrap_medians(b.samples, settings.resamples, rng)
        low, high = np.quantile(mb / ma, [alpha / 2, 1 - alpha / 2])
        return ratio, float(low), float(high), col.SAMPLES
    z = NormalDist().inv_cdf(1 - alpha / 2)
    se = math.hypot(*(_log_se(side) for side in (a, b)))
    return ratio, ratio * math.exp(-z * se), ratio * math.exp(z * se), "quartiles"


def _log_se(side: Side) -> float:
    """Standard error of log(median) from the quartiles and the sample count."""
    if side.median <= 0:
        return math.inf
    return MEDIAN_SE_PER_IQR * (side.q3 - side.q1) / side.median / math.sqrt(side.reps)


def verdict(low: float, high: float, threshold: float) -> str:
    """SAME / FASTER / SLOWER / UNCERTAIN for an interval of B / A (module docstring)."""
    up, down = 1.0 + threshold, 1.0 / (1.0 + threshold)
    if low >= down and high <= up:
        return SAME
    if low > up:
        return SLOWER
    if high < down:
        return FASTER
    return UNCERTAIN


def pair_timings(
    a: pd.DataFrame, b: pd.DataFrame, settings: CompareSettings
) -> pd.DataFrame:
    """:data:`PAIR_COLUMNS` for every family x variant x size timed ok in both.

    Args:
        a: Run A's timings (:attr:`nsightflow.analysis.runs.Run.timings`).
        b: Run B's timings.
        settings: Threshold floor and interval settings.
    """
    keys = [col.FAMILY, col.VARIANT, col.SIZE]
    ok_a = a[(a[col.STATUS] == Status.OK) & a[col.TIME_MEDIAN_US].notna()]
    ok_b = b[(b[col.STATUS] == Status.OK) & b[col.TIME_MEDIAN_US].notna()]
    both = ok_a.merge(ok_b, on=keys, suffixes=("_a", "_b"))
    rows = [
        _pair({str(k): v for k, v in r.items()}, settings)
        for r in both.to_dict("records")
    ]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def _pair(r: dict[str, Any], settings: CompareSettings) -> dict[str, Any]:
    sides = [
        Side.from_row({k[:-2]: v for k, v in r.items() if k.endswith(s)})
        for s in ("_a", "_b")
    ]
    a, b = sides
    key = f"{r['family']}/{r['variant']}/{r['size']}"
    ratio, low, high, basis = ratio_interval(a, b, settings, key)
    noise = max(a.rel_iqr, b.rel_iqr)
    threshold = max(settings.min_change, 0.0 if math.isnan(noise) else noise)
    return {
        col.FAMILY: r[col.FAMILY],
        col.VARIANT: r[col.VARIANT],
        col.SIZE: int(r[col.SIZE]),
        col.MEDIAN_A_US: a.median,
        col.MEDIAN_B_US: b.median,
        col.RATIO: ratio,
        col.CI_LOW: low,
        col.CI_HIGH: high,
        col.CHANGE_PCT: 100.0 * (ratio - 1.0),
        col.NOISE_PCT: 100.0 * noise,
        col.THRESHOLD_PCT: 100.0 * threshold,
        col.VERDICT: verdict(low, high, threshold),
        col.BASIS: basis,
        col.REPS_A: a.reps,
        col.REPS_B: b.reps,
        col.CACHE_A: r.get(col.CACHE_A),
        col.CACHE_B: r.get(col.CACHE_B),
        col.CAVEATS: ";".join(caveats(r)),
    }


def caveats(r: dict[str, Any]) -> list[str]:
    """Why a pair's two timings may not measure the same thing (codes).

    ``cache``: one run flushed the L2 between launches, the other did not;
    ``shared_gpu_a`` / ``_b``: other processes used the GPU; ``throttled_a`` / ``_b``:
    NVML reported a power or thermal slowdown; ``clock``: the SM clocks at the start
    differ by more than 5%; ``edited_a`` / ``_b``: the median of the samples and the
    stored median differ by more than 0.5% (a file edited by hand; the samples count).
    """
    found = []
    if r.get(col.CACHE_A) != r.get(col.CACHE_B):
        found.append(col.CACHE)
    for side in ("a", "b"):  # contracts: literal (the runs' suffixes)
        for flag in (col.SHARED_GPU, col.THROTTLED):
            if r.get(f"{flag}_{side}") is True:
                found.append(f"{flag}_{side}")
        samples, stored = r.get(f"samples_{side}"), r.get(f"time_median_us_{side}")
        if isinstance(samples, np.ndarray) and samples.size and stored:
            if abs(float(np.median(samples)) / float(stored) - 1) > 0.005:
                found.append(f"edited_{side}")
    clocks = [r.get("sm_clock_mhz_a"), r.get("sm_clock_mhz_b")]
    known = sorted(float(c) for c in clocks if isinstance(c, int | float) and c > 0)
    if len(known) == 2 and known[1] > 1.05 * known[0]:
        found.append("clock")
    return found


def status_changes(
    a: dict[tuple[str, str], str], b: dict[tuple[str, str], str]
) -> pd.DataFrame:
    """Variants whose time-stage status differs, or that only one run timed.

    Returns:
        ``family, variant, status_a, status_b`` (``absent`` where a run lacks it).
    """
    rows = [
        {
            col.FAMILY: family,
            col.VARIANT: variant,
            "status_a": a.get((family, variant), "absent"),
            "status_b": b.get((family, variant), "absent"),
        }
        for family, variant in sorted(set(a) | set(b))
        if a.get((family, variant)) != b.get((family, variant))
    ]
    return pd.DataFrame(rows, columns=[col.FAMILY, col.VARIANT, "status_a", "status_b"])


def unpaired_sizes(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Sizes timed ok in one run only, of variants ok in both.

    Returns:
        ``family, variant, size, timed_in`` (``A`` or ``B``).
    """
    keys = [col.FAMILY, col.VARIANT, col.SIZE]
    ok = [t[t[col.STATUS] == Status.OK][keys] for t in (a, b)]
    merged = ok[0].merge(ok[1], on=keys, how="outer", indicator=True)
    one = merged[merged["_merge"] != "both"].copy()
    one["timed_in"] = one["_merge"].map({"left_only": "A", "right_only": "B"})
    variants = ok[0][[col.FAMILY, col.VARIANT]].merge(ok[1][[col.FAMILY, col.VARIANT]])
    one = one.merge(variants.drop_duplicates(), on=[col.FAMILY, col.VARIANT])
    return one[[*keys, "timed_in"]].reset_index(drop=True)


def verdict_counts(
    pairs: pd.DataFrame,
    above_us: float | None = None,
    invalid: pd.DataFrame | None = None,
) -> dict[str, int]:
    """Pairs per verdict (only those above ``above_us`` in both runs), and INVALID."""
    if above_us is not None:
        pairs = pairs[pairs[[col.MEDIAN_A_US, col.MEDIAN_B_US]].min(axis=1) > above_us]
    counts = pairs[col.VERDICT].value_counts()
    found = {v: int(counts.get(v, 0)) for v in VERDICTS}
    return found if invalid is None else {**found, INVALID: len(invalid)}


def exit_status(
    pairs: pd.DataFrame, statuses: pd.DataFrame, fail_on: str, invalid: int = 0
) -> int:
    """1 where ``--fail-on`` finds what it looks for, else 0.

    ``slower``: a SLOWER pair, or a variant ok in A that fails in B. ``changed``: a
    FASTER or SLOWER pair, or any status change. Either: an INVALID pair (``invalid``
    of them), which nothing can vouch for. ``none``: always 0.
    """
    if fail_on == "none":
        return 0
    broke = statuses[
        (statuses["status_a"] == Status.OK)
        & ~statuses["status_b"].isin([Status.OK, "absent"])
    ]
    if fail_on == "slower":
        return int(bool((pairs[col.VERDICT] == SLOWER).any() or len(broke) or invalid))
    moved = pairs[col.VERDICT].isin([SLOWER, FASTER]).any()
    return int(bool(moved or len(statuses) or invalid))


def ceiling_shares(
    pairs: pd.DataFrame, families: Mapping[str, Family], a: Run, b: Run
) -> pd.DataFrame:
    """Each pair's share of its own GPU's measured ceilings, where the GPUs differ.

    The share is that of the ceiling the variant comes closest to in A (copy
    bandwidth for the ideal bytes, FP32 rate for the ideal FLOPs), so one column per
    run shows whether the ladder has the same shape on both GPUs.

    Returns:
        ``family, variant, size, gpu_a, gpu_b, ratio, ceiling, pct_a, pct_b``; empty
        when every family was timed on one GPU model.
    """
    columns = [
        col.FAMILY,
        col.VARIANT,
        col.SIZE,
        "gpu_a",
        "gpu_b",
        col.RATIO,
        "ceiling",
    ]
    columns += ["pct_a", "pct_b"]
    rows = []
    for family, group in pairs.groupby(col.FAMILY, sort=True):
        gpus = [run.families.get(str(family), {}).get(col.GPU) for run in (a, b)]
        manifest = families.get(str(family))
        if gpus[0] == gpus[1] or manifest is None:
            continue
        generated = _generated(a, str(family)) if manifest.generated else None
        ideal_b = ideal_counts(group, manifest.ideal_bytes, generated)
        ideal_f = ideal_counts(group, manifest.ideal_flops, generated)
        for i, r in enumerate(group.to_dict("records")):
            pcts = {
                name: [
                    100 * work / (t * 1e-6) / 1e9 / float(run.ceilings[key])
                    if run.ceilings.get(key)
                    else math.nan
                    for t, run in ((r[col.MEDIAN_A_US], a), (r[col.MEDIAN_B_US], b))
                ]
                for name, key, work in (
                    ("copy", col.COPY_GBPS, ideal_b.iloc[i]),
                    ("fp32", col.FP32_GFLOPS, ideal_f.iloc[i]),
                )
            }
            name = max(pcts, key=lambda n: np.nan_to_num(pcts[n][0], nan=-1.0))
            rows.append(
                {
                    col.FAMILY: family,
                    col.VARIANT: r[col.VARIANT],
                    col.SIZE: r[col.SIZE],
                    "gpu_a": gpus[0],
                    "gpu_b": gpus[1],
                    col.RATIO: r[col.RATIO],
                    "ceiling": name,
                    "pct_a": pcts[name][0],
                    "pct_b": pcts[name][1],
                }
            )
    return pd.DataFrame(rows, columns=columns)


def _generated(run: Run, family: str) -> dict[tuple[str, int], dict[str, int]]:
    timed = run.timings[run.timings[col.FAMILY] == family]
    return {
        (str(r[col.VARIANT]), int(r[col.SIZE])): dict(r[col.GENERATED])
        for r in timed.to_dict("records")
        if isinstance(r.get(col.GENERATED), dict)
    }
