"""Sum into one address: 0/1 float32 values and their float64 sum."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Each value 0.0 or 1.0, so float32 sums up to 2^24 elements are exact in any order."""
    return {"X": rng.integers(0, 2, size=n).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The float64 sum of the inputs."""
    return {"S": np.array([inputs["X"].astype(np.float64).sum()])}
