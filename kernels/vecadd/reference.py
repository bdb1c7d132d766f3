"""Vector addition: input generator and float64 numpy reference."""

import numpy as np


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Two random vectors in [1, 2): sums never vanish, so unwritten outputs show."""
    return {
        "A": rng.random(n, dtype=np.float32) + np.float32(1.0),
        "B": rng.random(n, dtype=np.float32) + np.float32(1.0),
    }


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """C = A + B in float64."""
    return {"C": inputs["A"].astype(np.float64) + inputs["B"].astype(np.float64)}
