"""What helps against a cause, checked against the launch it is said of (pure).

Each mechanism has one remedy sentence (``fix_<mechanism>``); where part of it would
ask for what the launch already does, another sentence is chosen:

- too few bytes in flight or a full load/store queue, where the loads are already
  16 bytes wide (at least :data:`WIDE_SECTORS` sectors per request, a warp's float4
  loads touch 16): more independent loads or more warps, not wider loads;
- busy issue slots whose instructions are mostly the FP32 work itself (at least
  :data:`WORK_SHARE` of the thread instructions FFMA, FADD or FMUL), or whose other
  instructions are named apart as instruction overhead: fewer FLOPs or tensor cores,
  not "fewer address instructions".
"""

from collections.abc import Mapping
from typing import Any

from nsightflow.diagnosis.efficiency import issue_split, work_share
from nsightflow.diagnosis.memory import measured_ratio
from nsightflow.diagnosis.model import ok

WIDE_SECTORS = 12.0  # load sectors per request from which a warp's loads are 16-byte
WORK_SHARE = 0.5  # FP32 arithmetic per thread instruction from which it is the work


def loads_wide(row: Mapping[str, Any]) -> bool:
    """The launch's global loads are already 16 bytes per lane (float4)."""
    spr = measured_ratio(row, "sectors_per_request")
    return ok(spr) and spr >= WIDE_SECTORS


def fix_key(row: Mapping[str, Any], mechanism: str) -> str:
    """The catalogue key of the remedy for ``mechanism`` on this launch."""
    if mechanism in ("bytes_in_flight", "lsu_queue") and loads_wide(row):
        return f"fix_{mechanism}_wide"
    if mechanism == "issue_bound":
        # with the overhead named apart, what stays issue-bound is the work itself
        work = work_share(row)
        if (ok(work) and work >= WORK_SHARE) or "instruction_overhead" in issue_split(
            row
        ):
            return "fix_issue_bound_work"
    return f"fix_{mechanism}"
