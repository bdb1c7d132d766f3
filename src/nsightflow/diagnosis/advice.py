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

import math
import re
from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.efficiency import issue_split, work_share
from nsightflow.diagnosis.launch_state import busy_sm_share
from nsightflow.diagnosis.memory import measured_ratio
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg
from nsightflow.diagnosis.variant_facts import bounds_args, register_cap
from nsightflow.i18n import CATALOGUE

WIDE_SECTORS = 12.0  # load sectors per request from which a warp's loads are 16-byte
WORK_SHARE = 0.5  # FP32 arithmetic per thread instruction from which it is the work


def loads_wide(row: Mapping[str, Any]) -> bool:
    """The launch's global loads are already 16 bytes per lane (float4)."""
    spr = measured_ratio(row, "sectors_per_request")
    return ok(spr) and spr >= WIDE_SECTORS


# remedies whose sentence offers more resident warps, and that sentence without them
WARPS_IN_FIX = frozenset({"bytes_in_flight", "bytes_in_flight_wide", "memory_latency"})


def warp_room(row: Mapping[str, Any]) -> float:
    """The most more resident warps can multiply the bytes in flight by (NaN: unknown).

    Little's law: at a fixed latency the bytes in flight per SM scale at most with the
    resident warps, so a launch at ``achieved_occupancy_pct`` can gain at most
    ``100 / achieved`` from more of them (histogram v1 at 89%: 1.12x).
    """
    occupancy = measured_ratio(row, "achieved_occupancy_pct")
    return 100.0 / occupancy if ok(occupancy) and occupancy > 0 else math.nan


def warps_can_give(row: Mapping[str, Any], gain: float) -> bool:
    """More resident warps alone could give ``gain`` (True where either is unknown)."""
    room = warp_room(row)
    return not (ok(room) and ok(gain)) or room >= gain


def one_wave(row: Mapping[str, Any]) -> bool:
    """All the launch's blocks are resident at once (at most one wave per SM).

    Histogram's grid-stride loops run 1,056 blocks on 132 SMs, 1.0 waves: each block
    already lives the whole launch, so "longer-lived blocks" is what it does.
    """
    waves = measured_ratio(row, "waves_per_sm")
    return ok(waves) and 0 < waves <= 1.0


def fix_key(row: Mapping[str, Any], mechanism: str, gain: float = math.nan) -> str:
    """The catalogue key of the remedy for ``mechanism`` on this launch.

    A remedy that offers more resident warps drops them where they could not give
    the suggestion's ``gain`` (:func:`warps_can_give`).
    """
    key = f"fix_{mechanism}"
    if mechanism in ("bytes_in_flight", "lsu_queue") and loads_wide(row):
        key = f"fix_{mechanism}_wide"
    if key.removeprefix("fix_") in WARPS_IN_FIX and not warps_can_give(row, gain):
        return f"{key}_resident"
    if key != f"fix_{mechanism}":
        return key
    if mechanism == "idle_sms" and one_wave(row):
        return "fix_idle_sms_one_wave"
    if mechanism == "dram_bandwidth" and dram_at_ideal(row):
        stencil = num(row, "ai_ideal") >= STENCIL_AI
        return "fix_dram_bandwidth_ideal" + ("_stencil" if stencil else "")
    if mechanism == "issue_bound":
        # with the overhead named apart, what stays issue-bound is the work itself
        work = work_share(row)
        if (ok(work) and work >= WORK_SHARE) or "instruction_overhead" in issue_split(
            row
        ):
            return "fix_issue_bound_work"
    return f"fix_{mechanism}"


AT_IDEAL = 1.1  # DRAM bytes within this factor of the ideal ones: none to save
# ideal FLOP per byte from which a pass combines several neighbours (a stencil, whose
# sweeps repeat on their own output: Jacobi-2D 0.62); a sum (0.25) or an elementwise
# add (0.08) is one pass over its data, with nothing to iterate
STENCIL_AI = 0.5


def dram_at_ideal(row: Mapping[str, Any]) -> bool:
    """The launch moves about the ideal bytes through DRAM: fewer cannot move.

    Reduction v4 at 2^24: 67.1 MB of 67.1 MB ideal, at 80% of the copy bandwidth;
    "move fewer bytes" is no remedy there, the rest of its time is per launch.
    """
    moved, ideal = num(row, "dram_bytes"), num(row, "ideal_bytes")
    return ok(moved) and ok(ideal) and ideal > 0 and moved <= AT_IDEAL * ideal


