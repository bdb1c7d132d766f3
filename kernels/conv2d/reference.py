"""2-D convolution: random image and mask, float64 reference with zero padding."""

import numpy as np

R = 2  # mask radius: a 5 x 5 mask


def generate(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """An n x n image in [-1, 1) and a 5 x 5 mask in [0, 0.08) (sums to about 1)."""
    return {
        "N": rng.uniform(-1.0, 1.0, size=(n, n)).astype(np.float32),
        "M": (rng.random((2 * R + 1, 2 * R + 1)) * 0.08).astype(np.float32),
    }


def reference(inputs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """P[i, j] = sum over the mask of M[a, b] * N[i + a - 2, j + b - 2], zero outside."""
    padded = np.pad(inputs["N"].astype(np.float64), R)
    mask = inputs["M"].astype(np.float64)
    out = np.zeros((n, n))
    term = np.empty((n, n))
    for a in range(2 * R + 1):
        for b in range(2 * R + 1):
            np.multiply(padded[a : a + n, b : b + n], mask[a, b], out=term)
            out += term
    return {"P": out}
