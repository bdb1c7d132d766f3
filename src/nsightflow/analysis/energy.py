"""Energy per launch in the analysis table: joules per launch and work per joule.

The time stage records, per size, ``energy_j_per_launch`` and ``energy_power_w``
where NVML has a total-energy counter (:mod:`nsightflow.gpu.energy`); elsewhere, and
in recordings made before it did (the bundled H200 one), those cells are empty and the
report says the energy was not recorded. Pure: returns new frames.
"""

import numpy as np
import pandas as pd

from nsightflow.contracts import columns as col


def add_energy(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with :data:`nsightflow.contracts.ENERGY`: ideal GFLOP and GB per joule.

    Needs ``ideal_flops`` and ``ideal_bytes`` (the analysis's); the energy columns
    are NaN where the time record has none.
    """
    out = frame.copy()
    for column in (col.ENERGY_J_PER_LAUNCH, col.ENERGY_POWER_W):
        if column not in out:
            out[column] = np.nan
    joules = pd.to_numeric(out[col.ENERGY_J_PER_LAUNCH], errors="coerce")
    joules = joules.where(joules > 0)
    out[col.GFLOP_PER_J] = out["ideal_flops"] / joules / 1e9
    out[col.GB_PER_J] = out["ideal_bytes"] / joules / 1e9
    return out


def energy_recorded(frame: pd.DataFrame) -> bool:
    """Whether any variant and size has an energy per launch."""
    return col.ENERGY_J_PER_LAUNCH in frame and bool(
        pd.to_numeric(frame[col.ENERGY_J_PER_LAUNCH], errors="coerce").notna().any()
    )
