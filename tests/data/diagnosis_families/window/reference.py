"""Reference of the window test family: 16-tap moving sum, zeros past the end."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.uniform(-1.0, 1.0, size=n).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    x = np.concatenate([inputs["x"].astype(np.float64), np.zeros(15)])
    c = np.concatenate([[0.0], np.cumsum(x)])
    return {"y": c[16 : 16 + n] - c[:n]}
