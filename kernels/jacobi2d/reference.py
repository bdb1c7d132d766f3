"""Jacobi-2D input generator and float64 numpy reference."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Random grid in [-1, 1): never zeros, which would hide unwritten outputs."""
    return {"A": rng.uniform(-1.0, 1.0, size=(n, n)).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """One Jacobi sweep in float64; boundary points are copied from A."""
    a = inputs["A"].astype(np.float64)
    b = a.copy()
    b[1:-1, 1:-1] = 0.2 * (
        a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[:-2, 1:-1] + a[2:, 1:-1]
    )
    return {"B": b}
