"""Count into one counter: int32 inputs and numpy's count of the odd ones."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Uniform int32 values: about half are odd, so about half the lanes add."""
    return {"x": rng.integers(-(2**31), 2**31 - 1, size=n, dtype=np.int32)}


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The number of odd values."""
    return {"C": np.array([np.count_nonzero(inputs["x"] & 1)], dtype=np.int64)}
