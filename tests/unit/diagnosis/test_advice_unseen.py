"""What the compiler built, said where a cause needs it, on H200-recorded families.

The ``window`` family of tests/data/h200_unseen (measured on the H200, 2026-12-01):
v0 keeps a 16-float window per thread indexed at run time, which ptxas puts on the
stack (a 64-byte frame, 0 spill bytes). Its baseline cause is local memory at line
14; the report must say it is a local array, not a register spill.
"""

import pandas as pd

from recorded import ROOT, analyze_measured

UNSEEN = ROOT / "tests" / "data" / "h200_unseen"
FAMILIES = ROOT / "tests" / "data" / "diagnosis_families"


def test_a_local_array_cause_is_named_a_local_array_with_its_line(tmp_path):
    out = analyze_measured(UNSEEN, "window", FAMILIES, tmp_path)
    found = pd.read_csv(out / "findings.csv")
    base = found[
        (found["section"] == "baseline") & (found["variant"] == "v0_local_window")
    ]
    primary = base[base["role"] == "primary"]
    assert (
        primary["rule"].tolist() == ["local_memory"] and primary["line"].iloc[0] == 14
    )
    local = base[base["rule"] == "compiled_local_array"]
    assert len(local) == 1 and local["role"].iloc[0] == "info"
    text = local["message"].iloc[0]
    assert "array indexed at run time, not a register spill" in text
    assert "64-byte stack frame and 0 spill bytes" in text and "line 14" in text
    # the step that moved it to registers says whose local memory it removed
    step = found[
        (found["section"] == "step") & (found["variant"] == "v1_register_window")
    ]
    moved = step[step["rule"] == "compiled_local_array"]
    assert not moved.empty
    assert moved["message"].str.startswith("`v0_local_window`'s local memory").all()
