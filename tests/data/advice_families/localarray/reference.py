"""Per-thread histogram: int32 inputs and numpy's exact counts of (x & 31)."""

import numpy as np

BINS = 32


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Non-negative int32 values, uniform, so every bin of (x & 31) is hit."""
    return {"x": rng.integers(0, 2**31 - 1, size=n, dtype=np.int32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The count of each value of (x & 31)."""
    return {
        "bins": np.bincount(inputs["x"] & (BINS - 1), minlength=BINS).astype(np.int64)
    }
