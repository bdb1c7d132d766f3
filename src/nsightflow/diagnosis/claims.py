"""What a step's idea claims to remove, where its counters contradict it (pure).

The step's section says these beside its account instead of repeating the claim:
bank conflicts the previous variant did not have, fewer lanes on a shared address
where the shared atomics' conflicts rose.
"""

import re
from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding

# The findings that say an idea's claim is contradicted by the counters (the step says them)
CLAIMS = ("claim_no_conflicts", "claim_more_conflicts")
CLAIMED_CONFLICTS = r"bank conflicts"  # an idea that says it removes them
CONFLICT_CAUSE = 0.2  # replays / shared wavefronts from which conflicts are a cause


def unsupported_claim(
    idea: str, previous: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Finding]:
    """What the idea says it removes, where the counters contradict it.

    Bank conflicts where the replays show none (:func:`_no_conflicts`), and fewer
    lanes on an address where the shared atomics' conflicts rose
    (:func:`_more_atomic_conflicts`).
    """
    return _no_conflicts(idea, previous, after) + _more_atomic_conflicts(
        idea, previous, after
    )


def _no_conflicts(
    idea: str, previous: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Finding]:
    """The idea's bank conflicts, where the replays show none to remove.

    Reduction's sequential addressing says it drops "the shared-memory bank
    conflicts of v0", whose replays are 2% of its shared wavefronts: the step's time
    cannot have come from them, and the report says so instead of repeating it.
    """
    if not re.search(CLAIMED_CONFLICTS, idea, flags=re.IGNORECASE):
        return []
    if re.search(r"32-way|deliberate regression", idea, flags=re.IGNORECASE):
        return []  # an idea that adds them, not one that removes them
    share = num(previous, "smem_conflict_share")
    if not ok(share) or share >= CONFLICT_CAUSE:
        return []
    return [
        Finding(
            "claim_no_conflicts",
            params={
                col.VARIANT: str(previous.get(col.VARIANT, "")),
                "pct": 100 * share,
            },
            metric="smem_conflict_share",
            value=share,
            threshold=CONFLICT_CAUSE,
        )
    ]


# An idea that sets out to put fewer lanes on a shared address, or to cut contention
# or conflicts (histogram's 8 sub-histograms: "fewer lanes per shared address", "at
# most 4 lanes of a warp share an address instead of up to 32").
FEWER_LANES = (
    r"fewer lanes|lanes of a warp share|lanes per (shared )?address|"
    r"less contention|(reduc|cut)\w* (the )?contention|fewer (bank )?conflicts|"
    r"without bank conflicts|conflicts disappear"
)
CONFLICTS_ROSE = 1.1  # conflicts per atomic instruction that grew by this factor


def _more_atomic_conflicts(
    idea: str, previous: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Finding]:
    """The shared atomics' bank conflicts per instruction, where they rose.

    Histogram's replication (8 copies, pitch 257 words) puts copy c of bin b in bank
    (c + b) mod 32: on the skewed input the 32 addresses of the 4 hot bins share 11
    banks, and the conflicts per shared atomic rose 0.39 -> 2.81 where the idea
    expected fewer lanes to meet. Per instruction, so that a step with more or fewer
    atomics compares like with like.
    """
    if not re.search(FEWER_LANES, idea, flags=re.IGNORECASE):
        return []
    per = []
    for row in (previous, after):
        conflicts, atoms = num(row, "smem_conflicts_atom"), num(row, "shared_atom_inst")
        if not (ok(conflicts) and ok(atoms) and atoms > 0):
            return []
        per.append(conflicts / atoms)
    p0, p1 = per
    if p1 <= 0 or p1 < CONFLICTS_ROSE * p0:
        return []
    return [
        Finding(
            "claim_more_conflicts",
            params={
                col.VARIANT: str(previous.get(col.VARIANT, "")),
                "per0": p0,
                "per1": p1,
            },
            metric="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
            before=p0,
            after=p1,
            value=p1 / p0 if p0 > 0 else float("inf"),
            threshold=CONFLICTS_ROSE,
        )
    ]