WIDE_BITS = 128  # LDG.E.128: a lane's float4
# registers per thread from which a larger thread tile does not fit (255 is the most
# a thread can have; three quarters of it leaves no room to double the outputs)
REGISTER_ROOM = 192
# a source that lays its threads out by warp (lane and warp indices from the thread
# index): its block tile is already split into warp tiles
WARP_LAYOUT = re.compile(r"\b(?:tid|threadIdx\.x)\s*[/%]\s*32\b")


def warp_tiled(source: str) -> bool:
    """The kernel's source computes each thread's lane and warp (a warp tile)."""
    return bool(WARP_LAYOUT.search(source)) and bool(re.search(r"\blane\b", source))


SHARED_WAITS = 0.5  # short_scoreboard + mio_throttle cycles per instruction to hide


def vendor_rate_fix(
    fix: Mapping[str, Any],
    source: str,
    tensor: bool = True,
    row: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the library does beyond the kernel, less what its source already does.

    SGEMM v7 computes ``lane = tid % 32, warp = tid / 32`` and lays each warp out as
    32/WN x WN threads: its warp tile is there, and is not advised again. 3xTF32
    tensor cores only where the family's tolerance allows them (``tensor``). The
    next k slice's fragments read during the FMAs hide shared-memory waits: where
    the ``row``'s (cycles per instruction) are under :data:`SHARED_WAITS` (v7:
    0.15 + 0.01) there are none to hide, and FP32 leaves nothing named to do.
    """
    stalls = ("stall_short_scoreboard", "stall_mio_throttle")
    waits = sum(num(row, k) for k in stalls) if row is not None else math.nan
    waits = waits if ok(waits) else math.inf  # unmeasured: the advice stands
    warps = warp_tiled(source)
    if warps and not tensor and waits < SHARED_WAITS:
        return {"@": "advice_fix_vendor_rate_done", "fix": fix, "waits": waits}
    key = "advice_fix_vendor_rate_warps" if warps else "advice_fix_vendor_rate"
    return {"@": key if tensor else f"{key}_fp32", "fix": fix}


# TF32's unit roundoff: 10 explicit mantissa bits, so about 5e-4 relative error per
# input. A family whose tolerance is tighter (SGEMM's 1e-5, against an FP32 sum's
# 1.6e-6 at n = 8192) computes in FP32: tensor cores would change its arithmetic.
TF32_ROUNDOFF = 2.0**-11
TENSOR_OK = "tensor_ok"  # the compiled facts' key: the family's tolerance allows TF32


def tensor_allowed(family: Mapping[str, Any]) -> bool:
    """The family's tolerance admits TF32 tensor cores (True where it has none)."""
    tolerance = num(family, "tolerance")
    return not ok(tolerance) or tolerance >= TF32_ROUNDOFF


IN_FLIGHT = 2  # global loads the kernel issues, from which several are in flight
# achieved occupancy from which more warps are not the remedy where the gain they
# must give is not known: 100 / 75 = 1.33x, more than any one step of the bundled
# ladders gained from occupancy alone
RESIDENT_PCT = 75.0


def already_done(
    kind: str,
    row: Mapping[str, Any],
    compiled: Mapping[str, Any],
    gain: float = math.nan,
) -> bool:
    """Whether every change the remedy of ``kind`` asks for is already in the launch.

    More bytes in flight (``bytes_in_flight``, ``lsu_queue``) means 16-byte loads,
    several loads in flight and more resident warps: a kernel whose SASS loads with
    ``LDG.E.128``, issues at least :data:`IN_FLIGHT` global loads and keeps
    :data:`RESIDENT_PCT` of its warps resident has all three, and what stays is the
    launch and ramp cost, not a change to its loads. Low occupancy is done where the
    achieved occupancy is already that high, and has no remedy on a grid of fewer
    blocks than SMs (:func:`~nsightflow.diagnosis.launch_state.busy_sm_share`). Where the suggestion's ``gain`` is
    known, the warps are resident enough where more of them could not give it
    (:func:`warps_can_give`), else from :data:`RESIDENT_PCT`.
    """
    occupancy = measured_ratio(row, "achieved_occupancy_pct")
    if ok(gain):
        resident = ok(occupancy) and not warps_can_give(row, gain)
    else:
        resident = ok(occupancy) and occupancy >= RESIDENT_PCT
    if kind in ("bytes_in_flight", "lsu_queue", "memory_latency"):
        wide = int(compiled.get("ldg_bits") or 0) >= WIDE_BITS or loads_wide(row)
        several = int(compiled.get("global_loads") or 0) >= IN_FLIGHT
        return wide and several and resident
    if kind == "low_occupancy":  # under one wave an SM holds one block or none
        return resident or busy_sm_share(row) < 1.0
    return False


