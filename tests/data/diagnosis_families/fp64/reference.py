"""Reference of the fp64 test family: eight steps of v = exp(-v^2/2) + v/4."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.uniform(0.5, 1.5, size=n).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    v = inputs["x"].astype(np.float64)
    for _ in range(8):
        v = np.exp(-0.5 * v * v) + 0.25 * v
    return {"y": v}
