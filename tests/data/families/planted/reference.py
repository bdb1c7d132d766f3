"""Reference of the planted test family: y = 2x + 1."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.uniform(-1.0, 1.0, size=n).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    return {"y": 2.0 * inputs["x"].astype(np.float64) + 1.0}
