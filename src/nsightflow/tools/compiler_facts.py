"""What the compiler built for a kernel, read from its SASS and ptxas's resources (pure).

The advice must not ask for what the kernel already does, and a step must not be
credited with what nvcc had already done. Both are questions about the machine code,
not the source: a ``float4`` load is there when the SASS has ``LDG.E.128``; a warp's
atomics are already aggregated when nvcc elected one lane (``VOTEU.ANY`` + ``UFLO``)
to issue one ``RED`` per warp with the warp's total: ``REDUX.SUM`` of the values for
an integer ``atomicAdd(p, v)`` to a warp-uniform address, ``POPC`` of the active lanes
for ``atomicAdd(p, 1)``. It does neither for a float add. The SASS comes from ``nvdisasm -c`` of the variant's cubin
(:func:`cubin_sass`) or, in a replayed recording, from Nsight Compute's source page
(the parse stage's per-instruction table); the resources from ``ptxas -v``.

:func:`facts` reads, per kernel:

- the widest global and shared load and store, in bits (``LDG.E.128``: 128; a plain
  ``LDG.E``: 32);
- how many global loads the kernel body issues (static count: unrolled loads in
  flight show as several ``LDG`` of one loop);
- global atomics (``RED``/``REDG``/``ATOM``/``ATOMG``), and whether they are
  aggregated per warp by the compiler (a ``REDUX`` or an elected lane, ``UFLO``,
  before them); warp shuffles (``SHFL``) and ballots (``VOTE`` into a register,
  ``__ballot_sync``; the compiler's own vote is the uniform ``VOTEU``), the source's
  own aggregation;
- FP64 instructions (``DFMA``, ``DADD``, ... and any with an ``.F64`` type, such
  as ``F2F.F64.F32``) and ``MUFU`` instructions;
- local memory: ``LDL``/``STL`` with ptxas's spill bytes at 0 and a stack frame is a
  *local array* (an array indexed at run time lives on the stack); with spill bytes
  it is a *spill*;
- registers per thread and the resident warps per SM those registers allow (65536
  registers per SM in four partitions of 16384, given to a warp in units of 256:
  sm_80/sm_90; 38 registers -> 1280 per warp -> 12 warps per partition -> 48).
"""

import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.tools.sass import opcode

REGISTERS_PER_PARTITION = 16384  # 65536 per SM, in 4 scheduler partitions
PARTITIONS = 4
REGISTER_UNIT = 256  # registers are given to a warp in units of 256 (8 per thread)
MAX_WARPS_PER_SM = 64  # sm_80/sm_90
_WIDTH = re.compile(r"\.(128|64|U8|S8|U16|S16)\b")
_BITS = {"128": 128, "64": 64, "U8": 8, "S8": 8, "U16": 16, "S16": 16}
_PREDICATE = re.compile(r"^@!?U?P(?:T|\d+)\s+")
_FP64 = ("DFMA", "DADD", "DMUL", "DSETP", "DMNMX")
_ATOMICS = ("RED", "REDG", "ATOM", "ATOMG")
TIMEOUT_S = 60


@dataclass(frozen=True)
class CompilerFacts:
    """What one kernel's machine code does (see the module docstring)."""

    ldg_bits: int = 0
    stg_bits: int = 0
    lds_bits: int = 0
    sts_bits: int = 0
    global_loads: int = 0
    atomics: int = 0
    redux: int = 0
    elect: int = 0  # UFLO: a lane elected to issue the warp's one atomic
    shuffles: int = 0
    ballots: int = 0
    fp64: int = 0
    mufu: int = 0
    local_ops: int = 0
    local: str = ""  # "", "local_array" or "spill"
    stack_frame_bytes: int = 0
    spill_bytes: int = 0
    registers: int = 0
    warps_by_registers: int = 0

    @property
    def atomics_aggregated(self) -> bool:
        """Whether each warp's atomic is issued once, by an elected lane, with its total."""
        return self.atomics > 0 and (self.redux > 0 or self.elect > 0)

    @property
    def source_aggregation(self) -> int:
        """Warp shuffles and ballots: the aggregation the source writes itself."""
        return self.shuffles + self.ballots

    def as_dict(self) -> dict[str, Any]:
        """The facts as context.json keeps them."""
        return {
            **asdict(self),
            "atomics_aggregated": self.atomics_aggregated,
            "source_aggregation": self.source_aggregation,
        }


