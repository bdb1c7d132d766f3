"""The instruction mix of a launch from its sampled SASS, and the line of its divergent
branch, on constructed per-instruction rows (the parse stage's source table)."""

import pandas as pd
import pytest

from nsightflow.analysis.mix import branch_line, launch_mix, op_class

BASE = 0x7F34037A0000


@pytest.mark.parametrize(
    ("sass", "kind"),
    [
        ("FFMA R4, R4, 0.999, R5", "fp32"),
        ("DFMA R4, R6, 0.25, R4", "fp64"),
        ("F2F.F64.F32 R4, R8", "fp64"),
        ("F2F.F32.F64 R8, R4", "fp64"),
        ("F2I.TRUNC R3, R2", "other"),
        ("MUFU.EX2 R5, R4", "mufu"),
        ("MUFU.RCP64H R7, R5", "fp64"),
        ("SHFL.BFLY PT, R5, R4, 0x10, 0x1f", "shuffle"),
        ("@!P0 LDS R4, [R2]", "shared"),
        ("LDG.E.CONSTANT R7, desc[UR4][R4.64]", "global"),
        ("STL [R1], R4", "local"),
        ("@P0 BRA 0x7f34037a0390", "branch"),
        ("IMAD R3, R2, R5, R4", "other"),
    ],
)
def test_each_opcode_has_its_class(sass, kind):
    assert op_class(sass) == kind


def _rows(spec):
    """Instruction rows: (pc, sass, line, source, reason, samples)."""
    return pd.DataFrame(
        [
            {"pc": pc, "sass": sass, "file": "v0.cu", "line": line, "source": text,
             "reason": reason, "samples": n, "launch": 0}
            for pc, sass, line, text, reason, n in spec
        ]
    )  # fmt: skip


# diverge's v0_lane_split as nvdisasm shows it: the if's branch at 0x130, a loop in each
# branch (back-edges at 0x3b0 and 0x670), the jump over the else, the self-branch after
# EXIT; the FFMAs of the else loop hold the most samples
DIVERGENT = [
    (0x0B0, "LDG.E.CONSTANT R7, desc[UR4][R4.64]", 8, "float v = x[i];", "", 0),
    (0x130, f"@P0 BRA `(.L_x_1) {BASE + 0x400:#x}", 9, "if (threadIdx.x & 1) {", "", 0),
    (0x200, "FFMA R4, R4, 0.999, R5", 18, "", "selected", 40),
    (0x3B0, f"@P0 BRA `(.L_x_2) {BASE + 0x180:#x}", 18, "", "", 0),
    (0x3F0, f"BRA `(.L_x_3) {BASE + 0x6B0:#x}", 11, "} else {", "", 0),
    (0x500, "FFMA R4, R4, 1.001, R5", 20, "", "selected", 45),
    (0x500, "FFMA R4, R4, 1.001, R5", 20, "", "not_selected", 30),
    (0x670, f"@P0 BRA `(.L_x_4) {BASE + 0x440:#x}", 20, "", "", 0),
    (0x6F0, "STG.E desc[UR4][R2.64], R5", 14, "y[i] = v;", "", 0),
    (0x700, "EXIT", 14, "y[i] = v;", "", 0),
    (0x710, f"BRA `(.L_x_5) {BASE + 0x710:#x}", 14, "y[i] = v;", "drain", 2),
]


def test_the_divergent_branch_is_the_nearest_forward_one_before_the_hot_code():
    assert branch_line(_rows(DIVERGENT), {}) == (9, "if (threadIdx.x & 1) {")


def test_no_branch_line_without_a_condition_or_a_known_function_start():
    # a loop's back-edge only: no forward branch before the hot code
    loop = [r for r in DIVERGENT if r[0] not in (0x130,)]
    assert branch_line(_rows(loop), {}) is None
    # the branch's line does not read as a condition (a loop guard): not cited
    guard = [
        (*r[:3], "for (int k = 0; k < m; ++k)", *r[4:]) if r[0] == 0x130 else r
        for r in DIVERGENT
    ]
    assert branch_line(_rows(guard), {}) is None
    no_exit = [r for r in DIVERGENT if r[0] != 0x710]  # no self-branch: no base
    assert branch_line(_rows(no_exit), {}) is None


def test_the_branch_text_comes_from_the_file_where_the_report_has_none():
    rows = _rows([(*r[:3], "", *r[4:]) for r in DIVERGENT])
    lines = ["// v0", *[""] * 7, "if (threadIdx.x & 1) {"]
    assert branch_line(rows, {"v0.cu": lines}) == (9, "if (threadIdx.x & 1) {")


def test_the_mix_is_the_share_of_issue_samples_by_class():
    rows = _rows(
        [
            (0x10, "FFMA R1, R2, R3, R4", 5, "", "selected", 60),
            (0x20, "SHFL.BFLY PT, R5, R4, 0x10, 0x1f", 6, "", "selected", 30),
            (0x20, "SHFL.BFLY PT, R5, R4, 0x10, 0x1f", 6, "", "mio_throttle", 500),
            (0x30, "IADD3 R1, R2, R3, RZ", 7, "", "selected", 10),
        ]
    )
    mix = launch_mix(rows)
    assert mix["mix_fp32"] == pytest.approx(0.6)
    assert mix["mix_shuffle"] == pytest.approx(0.3)  # issue samples, not its stalls
    assert mix["line_shuffle"] == 6 and mix["line_fp64"] == 0
