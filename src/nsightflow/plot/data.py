"""The rows and references the figures draw: pure look-ups on the analysis tables.

Nothing here draws; each function reads ``analysis.csv`` / ``context.json`` content
and returns plain values, so the choices a figure makes (which lens, which size,
which reference point) are tested without matplotlib.
"""

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col

Lens = Literal["compute", "memory"]


def timed(analysis: pd.DataFrame) -> pd.DataFrame:
    """Correct variants with a median time, in table order."""
    ok = analysis[col.STATUS] == Status.OK
    return analysis[ok & analysis[col.TIME_MEDIAN_US].notna()]


def profiled(analysis: pd.DataFrame) -> pd.DataFrame:
    """Correct variants at their profiled sizes."""
    ok = analysis[col.STATUS] == Status.OK
    return analysis[ok & analysis["profiled"].fillna(False).astype(bool)]


def key_size(analysis: pd.DataFrame) -> int | None:
    """The size the report judges at: the largest profiled size, else the largest."""
    prof = profiled(analysis)
    sizes = prof[col.SIZE] if not prof.empty else timed(analysis)[col.SIZE]
    return int(sizes.max()) if not sizes.empty else None


@dataclass(frozen=True)
class LensChoice:
    """What the throughput panel shows, and why."""

    lens: Lens
    basis: str  # "regime at n = 4096, 9 variants: 3 compute-bound, 0 memory-bound, ..."


def choose_lens(analysis: pd.DataFrame) -> LensChoice:
    """Compute (FLOP/s) or memory (GB/s) lens for the family's throughput panel.

    The diagnosis stage's ``regime`` column decides where it exists: the compute
    lens when most memory- or compute-bound variants are compute-bound at the key
    size (latency-bound ones name no ceiling). Without the column (older analyses), the lens follows the ceiling the
    variants come closer to: the median achieved % of the FP32 peak against the
    median achieved % of copy bandwidth at the key size.
    """
    size = key_size(analysis)
    at = timed(analysis)
    at = at[at[col.SIZE] == size] if size is not None else at
    regimes = at[col.REGIME].fillna("").astype(str) if col.REGIME in at else None
    # latency-bound variants name no ceiling: the memory- and compute-bound ones vote
    if regimes is not None and regimes.isin(["memory", "compute"]).any():
        decided = regimes[regimes.isin(["memory", "compute"])]
        compute = int((decided == "compute").sum())
        lens: Lens = "compute" if compute > len(decided) / 2 else "memory"
        memory = len(decided) - compute
        rest = len(regimes) - len(decided)  # latency-bound, unknown: no vote
        neither = f", {rest} latency-bound or unknown" if rest else ""
        return LensChoice(
            lens,
            f"regime at n = {size_text(size)}, {len(regimes)} variants: "
            f"{compute} compute-bound, {memory} memory-bound{neither}",
        )
    copy = _median(at, col.PCT_OF_COPY_BW)
    fp32 = _median(at, col.PCT_OF_FP32_PEAK)
    lens = "compute" if fp32 > copy else "memory"
    return LensChoice(
        lens,
        f"median at n = {size_text(size)}: {fp32:.0f}% of FP32 peak, "
        f"{copy:.0f}% of copy BW",
    )


def _median(rows: pd.DataFrame, column: str) -> float:
    if column not in rows:
        return 0.0
    value = pd.to_numeric(rows[column], errors="coerce").median()
    return 0.0 if pd.isna(value) else float(value)


@dataclass(frozen=True)
class VendorPoint:
    """The vendor library's rate where the family declares one (cuBLAS for SGEMM)."""

    name: str
    gflops: float
    size: int | None  # the size it was measured at, when the ceilings say


VENDORS = {"sgemm": "cuBLAS SGEMM"}  # family -> vendor library measured for it
_SIZE_IN_NOTE = re.compile(r"\bn\s*=\s*(\d+)")


def vendor_point(ctx: dict[str, Any]) -> VendorPoint | None:
    """CuBLAS's measured SGEMM rate for the SGEMM family (ceilings.json), else None."""
    name = VENDORS.get(str(ctx[col.FAMILY].get(col.NAME)))
    gflops = ctx["ceilings"].get(col.VENDOR_SGEMM_GFLOPS)
    if name is None or not gflops or not math.isfinite(float(gflops)):
        return None
    match = _SIZE_IN_NOTE.search(str(ctx["ceilings"].get("vendor_sgemm_note") or ""))
    return VendorPoint(name, float(gflops), int(match.group(1)) if match else None)


def vendor_at(
    analysis: pd.DataFrame, ctx: dict[str, Any], size: int
) -> VendorPoint | None:
    """The vendor library's rate at ``size``: a ceiling only where it was timed there.

    The ladder's library variant timed at that size (SGEMM's ``v8_torch_matmul``,
    cuBLAS on the same buffers: 33.8 TFLOP/s at n = 1024, 51.4 at n = 4096), else
    ceilings.json's own measurement where its note names that size (n = 8192); none
    at a size with neither.
    """
    own = vendor_point(ctx)
    if own is None:
        return None
    library = {str(v[col.NAME]) for v in ctx.get("variants") or [] if v.get("library")}
    need = {col.VARIANT, col.SIZE, col.GFLOPS}
    if library and need <= set(analysis.columns):
        rows = analysis[
            analysis[col.VARIANT].isin(library) & (analysis[col.SIZE] == size)
        ]
        rates = pd.to_numeric(rows[col.GFLOPS], errors="coerce").dropna()
        if not rates.empty and float(rates.max()) > 0:
            return VendorPoint(own.name, float(rates.max()), int(size))
    return own if own.size == size else None


def l2_boundary(analysis: pd.DataFrame, ctx: dict[str, Any]) -> int | None:
    """The first size whose ideal working set exceeds the L2 (None if none does)."""
    l2 = ctx["ceilings"].get("l2_bytes")
    if not l2 or "ideal_bytes" not in analysis:
        return None
    over = analysis[analysis["ideal_bytes"] > l2][col.SIZE]
    return int(over.min()) if not over.empty else None


def size_text(n: Any) -> str:
    """A problem size for a tick: 4096, 65536, 2^20 (powers of two from 2^17)."""
    n = int(n)
    if n >= 1 << 17 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}" if n >= 100_000 else str(n)