SHARED_TREE = "shared_tree"  # the compiled facts' key: the source sums a shared tree
# a loop whose stride doubles or halves, a barrier per step: a tree in shared memory
TREE_STEP = re.compile(r"\bfor\s*\([^)]*(?:[*/]=\s*2|>>=\s*1|<<=\s*1)[^)]*\)")


def shared_tree(source: str, compiled: Mapping[str, Any]) -> bool:
    """The kernel sums in a shared-memory tree, with no warp shuffles (reduction v0)."""
    tree = bool(TREE_STEP.search(source)) and "__syncthreads" in source
    return tree and not int(compiled.get("shuffles") or 0)


def aggregation_how(compiled: Mapping[str, Any]) -> dict[str, Any]:
    """How nvcc summed a warp before its atomic: ``REDUX`` of values or ``POPC`` of lanes."""
    return {
        "@": "compiler_how_redux"
        if int(compiled.get("redux") or 0)
        else "compiler_how_popc"
    }


def atomics_fix(compiled: Mapping[str, Any]) -> dict[str, Any]:
    """Fewer atomics on the hot address, in the terms of what nvcc already did."""
    if compiled.get("atomics_aggregated"):
        return {"@": "advice_fix_atomics_aggregated", "how": aggregation_how(compiled)}
    return {"@": "advice_fix_atomics"}


PER_BLOCK_MAX = 2.0  # L2 atomic sectors per block up to which it adds once per block


def blocks_per_atomic(row: Mapping[str, Any]) -> float:
    """L2 atomic sectors per block where the kernel adds once per block (else NaN).

    hotatomic ``v2``: 24,837 L2 atomic sectors for 16,384 blocks (1.5 each; its
    busiest slice holds one per block, 16,384): aggregating per block is what the
    kernel does, so its remedy is fewer blocks or per-block partials.
    """
    count, blocks = num(row, "l2_atomic_sectors"), num(row, "grid_blocks")
    per = count / blocks if ok(count) and ok(blocks) and blocks > 0 else math.nan
    return per if ok(per) and 0 < per <= PER_BLOCK_MAX else math.nan


def fix_message(
    kind: str,
    row: Mapping[str, Any],
    compiled: Mapping[str, Any],
    gain: float = math.nan,
) -> dict[str, Any]:
    """The remedy of ``kind`` as a message, in the terms of what the compiler built."""
    if kind == "local_memory" and compiled.get("local") == "local_array":
        return {
            "@": "advice_fix_local_array",
            "frame": int(compiled.get("stack_frame_bytes") or 0),
        }
    if kind == "global_atomics":
        per = blocks_per_atomic(row)
        if ok(per):
            return {"@": "advice_fix_atomics_per_block", "per": per}
        return atomics_fix(compiled)
    if kind == "low_occupancy" and int(compiled.get(col.REGISTERS) or 0) > 0:
        bounds = str(compiled.get(LAUNCH_BOUNDS) or "")
        key = "advice_fix_registers"
        if bounds:  # the source's own cap: one argument sets no minimum of blocks
            key += "_capped" if _args(bounds) >= 2 else "_no_minimum"
        return {
            "@": key,
            col.REGISTERS: int(compiled[col.REGISTERS]),
            "warps": int(compiled.get("warps_by_registers") or 0),
            "bounds": bounds,
        }
    if kind == "shared_pipe" and compiled.get(SHARED_TREE):
        return {"@": "advice_fix_shared_tree"}
    if kind == "dispatch" and _wide_memory(compiled):
        # SGEMM v7 loads with LDG.E.128 and reads shared memory with LDS.128: the
        # "wider instructions" of the generic remedy are already there; its 16x8
        # outer product already reuses its operands from registers, and at 231 of
        # 255 registers per thread there is no room for a larger thread tile
        regs = int(compiled.get(col.REGISTERS) or 0)
        if regs >= REGISTER_ROOM:
            return {"@": "advice_fix_dispatch_full", col.REGISTERS: regs}
        return {"@": "advice_fix_dispatch_wide"}
    key = fix_key(row, kind, gain)
    if key == "fix_issue_bound_work" and not compiled.get(TENSOR_OK, True):
        return {"@": "fix_issue_bound_work_fp32"}
    loads = int(compiled.get("global_loads") or 0)
    several = SEVERAL_LOADS <= loads <= MANY_LOADS
    if key in NARROW_FIXES and several and reads_once(row):
        # reduction v2 already adds four independent loads per loop iteration
        return {"@": key.replace("_in_flight", "_in_flight_loads"), "loads": loads}
    return {"@": key if key in CATALOGUE else "advice_fix_generic"}


