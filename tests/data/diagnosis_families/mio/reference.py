"""Reference of the mio test family: per 256 consecutive values, the sum of v + v^2 + v^3."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.uniform(0.5, 1.5, size=n).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    v = inputs["x"].astype(np.float64)
    groups = -(-n // 256)
    padded = np.zeros(groups * 256)
    padded[:n] = v
    p = padded.reshape(groups, 256)
    return {"y": (p + p**2 + p**3).sum(axis=1)}
