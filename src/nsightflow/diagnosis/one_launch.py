"""One launch instead of a main kernel and a finishing one (pure).

A run whose later launches are finishing passes (a grid of fewer blocks than SMs:
reduction's ``reduce_finish``, one block summing the main kernel's block partials)
pays their time on top of the main kernel's. That time is one of the run's causes
(:func:`nsightflow.diagnosis.per_launch.run_causes`: ``v0_interleaved``'s largest,
14.0 of its 55.8 us under Nsight Compute, 25%), and its remedy is to finish in the
main kernel: one atomic per block, or a last-block reduction. :func:`finish_launches`
says it with its bounded gain; ``v3_vec4``'s finish takes 13% of its run, and the
next step, ``v4_vec4_atomic``, removed it (1.17x).

A later launch that covers the data (a grid of at least one block per SM: scan's
second pass) is a pass of its own, not a finish; the brief's one-pass floor is its
advice (:mod:`nsightflow.report.sections.next_steps`).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.causes import MIN_SHARE
from nsightflow.diagnosis.floors import Bound, bounded
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg

__all__ = ["finish_launches"]


def _finishes(runs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The run's later launches whose grid has fewer blocks than the GPU has SMs.

    Scan ``v0``'s ``scan_tile_sums`` (1 block) sits between two passes over the data,
    and its ``scan_add_offsets`` (16,384 blocks) is one: its run is not one finish.
    """
    return [
        r
        for r in runs[1:]
        if ok(num(r, "ncu_time_us")) and 0 < num(r, "grid_blocks") < num(r, "sm_count")
    ]


def finish_launches(
    row: Mapping[str, Any], runs: Sequence[Mapping[str, Any]], fixed: float
) -> tuple[float, Bound, dict[str, Any], float] | None:
    """The run without its finishing launches: (gain, bound, remedy, share %).

    ``runs``: each launch's own row, main kernel first
    (:func:`nsightflow.diagnosis.per_launch.launch_rows`). None where the run has
    one launch, a later launch is a pass over the data, its finishing launches take
    less than the share a cause is listed from, or the gain is within the noise.
    """
    total = num(row, "ncu_time_us")
    done = _finishes(runs)
    if not done or len(done) < len(runs) - 1 or not (ok(total) and total > 0):
        return None  # a later pass over the data: one pass, not one finish, is left
    us = sum(num(r, "ncu_time_us") for r in done)
    share = us / total
    if not MIN_SHARE <= share < 1:
        return None
    mech = 1.0 / (1.0 - share)
    bound = bounded(row, mech, fixed)
    if bound is None:
        return None
    fix = msg(
        "advice_fix_one_launch",
        launches=len(runs),
        kernels=", ".join(f"`{r.get(col.KERNEL)}`" for r in done),
        us=us,
        total=total,
        fix=msg("fix_later_launch"),
    )
    return mech, bound, fix, 100.0 * share