# global loads in the SASS from which "several independent loads per thread" is
# done: four 4-byte loads keep a float4's 16 bytes in flight per thread (reduction
# v2's grid-stride loop, 5 with its tail; v0's two loads before its tree are not)
SEVERAL_LOADS = 4
# above it the SASS count is a pooled or unrolled one (SpMV v7's two kernels: 87) that
# does not say how many loads a thread has in flight at once
MANY_LOADS = 16
REREADS = 2.0  # L1 requests over DRAM bytes from which the loads re-read their data


def reads_once(row: Mapping[str, Any]) -> bool:
    """The loads bring distinct data: L1 is asked for under :data:`REREADS` x DRAM.

    Jacobi-2D v0's five loads per point are one new value and four neighbours the
    caches hold (L1 asked for about 5x its DRAM bytes): more points per thread, not
    its five loads, put more new bytes in flight.
    """
    l1, dram = num(row, "l1_bytes_moved"), num(row, "dram_bytes")
    return ok(l1) and ok(dram) and dram > 0 and l1 < REREADS * dram


# the remedies of narrow loads that offer several independent loads per thread
NARROW_FIXES = frozenset({"fix_bytes_in_flight", "fix_bytes_in_flight_resident"})


LAUNCH_BOUNDS = "launch_bounds"  # the compiled facts' key of the source's cap


def _args(bounds: str) -> int:
    """The arguments of a cap: 2 for ``-maxrregcount`` (it caps), else its commas'."""
    if bounds.startswith("-maxrregcount"):
        return 2
    return len(bounds_args(bounds))


def _wide_memory(compiled: Mapping[str, Any]) -> bool:
    """The SASS loads global memory, and shared memory if any, 16 bytes per lane."""
    ldg, lds = int(compiled.get("ldg_bits") or 0), int(compiled.get("lds_bits") or 0)
    return ldg >= WIDE_BITS and lds in (0, WIDE_BITS)


def grid_fix(
    variant: Mapping[str, Any], family: Mapping[str, Any], blocks: int, sms: int
) -> dict[str, Any]:
    """The grid fix in the kernel's terms: its tile, and split-K for a k loop."""
    params = variant.get(col.PARAMS) or {}
    tile = (
        msg("advice_tile", bm=params["BM"], bn=params["BN"])
        if "BM" in params and "BN" in params
        else msg("advice_tile_none")
    )
    k_loop = "n**3" in str(family.get("flops", "")).replace(" ", "")
    return msg(
        "advice_fix_grid_k" if k_loop else "advice_fix_grid",
        blocks=blocks,
        sms=sms,
        idle=round(100 * (1 - blocks / sms)),
        tile=tile,
    )


def idle_issue_gain(row: Mapping[str, Any]) -> float:
    """The most busier issue slots can give: 100 / their busy % (inf: not known).

    An FP32 kernel whose issued instructions are mostly its FMAs keeps them all; what
    it can gain is the cycles its slots sit idle. SGEMM v7 at n = 1024 issues in 75%
    of them: 1.33x at most, where the launch without the FMAs' share read 1.56x.
    """
    busy = num(row, "issue_pct")
    return 100.0 / busy if ok(busy) and busy > 0 else math.inf


def compiled_facts(
    variant: Mapping[str, Any], source: str, family: Mapping[str, Any]
) -> dict[str, Any]:
    """The variant's compiler facts with what its source and family add to them.

    The source's register cap (:data:`LAUNCH_BOUNDS`), whether it sums a shared
    tree (:data:`SHARED_TREE`) and whether the family's tolerance admits TF32
    (:data:`TENSOR_OK`).
    """
    compiled = variant.get("compiler") or {}
    return {
        **compiled,
        LAUNCH_BOUNDS: register_cap(source),
        SHARED_TREE: shared_tree(source, compiled),
        TENSOR_OK: tensor_allowed(family),
    }
