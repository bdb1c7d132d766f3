"""Energy per launch in the analysis table: joules per launch and work per joule.

The time stage records, per size, ``energy_j_per_launch`` and ``energy_power_w``
where NVML has a total-energy counter (:mod:`nsightflow.gpu.energy`); elsewhere, and
in recordings made before it did (the bundled H200 one), those cells are empty and the
report says the energy was not recorded. Pure: returns new frames.
"""

import numpy as np
import pandas as pd


def add_energy(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with :data:`nsightflow.contracts.ENERGY`: ideal GFLOP and GB per joule.

    Needs ``ideal_flops`` and ``ideal_bytes`` (the analysis's); the energy columns
    are NaN where the time record has none.
    """
    out = frame.copy()
    for column in ("energy_j_per_launch", "energy_power_w"):
        if column not in out:
            out[column] = np.nan
    joules = pd.to_numeric(out["energy_j_per_launch"], errors="coerce")
    joules = joules.where(joules > 0)
    out["gflop_per_j"] = out["ideal_flops"] / joules / 1e9
    out["gb_per_j"] = out["ideal_bytes"] / joules / 1e9
    return out


def energy_recorded(frame: pd.DataFrame) -> bool:
    """Whether any variant and size has an energy per launch."""
    return "energy_j_per_launch" in frame and bool(
        pd.to_numeric(frame["energy_j_per_launch"], errors="coerce").notna().any()
    )
