"""Verify stage: run each variant on random inputs and compare with the numpy reference.

Writes ``results/verify/<family>/<variant>.json`` with ``status`` (ok / wrong /
crashed / timeout / skipped), the relative L2 error per size, the sizes tried and the
first mismatching element. Expected failures are data: the stage exits 0.
"""

from typing import Any

import numpy as np

from nsightflow.registry import Family, Variant


def compare(out: np.ndarray, ref: np.ndarray, tolerance: float) -> dict[str, Any]:
    """Relative L2 error of ``out`` against a float64 ``ref``, and the first mismatch.

    An element is a mismatch when it is not finite where the reference is, or when it
    differs by more than ``tolerance`` relative to the reference's RMS magnitude.
    """
    o = out.astype(np.float64)
    r = ref.astype(np.float64)
    diff = np.abs(o - r)
    ref_norm = float(np.linalg.norm(r)) or 1.0
    bad_value = ~np.isfinite(o) & np.isfinite(r)
    rel_l2 = float(np.linalg.norm(np.where(bad_value, 0.0, diff))) / ref_norm
    scale = ref_norm / np.sqrt(max(r.size, 1))
    mismatch = bad_value | (diff > tolerance * max(scale, 1e-30) * 10)
    first = None
    if mismatch.any():
        index = np.unravel_index(int(np.argmax(mismatch)), mismatch.shape)
        first = {
            "index": [int(i) for i in index],
            "got": float(o[index]),
            "expected": float(r[index]),
        }
    ok = not bad_value.any() and rel_l2 <= tolerance
    return {
        "ok": ok,
        "rel_l2_error": rel_l2 if not bad_value.any() else float("inf"),
        "unwritten_or_nonfinite": int(bad_value.sum()),
        "max_abs_error": float(np.max(np.where(bad_value, 0.0, diff), initial=0.0)),
        "first_mismatch": first,
    }


def verify_sizes(family: Family, variant: Variant) -> list[int]:
    """Every size the variant accepts among the sweep and the extra verify sizes.

    A variant is verified at each size it is timed at (a kernel can be right at 1024
    and wrong at 16384, e.g. from an int overflow in its indexing), plus the
    manifest's ``verify_sizes``: odd sizes that exercise the bounds guards.
    """
    sizes = sorted(set(family.sizes) | set(family.verify_sizes))
    return [n for n in sizes if variant.accepts_size(n)]


def summarize(per_size: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall status from per-size comparisons: ``ok`` only if every size passed."""
    failed = [r for r in per_size if not r["ok"]]
    if not per_size:
        return {
            "status": "skipped",
            "message": "no verify size accepted by the variant",
        }
    if failed:
        worst = failed[0]
        return {
            "status": "wrong",
            "message": f"n={worst['n']}: relative L2 error {worst['rel_l2_error']:.3g}, "
            f"{worst['unwritten_or_nonfinite']} unwritten or non-finite elements, "
            f"first mismatch {worst['first_mismatch']}",
        }
    worst_err = max(r["rel_l2_error"] for r in per_size)
    return {"status": "ok", "message": f"max relative L2 error {worst_err:.3g}"}
