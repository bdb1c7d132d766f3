"""A vendor library's rate is a ceiling only at the size it was measured at: the
ladder's library variant at each size it was timed, ceilings.json's own measurement
at the size its note names."""

import json
from pathlib import Path

import pandas as pd

from nsightflow.analysis.analyze import vendor_rates
from nsightflow.family.registry import load_family

ROOT = Path(__file__).resolve().parents[3]
SGEMM = load_family(ROOT / "kernels" / "sgemm")


def test_the_ceilings_measurement_counts_at_its_own_size_only(recording):
    ceilings = json.loads((recording / "ceilings.json").read_text())
    # no library variant timed: only n = 8192, where cupy's cuBLAS was measured
    frame = pd.DataFrame(
        {"variant": ["v7_double_buffer"] * 2, "size": [1024, 8192],
         "status": ["ok"] * 2, "gflops": [21000.0, 48000.0]}
    )  # fmt: skip
    assert vendor_rates(SGEMM, ceilings, frame) == {
        8192: ceilings["vendor_sgemm_gflops"]
    }


def test_the_ladder_s_library_variant_is_the_ceiling_at_each_size_it_was_timed(
    recording,
):
    ceilings = json.loads((recording / "ceilings.json").read_text())
    frame = pd.DataFrame(
        {"variant": ["v8_torch_matmul"] * 3 + ["v7_double_buffer"],
         "size": [1024, 4096, 8192, 4096], "status": ["ok"] * 4,
         "gflops": [33808.0, 51413.0, 51276.0, 48487.0]}
    )  # fmt: skip
    # timed as every variant is: its rate wins over cupy's at n = 8192 too
    assert vendor_rates(SGEMM, ceilings, frame) == {
        1024: 33808.0,
        4096: 51413.0,
        8192: 51276.0,
    }
    jacobi = load_family(ROOT / "kernels" / "jacobi2d")  # no vendor declared
    assert vendor_rates(jacobi, ceilings, frame) == {}
