"""An idea's claim about bank conflicts against the previous variant's replays.

The bundled ideas claim only what their counters show, so the rebuttal is checked on
ideas written for the test: a user's manifest may claim what the counters refute.
"""

import pytest

from nsightflow.diagnosis.claims import unsupported_claim
from nsightflow.diagnosis.expected import expected_mechanisms

REMOVES = "Sequential addressing: drops the shared-memory bank conflicts of v0."


@pytest.mark.parametrize(
    ("share", "rebutted"), [(0.02, True), (0.19, True), (0.20, False), (0.38, False)]
)
def test_a_claim_to_remove_bank_conflicts_is_rebutted_below_a_fifth_of_wavefronts(
    share, rebutted
):
    before = {"variant": "v0_interleaved", "smem_conflict_share": share}
    found = unsupported_claim(REMOVES, before, {"variant": "v1"})
    assert [f.rule for f in found] == (["claim_no_conflicts"] if rebutted else [])


def test_an_idea_that_adds_conflicts_is_not_rebutted():
    idea = "B's tile stored transposed (32-way conflicts); a deliberate regression."
    before = {"variant": "v1", "smem_conflict_share": 0.0}
    assert unsupported_claim(idea, before, {"variant": "v2"}) == []


@pytest.mark.parametrize(
    "idea",
    [
        "rows of 33 floats; the bank conflicts disappear",
        "float4 shared reads with fewer bank conflicts than v5's",
    ],
)
def test_an_idea_that_cuts_bank_conflicts_expects_fewer_replays(idea):
    assert "bank_conflicts" in expected_mechanisms(idea)
