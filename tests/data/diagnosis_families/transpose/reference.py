"""Reference of the transpose test family: B = A^T."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"A": rng.uniform(-1.0, 1.0, size=(n, n)).astype(np.float32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    return {"B": np.ascontiguousarray(inputs["A"].astype(np.float64).T)}