def mnemonic(sass: str) -> str:
    """The opcode with its modifiers, without a predicate: ``LDG.E.128``."""
    return _PREDICATE.sub("", sass.strip()).split(" ", 1)[0]


def width(sass: str) -> int:
    """Bits per lane of a load or store: ``LDG.E.128`` -> 128, ``LDS.U8`` -> 8."""
    found = _WIDTH.search(mnemonic(sass))
    return _BITS[found.group(1)] if found else 32


def warps_by_registers(registers: int) -> int:
    """Resident warps per SM that ``registers`` per thread allow (at most 64)."""
    if registers <= 0:
        return 0
    per_warp = -(-registers * 32 // REGISTER_UNIT) * REGISTER_UNIT
    return min(MAX_WARPS_PER_SM, PARTITIONS * (REGISTERS_PER_PARTITION // per_warp))


def facts(sass: Iterable[str], resources: Mapping[str, Any]) -> CompilerFacts:
    """The facts of one kernel from its instructions and ptxas's resources."""
    widths: dict[str, int] = {"LDG": 0, "STG": 0, "LDS": 0, "STS": 0}
    counts = dict.fromkeys(
        ("LDG", "atomic", "REDUX", "UFLO", "SHFL", "VOTE", "fp64", "MUFU", "local"), 0
    )
    for text in sass:
        op = opcode(text)
        if op in widths:
            widths[op] = max(widths[op], width(text))
        if op == "LDG":
            counts["LDG"] += 1
        elif op in _ATOMICS:
            counts["atomic"] += 1
        elif op in ("LDL", "STL"):
            counts["local"] += 1
        elif op in ("REDUX", "UFLO", "MUFU", "SHFL", "VOTE"):
            counts[op] += 1
        if op in _FP64 or ".F64" in mnemonic(text):
            counts["fp64"] += 1
    spill = int(resources.get("spill_store_bytes") or 0) + int(
        resources.get("spill_load_bytes") or 0
    )
    stack = int(resources.get("stack_frame_bytes") or 0)
    local = ""
    if counts["local"]:
        local = "spill" if spill else ("local_array" if stack else "spill")
    registers = int(resources.get(col.REGISTERS) or 0)
    return CompilerFacts(
        ldg_bits=widths["LDG"],
        stg_bits=widths["STG"],
        lds_bits=widths["LDS"],
        sts_bits=widths["STS"],
        global_loads=counts["LDG"],
        atomics=counts["atomic"],
        redux=counts["REDUX"],
        elect=counts["UFLO"],
        shuffles=counts["SHFL"],
        ballots=counts["VOTE"],
        fp64=counts["fp64"],
        mufu=counts["MUFU"],
        local_ops=counts["local"],
        local=local,
        stack_frame_bytes=stack,
        spill_bytes=spill,
        registers=registers,
        warps_by_registers=warps_by_registers(registers),
    )


_FUNCTION = re.compile(r"^\s*\.text\.(\S+):")
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+([^;]*);")


def split_functions(listing: str) -> dict[str, list[str]]:
    """``nvdisasm -c`` output as each function's instruction texts, in order."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in listing.splitlines():
        head = _FUNCTION.match(line)
        if head:
            current = head.group(1)
            out.setdefault(current, [])
            continue
        found = _INSTRUCTION.match(line)
        if found and current:
            out[current].append(found.group(1).strip())
    return out


def cubin_sass(cubin: Path, nvdisasm: str) -> dict[str, list[str]]:
    """Each kernel's SASS in ``cubin``, from ``nvdisasm -c``.

    Raises:
        RuntimeError: nvdisasm failed (its message, naming the cubin).
    """
    done = subprocess.run(
        [nvdisasm, "-c", str(cubin)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{cubin}: nvdisasm failed: {done.stderr.strip()[:300]}")
    return split_functions(done.stdout)
