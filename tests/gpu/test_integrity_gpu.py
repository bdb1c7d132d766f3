"""Planted integrity cases on the GPU (marked; `pytest -m gpu` on the GPU machine).

tests/data/families/planted holds an honest y = 2x + 1, one kernel that returns at once
after its first launch at a grid size (verified, then timed doing nothing) and one that
adds 1 to its input on every launch (verified, then timed computing from a moved x).
The floor is worked out here: 8 bytes per element at the bundled H200 recording's
measured copy bandwidth.
"""

import json

import pandas as pd
import pytest
from test_gpu import FAULTY, ROOT, build_and_verify, nsightflow

from nsightflow.analysis import integrity

N = 16_777_216
COPY_GBPS = json.loads((ROOT / "examples/h200/ceilings.json").read_text())["copy_gbps"]
FLOOR_US = 8 * N / (COPY_GBPS * 1e3)  # about 32 us on the H200


def _timed(variant: str, tmp_path) -> dict[int, dict]:
    verified = build_and_verify(FAULTY, "planted", variant, tmp_path)
    assert verified["status"] == "ok", verified["message"]
    out = tmp_path / f"{variant}.time.json"
    nsightflow(
        "time",
        *("--kernels-dir", str(FAULTY), "--family", "planted", "--variant", variant),
        *("--cubin", str(tmp_path / f"{variant}.cubin")),
        *("--verify", str(tmp_path / f"{variant}.json"), "--out", str(out)),
    )
    return {r["size"]: r for r in json.loads(out.read_text())["rows"]}


@pytest.mark.gpu
def test_planted_kernels_are_caught_after_they_pass_verification(tmp_path):
    rows = {v: _timed(v, tmp_path)[N] for v in ("v0_naive", "v1_cheat", "v2_drift")}
    print(
        f"floor {FLOOR_US:.1f} us; medians: "
        + ", ".join(f"{v} {r['time_median_us']:.1f} us" for v, r in rows.items())
    )
    after = {v: r["verified_after"]["status"] for v, r in rows.items()}
    # the launch after timing starts from the outputs' initial fill: the cheat, which
    # returns at once by then, leaves it unwritten, so the recheck catches it as well
    changed = "changed_after_timing"
    assert after == {"v0_naive": "ok", "v1_cheat": changed, "v2_drift": changed}
    assert rows["v0_naive"]["time_median_us"] > FLOOR_US / integrity.FLOOR_SLACK
    assert rows["v1_cheat"]["time_median_us"] < FLOOR_US / integrity.FLOOR_SLACK
    frame = pd.DataFrame(
        [
            {
                "variant": v,
                "status": "ok",
                "time_median_us": r["time_median_us"],
                "gbps": 8 * N / (r["time_median_us"] * 1e3),
                "recheck_status": r["verified_after"]["status"],
                "recheck_message": r["verified_after"]["message"],
            }
            for v, r in rows.items()
        ]
    )
    below = integrity.below_floor(frame, {"copy_gbps": COPY_GBPS})
    assert [frame.loc[i, "variant"] for i in below] == ["v1_cheat"]  # the floor alone
    flagged = integrity.apply(frame, {"copy_gbps": COPY_GBPS}).set_index("variant")
    assert flagged["status"].to_dict() == {
        "v0_naive": "ok",
        "v1_cheat": changed,  # the recheck's reason is the one shown
        "v2_drift": changed,
    }
