"""A unit under the 60% bound never reads as at it: Jacobi-2D v1's L2 at 59.84%
printed "no unit reaches 60% of its peak (the busiest, L2, 60%)"."""

from nsightflow.diagnosis.limiter import limit
from nsightflow.diagnosis.record import render


def test_a_unit_just_under_the_bound_is_printed_under_it():
    row = {"profiled": True, "l2_throughput_pct": 59.84, "dram_throughput_pct": 40.0}
    found = limit(row)
    assert found is not None and found.rule == "limit_latency"
    text = render(found.rule, found.params)
    assert "59.8%" in text and "L2, 60%" not in text
