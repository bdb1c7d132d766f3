"""Sum reduction: input generator and float64 numpy reference."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Values in [0.5, 1.5): a lost or doubled element moves the sum by ~1/n."""
    return {"X": rng.random(n, dtype=np.float32) + np.float32(0.5)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The float64 sum of the float32 inputs."""
    return {"S": np.array([inputs["X"].astype(np.float64).sum()])}
