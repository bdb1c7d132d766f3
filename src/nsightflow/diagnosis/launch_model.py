"""One per-launch model for every floor of a family whose stream beats the copy rate (pure).

Where one variant's marginal DRAM rate between two memory-bound sizes is at or above
the copy bandwidth (:mod:`nsightflow.diagnosis.marginal`), the copy bandwidth is no
ceiling of the family's stream and the family's fixed cost (the least time any launch
took beyond its ideal time at the copy bandwidth) is not its per-launch cost.
Reduction on the H200: ``v4_vec4_atomic`` moves 201.3 MB more from 2^24 to 2^26 in
44.32 us more, 4,543 GB/s, and pays 5.0 us once per launch; ``v0``-``v2``'s floors
used the copy bandwidth and 0.45 us fixed (16.4 us at 2^24) where ``v4``'s used the
marginal rate and 0 (14.8 us). The same report gave one kernel two fixed costs.

:func:`family_model` finds that line (the fastest marginal rate at or above the
copy bandwidth over the family's variants) and :func:`on_model` puts a row on it:
its ideal time is its ideal bytes at that rate, and the launch's cost is the line's
intercept, so every floor is ``ideal bytes / rate + per-launch cost``. Under it
``v4`` is at its floor (19.8 us at 2^24) and ``v0``'s floor is 19.8 us, not 16.4.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.floors import FASTEST_US, LAUNCH_US, Fixed
from nsightflow.diagnosis.ideal_gap import ON_MODEL
from nsightflow.diagnosis.marginal import Marginal, marginal
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg

__all__ = ["ON_MODEL", "LaunchModel", "family_model", "on_model"]

MEMORY_SIDE = 0.01  # a roof within this of the bytes at the copy rate is theirs
TIE = 1e-3  # a fastest time within this of the model's floor is the model's point


@dataclass(frozen=True)
class LaunchModel:
    """The family's stream rate and per-launch cost, and the variant that set them."""

    variant: str
    line: Marginal

    @property
    def fixed(self) -> Fixed:
        """The per-launch cost as the fixed cost the floors add."""
        return Fixed(max(self.line.launch_us, 0.0), self.variant, self.line.size)

    def basis(self, whole: bool = True) -> dict[str, Any]:
        """How the floor was found, as a message; ``whole``: its ideal bytes too.

        A floor of its own (temporal blocking's half transfer) adds the model's
        per-launch cost alone, and says only that part.
        """
        lo, hi = sorted((self.line.size, self.line.other))
        return msg(
            "fixed_basis_model" if whole else "fixed_basis_model_launch",
            variant=self.variant,
            gbps=self.line.gbps,
            pct=100.0 * self.line.ratio,
            launch=self.fixed.us,
            lo=lo,
            hi=hi,
        )


def family_model(
    rows: Mapping[str, Sequence[Mapping[str, Any]]],
) -> LaunchModel | None:
    """The marginal line at or above the copy bandwidth that pays least per launch.

    ``rows``: each variant's rows at every size. The least per-launch cost, as the
    family's fixed cost is the least any launch took beyond its ideal time: reduction
    ``v4``'s one launch pays 5.0 us, ``v3``'s run of two (its finish kernel's 2.8 us
    among them) 8.4 us at 4,569 GB/s. None where no variant's stream beats the copy
    bandwidth between two of its memory-bound sizes.
    """
    best: LaunchModel | None = None
    for name, mine in sorted(rows.items()):
        for row in sorted(mine, key=lambda r: int(r[col.SIZE])):
            line = marginal(row, mine)
            if line is None or not line.above or line.launch_us <= 0:
                continue
            if best is None or line.launch_us < best.line.launch_us:
                best = LaunchModel(name, line)
            break  # two sizes make one line: its intercept is the same at both
    return best


def on_model(row: Mapping[str, Any], model: LaunchModel | None) -> dict[str, Any]:
    """The row with its ideal time at the model's rate (unchanged without a model).

    Its floor is then the model's: the least time at the smallest size is not added
    (the per-launch cost stands for it), and the fastest time at this size bounds it
    only where it is below the model by more than :data:`TIE`: at the line's own
    sizes it is the model (``v4`` at 2^24: 19.81 us), where Jacobi-2D's 5.1 us at
    n = 512 is below its ideal bytes at 4,281 GB/s plus 5.5 us.
    """
    out = dict(row)
    ideal, roof = num(row, "ideal_bytes"), num(row, "roof_time_us")
    if model is None or not (ok(ideal) and ideal > 0 and ok(roof)):
        return out
    copy = ideal / (model.line.ceiling_gbps * 1e3)  # its ideal time at the copy rate
    if roof > copy * (1 + MEMORY_SIDE):
        return out  # its roof is its FP32 time, not its bytes
    out["roof_time_us"] = ideal / (model.line.gbps * 1e3)
    out[ON_MODEL] = True
    out.pop(LAUNCH_US, None)  # the model's per-launch cost is the small sizes' bound
    floor = out["roof_time_us"] + model.fixed.us
    if num(out, FASTEST_US) >= floor * (1 - TIE):
        out.pop(FASTEST_US, None)  # the model's own point, not a time below it
    return out
