"""What memory a SASS instruction accesses, read from its opcode (pure).

The hotspots (:mod:`nsightflow.analysis.hotspots`) need two facts per instruction that
warp samples alone do not give: which lines hold the kernel's global stores (where
``drain`` samples at the exit come from) and what kind of access a line makes (so a
finding about stores names a line with a store, never an unrelated one). The opcode
says both. Kinds (:data:`KINDS`):

- ``global_load``: ``LDG``, ``LD`` (generic addresses, global in these kernels),
  ``LDGSTS`` (an asynchronous copy global -> shared: also a ``shared_store``),
  ``UTMALDG`` (a TMA tile load);
- ``global_store``: ``STG``, ``ST`` (generic), ``UTMASTG`` (a TMA tile store);
- ``global_atomic``: ``ATOMG``, ``ATOM`` (generic), ``REDG`` and ``RED`` (a
  reduction, no value returned; sm_90 writes ``REDG``);
- ``shared_load`` (``LDS``, ``LDSM``), ``shared_store`` (``STS``), ``shared_atomic``
  (``ATOMS``), ``local`` (``LDL``, ``STL``: spills and local arrays), ``barrier``
  (``BAR``);
- ``branch``: a predicated ``BRA`` (``@P0 BRA``: an ``if``, its ``else``, a loop's
  back-edge), kept so that the line of a divergent branch is known even where the
  branch itself was never sampled;
- ``exit``: ``EXIT``, and the instruction right after an ``EXIT``: a warp that
  retired its ``EXIT`` is sampled at the next PC (the trailing ``BRA`` to itself, or
  whatever follows a predicated ``EXIT``) while it waits in ``drain`` for its memory
  operations to finish. That instruction keeps its own kinds too (the warps that did
  not exit execute it); only ``drain`` samples there are the exited warps'.

:data:`GLOBAL_WRITES` are the kinds a warp can leave outstanding when it exits: a load's
value is used before the kernel ends (or the compiler removes the load), a store's or
reduction's is not waited for.
"""

import re
from collections.abc import Iterable

KINDS: tuple[str, ...] = (
    "global_load",
    "global_store",
    "global_atomic",
    "shared_load",
    "shared_store",
    "shared_atomic",
    "local",
    "barrier",
    "branch",
    "exit",
)
GLOBAL_WRITES: frozenset[str] = frozenset({"global_store", "global_atomic"})
_BY_OPCODE: dict[str, tuple[str, ...]] = {
    "LDG": ("global_load",),
    "LD": ("global_load",),
    "LDGSTS": ("global_load", "shared_store"),
    "UTMALDG": ("global_load",),
    "STG": ("global_store",),
    "ST": ("global_store",),
    "UTMASTG": ("global_store",),
    "ATOMG": ("global_atomic",),
    "ATOM": ("global_atomic",),
    "RED": ("global_atomic",),
    "REDG": ("global_atomic",),
    "LDS": ("shared_load",),
    "LDSM": ("shared_load",),
    "STS": ("shared_store",),
    "ATOMS": ("shared_atomic",),
    "LDL": ("local",),
    "STL": ("local",),
    "BAR": ("barrier",),
    "EXIT": ("exit",),
}
_PREDICATE = re.compile(r"^@!?U?P(?:T|\d+)\s+")
SEPARATOR = ";"  # between the kinds of one instruction or line in a table cell


def opcode(sass: str) -> str:
    """The base opcode of an instruction: ``@!P0 STG.E desc[..], R7`` -> ``STG``."""
    text = _PREDICATE.sub("", sass.strip())
    return text.split(" ", 1)[0].split(".", 1)[0] if text else ""


def kinds(sass: str) -> tuple[str, ...]:
    """The memory kinds of one instruction (empty: it accesses no memory)."""
    op = opcode(sass)
    if op == "BRA" and _PREDICATE.match(sass.strip()):
        return ("branch",)
    return _BY_OPCODE.get(op, ())


def function_kinds(sass: Iterable[str]) -> list[tuple[str, ...]]:
    """Kinds of each instruction of a function in address order, the exit path marked.

    The instruction right after an ``EXIT`` is ``exit`` too, besides its own kinds
    (see the module docstring).
    """
    out: list[tuple[str, ...]] = []
    after_exit = False
    for text in sass:
        found = kinds(text)
        if after_exit and "exit" not in found:
            found = (*found, "exit")
        out.append(found)
        after_exit = opcode(text) == "EXIT"
    return out


def joined(found: Iterable[str]) -> str:
    """Kinds as one table cell, in :data:`KINDS` order, each once."""
    wanted = set(found)
    return SEPARATOR.join(k for k in KINDS if k in wanted)


def split(cell: object) -> set[str]:
    """The kinds of a table cell written by :func:`joined` (empty for NaN or '')."""
    return set(cell.split(SEPARATOR)) - {""} if isinstance(cell, str) else set()
