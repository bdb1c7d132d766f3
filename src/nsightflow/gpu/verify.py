"""Verify stage: run each variant on random inputs and compare with the numpy reference.

Writes ``results/verify/<family>/<variant>.json`` with ``status`` (ok / wrong /
crashed / timeout / skipped), the relative L2 error per size, the sizes tried and the
first mismatching element. Expected failures are data: the stage exits 0.
"""

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from nsightflow.contracts import columns as col
from nsightflow.family.model import Family, Variant
from nsightflow.records import Status

if TYPE_CHECKING:
    from nsightflow.gpu.launch import GpuContext, Job, Launcher

# Elements compared per chunk: float64 temporaries of a few MB stay in the CPU's
# caches; whole-array temporaries of a 16384^2 grid (2 GiB each) made the comparison
# the slowest part of verification.
_CHUNK = 1 << 20
_PARTS = 4  # threads of one comparison, at most
_SPAN = 4  # chunks a thread compares, at least


def _chunks(
    out: np.ndarray, ref: np.ndarray, span: range | None = None
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(offset, out chunk, ref chunk) in float64, ``_CHUNK`` elements at a time.

    ``span``: the chunks' offsets to visit (default all).
    """
    o, r = out.reshape(-1), ref.reshape(-1)
    for i in span if span is not None else range(0, r.size, _CHUNK):
        yield (
            i,
            o[i : i + _CHUNK].astype(np.float64),
            r[i : i + _CHUNK].astype(np.float64),
        )


def _sums(
    out: np.ndarray, ref: np.ndarray, span: range
) -> tuple[float, float, int, float]:
    """Sum of ref^2, sum of |out - ref|^2, bad elements and max |out - ref| over a span."""
    ref_sq = diff_sq = max_abs = 0.0
    bad = 0
    for _, oc, rc in _chunks(out, ref, span):
        diff, bad_value = _errors(oc, rc)
        ref_sq += float(np.dot(rc, rc))
        diff_sq += float(np.dot(diff, diff))
        bad += int(bad_value.sum())
        max_abs = max(max_abs, float(diff.max(initial=0.0)))
    return ref_sq, diff_sq, bad, max_abs


def _spans(size: int, parts: int) -> list[range]:
    """The chunk offsets of ``size`` elements in up to ``parts`` contiguous spans.

    At most ``_PARTS`` spans of at least ``_SPAN`` chunks each: smaller arrays are
    compared on one thread (a thread's start costs more than it saves there).
    """
    starts = range(0, size, _CHUNK)
    if not starts:
        return [starts]
    parts = max(1, min(parts, _PARTS, len(starts) // _SPAN))
    step = -(-len(starts) // parts)
    return [starts[i : i + step] for i in range(0, len(starts), step)] or [starts]


def _errors(oc: np.ndarray, rc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """|out - ref| (0 where out is unwritten or non-finite) and where that happened."""
    bad_value = ~np.isfinite(oc) & np.isfinite(rc)
    diff = np.abs(oc - rc)
    diff[bad_value] = 0.0
    return diff, bad_value


def compare(
    out: np.ndarray, ref: np.ndarray, tolerance: float, threads: int = 1
) -> dict[str, Any]:
    """Relative L2 error of ``out`` against a float64 ``ref``, and the first mismatch.

    Float outputs: an element is a mismatch when it is not finite where the reference
    is, or when it differs by more than ``tolerance`` relative to the reference's RMS
    magnitude; the output passes when its relative L2 error is within ``tolerance``.
    One pass gathers the sums (on ``threads`` threads, each over a contiguous part:
    numpy releases the GIL; 0.78 s on one thread for 64M floats on the H200
    machine); a second one, only when something can mismatch, finds the first
    mismatching element.
    Integer outputs (counts, indices) must match exactly: see :func:`compare_exact`.
    """
    if out.dtype.kind in "iu":
        return compare_exact(out, ref)
    spans = _spans(ref.size, threads)
    if len(spans) > 1:
        with ThreadPoolExecutor(max_workers=len(spans)) as pool:
            parts = list(pool.map(lambda span: _sums(out, ref, span), spans))
    else:
        parts = [_sums(out, ref, spans[0])]
    ref_sq = sum(p[0] for p in parts)
    diff_sq = sum(p[1] for p in parts)
    bad = sum(p[2] for p in parts)
    max_abs = max(p[3] for p in parts)
    ref_norm = ref_sq**0.5 or 1.0
    threshold = tolerance * max(ref_norm / np.sqrt(max(ref.size, 1)), 1e-30) * 10
    first = None
    if bad or max_abs > threshold:
        for i, oc, rc in _chunks(out, ref):
            diff, bad_value = _errors(oc, rc)
            mismatch = bad_value | (diff > threshold)
            if mismatch.any():
                index = np.unravel_index(i + int(np.argmax(mismatch)), out.shape)
                first = {
                    "index": [int(k) for k in index],
                    "got": float(out[index]),
                    "expected": float(ref[index]),
                }
                break
    rel_l2 = diff_sq**0.5 / ref_norm
    return {
        "ok": not bad and rel_l2 <= tolerance,
        col.REL_L2_ERROR: rel_l2 if not bad else float("inf"),
        "unwritten_or_nonfinite": bad,
        "max_abs_error": max_abs,
        "first_mismatch": first,
    }


def compare_exact(out: np.ndarray, ref: np.ndarray) -> dict[str, Any]:
    """Integer outputs: every element equal; the sentinel marks unwritten elements."""
    r = np.asarray(ref).astype(np.float64)
    o = out.astype(np.float64)
    mismatch = o != r
    unwritten = mismatch & (out == np.iinfo(out.dtype).max)
    diff = np.abs(o - r)
    first = None
    if mismatch.any():
        index = np.unravel_index(int(np.argmax(mismatch)), mismatch.shape)
        first = {
            "index": [int(i) for i in index],
            "got": float(o[index]),
            "expected": float(r[index]),
        }
    ref_norm = float(np.linalg.norm(r)) or 1.0
    return {
        "ok": not mismatch.any(),
        "exact": True,
        "mismatches": int(mismatch.sum()),
        col.REL_L2_ERROR: float(np.linalg.norm(np.where(unwritten, 0.0, diff)))
        / ref_norm,
        "unwritten_or_nonfinite": int(unwritten.sum()),
        "max_abs_error": float(np.max(np.where(unwritten, 0.0, diff), initial=0.0)),
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
            col.STATUS: Status.SKIPPED,
            col.MESSAGE: "no verify size accepted by the variant",
        }
    if failed:
        worst = failed[0]
        return {
            col.STATUS: Status.WRONG,
            col.MESSAGE: f"n={worst['n']}: relative L2 error {worst['rel_l2_error']:.3g}, "
            f"{worst['unwritten_or_nonfinite']} unwritten or non-finite elements, "
            f"first mismatch {worst['first_mismatch']}",
        }
    worst_err = max(r[col.REL_L2_ERROR] for r in per_size)
    return {
        col.STATUS: Status.OK,
        col.MESSAGE: f"max relative L2 error {worst_err:.3g}",
    }


def run_verify(gpu: "GpuContext", job: "Job", threads: int = 4) -> dict[str, Any]:
    """Launch the variant once at every verify size and compare with the reference.

    The GPU part (set up, launch, copy back) runs size after size on this thread, the
    largest first; each size's reference (from the cache, else computed) and
    comparison run on ``threads`` CPU threads meanwhile (numpy releases the GIL), so
    the CPU's work overlaps the GPU's and the other sizes' instead of following it.
    The result lists the sizes in increasing order.

    Returns:
        The verify result: status, message, one entry per size and output, params.
    """
    pending: list[Future[list[dict[str, Any]]]] = []
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        # the largest first: its check, the longest, overlaps the other sizes' work
        for n in sorted(verify_sizes(job.family, job.variant), reverse=True):
            launcher = job.setup(gpu, n)
            launcher.launch()
            launcher.synchronize()
            outputs = launcher.outputs()
            launcher.free()
            check = (job, launcher, n, outputs, threads)
            pending.append(pool.submit(_check_size, *check))
        per_size = [entry for f in reversed(pending) for entry in f.result()]
    return {**summarize(per_size), col.SIZES: per_size, **params_of(job.variant)}


def _check_size(
    job: "Job",
    launcher: "Launcher",
    n: int,
    outputs: dict[str, np.ndarray],
    threads: int,
) -> list[dict[str, Any]]:
    expected = job.cache.reference(job.variant, n, launcher.inputs)
    return [
        {
            "n": n,
            "output": name,
            **generated_of(launcher),
            **compare(out, expected[name], job.family.tolerance, threads),
        }
        for name, out in outputs.items()
    ]


def params_of(variant: Variant) -> dict[str, Any]:
    """The parameter values the variant ran at (a sweep's best), when it has any."""
    return {col.PARAMS: dict(variant.config)} if variant.config else {}


def generated_of(launcher: "Launcher") -> dict[str, Any]:
    """The generated sizes besides n (e.g. nnz), for the ideal FLOPs and bytes."""
    extra = {k: v for k, v in launcher.sizes.items() if k != "n"}
    return {col.GENERATED: extra} if extra else {}
