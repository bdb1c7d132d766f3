"""Histogram: uniform or skewed bytes, and numpy's exact bin counts."""

import numpy as np

# The skewed input's hot bins: 90% of the bytes are one of these (ECE408's skewed mode).
HOT_BINS = np.array([65, 66, 67, 68], dtype=np.uint8)
HOT_SHARE = 0.9


def generate(
    n: int, rng: np.random.Generator, kind: str = "uniform"
) -> dict[str, np.ndarray]:
    """n bytes: uniform over 0..255, or ``skewed`` (90% in 4 bins, the rest uniform)."""
    data = rng.integers(0, 256, size=n, dtype=np.uint8)
    if kind == "skewed":
        hot = rng.random(n) < HOT_SHARE
        data[hot] = rng.choice(HOT_BINS, size=int(hot.sum()))
    elif kind != "uniform":
        raise ValueError(f"kind must be 'uniform' or 'skewed', not {kind!r}")
    return {"data": data}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The count of each byte value."""
    return {"hist": np.bincount(inputs["data"], minlength=256).astype(np.int64)}
