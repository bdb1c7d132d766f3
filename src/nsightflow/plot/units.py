"""Numbers with the unit that fits them (``237.65 us``, ``4.04 TB/s``).

Kept apart from :mod:`nsightflow.plot.style` so that the report and index stages,
which write these numbers but draw nothing, do not import matplotlib (~0.4 s of CPU
per process).
"""

import math


def _num(value: float) -> str:
    """Three significant figures, no trailing zeros, thousands separated."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    digits = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:,.0f}"


def time_text(us: float) -> str:
    """A duration given in microseconds: us below 10 ms, ms from there, s from 10 s."""
    if abs(us) < 1e4:
        return f"{_num(us)} us"
    if abs(us) < 1e7:
        return f"{_num(us / 1e3)} ms"
    return f"{_num(us / 1e6)} s"


def bytes_text(count: float) -> str:
    """A byte count in kB, MB, GB or TB (decimal, as ncu and the report count)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(count) >= scale:
            return f"{_num(count / scale)} {unit}"
    return f"{_num(count)} B"


def bandwidth_text(gbps: float) -> str:
    """A bandwidth given in GB/s: GB/s below 1,000, TB/s above."""
    return f"{_num(gbps / 1e3)} TB/s" if abs(gbps) >= 1e3 else f"{_num(gbps)} GB/s"


def flops_text(gflops: float) -> str:
    """A FLOP rate given in GFLOP/s: GFLOP/s below 1,000, TFLOP/s above."""
    if abs(gflops) >= 1e3:
        return f"{_num(gflops / 1e3)} TFLOP/s"
    return f"{_num(gflops)} GFLOP/s"


def count_text(value: float) -> str:
    """A count with k / M / G suffixes."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{_num(value / scale)}{unit}"
    return _num(value)
