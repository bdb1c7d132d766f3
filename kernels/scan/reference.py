"""Inclusive scan: random input and float64 cumulative sum."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Values in [0.5, 1.5): every prefix differs from its neighbours."""
    return {"X": rng.random(n, dtype=np.float32) + np.float32(0.5)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """Y[i] = X[0] + ... + X[i] in float64."""
    return {"Y": np.cumsum(inputs["X"].astype(np.float64))}
