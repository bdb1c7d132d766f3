"""The bounds an ``.ncu-rep`` is loaded within (:func:`nsightflow.tools.ncu_report_io.load_context`).

A report is refused by its size before a byte is read; a large one is first
loaded in a child process held to memory and time limits; a loaded one must have
a kernel name for every launch (a truncated file loads, its last launches empty).
Each refusal is one line naming the file.
"""

import atexit
import lzma
import shutil
import tempfile
from pathlib import Path
from typing import Any

from nsightflow.errors import ReportParseError

# ncu_report reads a whole report into memory (1.3 MB of memory for the bundled
# recording's largest, 1.1 MB: sgemm's v7 at two sizes, lean set). The profile
# stage writes one launch per size; ncu's full set with sources stays in tens of
# MB. A larger file is refused by its size before a byte is read: a 2 GB sparse
# file made the load grow past 4 GB of memory without end.
MAX_REPORT_BYTES = 512 << 20
# A report over PROBE_BYTES is first loaded in a child process held to
# PROBE_MEMORY_BYTES of address space and PROBE_TIMEOUT_S seconds; one that breaks
# either is refused in one line instead of taking the machine's memory or hanging.
# Smaller ones (every report the bundled recording holds) load in ~10 ms in the
# process itself, bounded by their size.
PROBE_BYTES = 16 << 20
PROBE_MEMORY_BYTES = 8 << 30
PROBE_TIMEOUT_S = 120.0
_PROBE = (
    "import sys, ncu_report\n"
    "c = ncu_report.load_report(sys.argv[1])\n"
    "sum(c.range_by_idx(i).num_actions() for i in range(c.num_ranges()))\n"
)


def check_size(path: Any, size: int) -> None:
    """Refuse a report over MAX_REPORT_BYTES, before it is opened."""
    if size > MAX_REPORT_BYTES:
        raise ReportParseError(
            f"{path}: {size / (1 << 20):,.0f} MiB, over the "
            f"{MAX_REPORT_BYTES >> 20} MiB a report of nsightflow's profile stage "
            "stays under: not read; re-run the profile stage"
        )


def check_whole(path: str, context: Any) -> None:
    """A truncated report loads, its last launches without a name or kernel."""
    try:
        for r in range(context.num_ranges()):
            rng = context.range_by_idx(r)
            for a in range(rng.num_actions()):
                if not isinstance(rng.action_by_idx(a).name(), str):
                    raise TypeError(f"launch {a} of range {r} has no kernel name")
    except (TypeError, AttributeError, RuntimeError) as exc:
        raise ReportParseError(
            f"{path}: truncated or corrupt Nsight Compute report ({exc}); "
            "re-run the profile stage"
        ) from exc


def probe(path: str) -> None:
    """Load the report in a child process held to memory and time limits."""
    import resource
    import subprocess
    import sys

    def limit() -> None:  # in the child, before it runs Python
        resource.setrlimit(resource.RLIMIT_AS, (PROBE_MEMORY_BYTES,) * 2)

    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, path],
            preexec_fn=limit,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ReportParseError(
            f"{path}: loading it took over {PROBE_TIMEOUT_S:.0f} s; not read "
            "(a report of the profile stage loads in well under a second per MB): "
            "re-run the profile stage"
        ) from None
    if done.returncode != 0:
        tail = (done.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
        raise ReportParseError(
            f"{path}: loading it failed within {PROBE_MEMORY_BYTES >> 20} MiB of "
            f"memory ({tail[:200]}); it may be truncated or corrupt: re-run the "
            "profile stage"
        )


_EXPANDED: dict[tuple[str, int, int], Path] = {}
_CHUNK = 1 << 20


def expanded(path: Path) -> Path:
    """An xz-compressed report (``<name>.ncu-rep.xz``) expanded into a temporary file.

    ncu_report loads only a file on disk, so the report is expanded once per process
    (cached by path, mtime and size) into a folder removed at exit. The expansion
    stops at MAX_REPORT_BYTES: a small file that expands without end is refused in
    one line, as a large report is.
    """
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key in _EXPANDED and _EXPANDED[key].is_file():
        return _EXPANDED[key]
    folder = Path(tempfile.mkdtemp(prefix="nsightflow-report-"))
    atexit.register(shutil.rmtree, folder, True)
    target = folder / path.name.removesuffix(".xz")
    written, unpack = 0, lzma.LZMADecompressor()
    try:
        with path.open("rb") as src, target.open("wb") as dst:
            while not unpack.eof:
                chunk = src.read(_CHUNK) if unpack.needs_input else b""
                if unpack.needs_input and not chunk:
                    break  # the file ended before the stream did
                data = unpack.decompress(chunk, _CHUNK)
                written += len(data)
                check_size(path, written)
                dst.write(data)
    except lzma.LZMAError as exc:
        raise ReportParseError(
            f"{path}: not a readable xz-compressed report ({exc}); record it again"
        ) from exc
    if not unpack.eof:
        raise ReportParseError(f"{path}: truncated xz stream; record it again")
    _EXPANDED[key] = target
    return target
