"""SpMV: banded or skewed sparse matrices in CSR, ELL and HYB form; float64 y = A x.

The generator returns CSR arrays and x directly, and the ELL and HYB arrays as
functions, so a variant pays only for the format it reads (a skewed matrix's ELL form
is 14x larger than its CSR form). Sizes it returns: ``nnz``, ``ell_width`` (longest
row), ``hyb_width`` (the ELL part of HYB: the longest row outside the hub rows) and
``ncoo`` (entries beyond ``hyb_width``, stored as COO).
"""

from collections.abc import Callable
from typing import Any

import numpy as np

BAND = np.arange(-4, 5)  # 9 diagonals: a 9-point band around the main diagonal
HUB_EVERY = 256  # skewed: every 256th row is a hub row ...
HUB_EXTRA = 120  # ... with 120 more entries at random columns


def _rows(n: int, rng: np.random.Generator, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Row index and column of every entry (int32), in row-major order."""
    index = np.arange(n, dtype=np.int32)[:, None]
    cols = index + BAND.astype(np.int32)[None, :]
    keep = (cols >= 0) & (cols < n)
    rows = np.broadcast_to(index, cols.shape)[keep]
    cols = cols[keep]
    if kind == "skewed":
        hubs = np.arange(0, n, HUB_EVERY, dtype=np.int32)
        rows = np.concatenate([rows, np.repeat(hubs, HUB_EXTRA)])
        cols = np.concatenate(
            [cols, rng.integers(0, n, size=hubs.size * HUB_EXTRA, dtype=np.int32)]
        )
        order = np.argsort(rows, kind="stable")
        rows, cols = rows[order], cols[order]
    elif kind != "banded":
        raise ValueError(f"kind must be 'banded' or 'skewed', not {kind!r}")
    return rows, cols


def _ell(
    n: int,
    entries: tuple[np.ndarray, np.ndarray, np.ndarray],
    slot: np.ndarray,
    width: int,
) -> tuple[Callable[[], np.ndarray], Callable[[], np.ndarray]]:
    """Column-major ELL arrays of the first ``width`` entries of each row, built on
    demand; padding entries have the row itself as column and value 0."""
    rows, cols, vals = entries
    keep = slot < width

    def flat() -> np.ndarray:
        return slot[keep].astype(np.int64) * n + rows[keep]

    def ell_col() -> np.ndarray:
        out = np.tile(np.arange(n, dtype=np.int32), width)
        out[flat()] = cols[keep]
        return out

    def ell_val() -> np.ndarray:
        out = np.zeros(width * n, dtype=np.float32)
        out[flat()] = vals[keep]
        return out

    return ell_col, ell_val


def generate(n: int, rng: np.random.Generator, kind: str = "banded") -> dict[str, Any]:
    """An n x n matrix (banded, or banded plus hub rows when ``kind`` is skewed) and x."""
    rows, cols = _rows(n, rng, kind)
    vals = rng.random(rows.size, dtype=np.float32) * np.float32(2) - np.float32(1)
    lengths = np.bincount(rows, minlength=n)
    row_ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=row_ptr[1:])
    slot = np.arange(rows.size, dtype=np.int32) - row_ptr[rows]  # position in its row
    ell_width = int(lengths.max(initial=0))
    hyb_width = int(lengths[lengths <= BAND.size].max(initial=0))  # hub rows excluded
    beyond = slot >= hyb_width
    entries = (rows, cols, vals)
    ell_col, ell_val = _ell(n, entries, slot, ell_width)
    hyb_col, hyb_val = _ell(n, entries, slot, hyb_width)
    return {
        "row_ptr": row_ptr,
        "col": cols,
        "val": vals,
        "x": rng.random(n, dtype=np.float32) * np.float32(2) - np.float32(1),
        "nnz": int(rows.size),
        "ell_width": ell_width,
        "hyb_width": hyb_width,
        "ncoo": int(beyond.sum()),
        "ell_col": ell_col,
        "ell_val": ell_val,
        "hyb_col": hyb_col,
        "hyb_val": hyb_val,
        "coo_row": lambda: rows[beyond],
        "coo_col": lambda: cols[beyond],
        "coo_val": lambda: vals[beyond],
    }


def reference(inputs: dict[str, Any], n: int) -> dict[str, np.ndarray]:
    """y = A x in float64 from the CSR arrays."""
    row_ptr = np.asarray(inputs["row_ptr"], dtype=np.int64)
    rows = np.repeat(np.arange(n), np.diff(row_ptr))
    products = (
        inputs["val"].astype(np.float64) * inputs["x"].astype(np.float64)[inputs["col"]]
    )
    return {"y": np.bincount(rows, weights=products, minlength=n)}
