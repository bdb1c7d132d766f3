"""The ceilings stage on the GPU (marked; `pytest -m gpu` on the GPU machine).

A level nearer the SMs is at least as fast as the one behind it: the L2 serves
reads faster than the device copies DRAM to DRAM, and an SM's L1 and shared memory
faster than the L2. Each bound is a physical order, not a number of this run.
"""

import json

import pytest
from test_gpu import nsightflow


@pytest.mark.gpu
def test_the_hierarchy_reads_faster_at_each_level_nearer_the_sms(tmp_path):
    out = tmp_path / "ceilings.json"
    printed = nsightflow("ceilings", "--out", str(out)).stdout
    c = json.loads(out.read_text())
    print(printed)
    assert c["l2_gbps"] > c["copy_gbps"], c
    assert c["l1_gbps"] > c["l2_gbps"], c
    assert c["shared_gbps"] > c["l2_gbps"], c
    assert "read: L2" in printed
