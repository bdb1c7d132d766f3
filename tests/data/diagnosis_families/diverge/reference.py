"""Reference of the diverge test family: four FMA chains of 256 steps per element."""

import numpy as np

STEPS = 256
SCALES = (0.999, 0.998, 0.997, 0.996)


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.uniform(0.5, 1.5, size=n).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    # each chain a -> a*s + (1 - s) has the fixed point 1: after k steps
    # a = 1 + (a0 - 1) * s**k (both branches compute the same values)
    v = inputs["x"].astype(np.float64)
    starts = (v, v + 1.0, v - 1.0, 0.5 * v)
    y = sum(1.0 + (a0 - 1.0) * s**STEPS for a0, s in zip(starts, SCALES, strict=True))
    return {"y": y}
