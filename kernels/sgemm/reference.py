"""SGEMM input generator and float64 numpy reference."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Two random n x n matrices in [-1, 1): never zeros, which would hide unwritten outputs."""
    a, b = (rng.random((n, n), dtype=np.float32) for _ in range(2))
    return {"A": a * 2.0 - 1.0, "B": b * 2.0 - 1.0}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """C = A @ B in float64 (the float32 inputs are exact in float64)."""
    a = inputs["A"].astype(np.float64)
    b = inputs["B"].astype(np.float64)
    return {"C": a @ b}
