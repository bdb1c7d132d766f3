"""Nsight Systems backend of the timeline: ``nsys profile``, then ``nsys stats`` CSV.

The worker runs the untraced sequences (``trace: none``) under ``nsys profile
--trace=cuda``; ``nsys stats --report cuda_gpu_trace --format csv`` then writes one
row per kernel, memcpy and memset on the GPU. :func:`read_gpu_trace` reads that CSV
with pandas, taking the units from the column headers (``Start (ns)``, ``Bytes (MB)``;
nsys's MB are 10^6 bytes); :func:`assign_rounds` cuts the rows into the warm-up and
kept rounds of each size; :func:`rows` makes timeline rows. Argument lists are built by
pure functions. Where nsys writes only a ``.qdstrm`` (no importer) the result is
``nsys_failed`` and the stage falls back to CUPTI.
"""

import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.errors import GpuUnavailableError
from nsightflow.records import Status

REPORT = "cuda_gpu_trace"
TIME_UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
BYTE_UNITS = {
    "B": 1.0,
    "byte": 1.0,
    col.BYTES: 1.0,
    "KB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "KiB": 2.0**10,
    "MiB": 2.0**20,
    "GiB": 2.0**30,
}
# Operation names in the trace (old and new nsys spellings) -> timeline kind.
_COPIES = {
    "Host-to-Device": ("memcpy_htod", "HtoD"),
    "HtoD": ("memcpy_htod", "HtoD"),
    "Device-to-Host": ("memcpy_dtoh", "DtoH"),
    "DtoH": ("memcpy_dtoh", "DtoH"),
    "Device-to-Device": ("memcpy_dtod", "DtoD"),
    "DtoD": ("memcpy_dtod", "DtoD"),
}
_UNIT = re.compile(r"^(?P<base>.+?) \((?P<unit>[^)]+)\)$")
TAIL = 2000


def copy_name(direction: str, src: str | None, dst: str | None) -> str:
    """The ``name`` of a copy row, the same for both backends.

    ``memcpy HtoD (pageable -> device)``; the memory kinds are left out when the
    backend does not report them.
    """
    if not src or not dst:
        return f"memcpy {direction}"
    return f"memcpy {direction} ({src.lower()} -> {dst.lower()})"


def profile_argv(output: Path, command: list[str]) -> list[str]:
    """``nsys profile`` tracing CUDA only (no CPU sampling) around ``command``."""
    return [
        "nsys",
        "profile",
        "--trace=cuda",
        "--sample=none",
        "--cpuctxsw=none",
        "--force-overwrite=true",
        "--output",
        str(output),
        *command,
    ]


def stats_argv(report: Path, prefix: Path) -> list[str]:
    """``nsys stats`` writing ``<prefix>_cuda_gpu_trace.csv`` from a ``.nsys-rep``."""
    return [
        "nsys",
        "stats",
        "--report",
        REPORT,
        "--format",
        "csv",
        "--force-export=true",
        "--output",
        str(prefix),
        str(report),
    ]


def read_gpu_trace(text: str, source: str) -> list[dict[str, Any]]:
    """Rows of a ``cuda_gpu_trace`` CSV as dicts keyed by nsys's own headers.

    Lines nsys prints before the header (``Processing [...]``, notices) are skipped.

    Raises:
        ValueError: No header with ``Start``, ``Duration`` and ``Name`` in ``source``.
    """
    lines = text.splitlines()
    header = next(
        (i for i, line in enumerate(lines) if line.startswith("Start (")), None
    )
    if header is None or "Name" not in lines[header] or "Duration" not in lines[header]:
        raise ValueError(
            f"{source}: no cuda_gpu_trace header (a line starting 'Start (ns),"
            "Duration (ns),...,Name'); is it `nsys stats --report cuda_gpu_trace "
            "--format csv` output?"
        )
    frame = pd.read_csv(io.StringIO("\n".join(lines[header:])))
    clean = frame.astype(object).where(frame.notna(), None)
    return [{str(k): v for k, v in row.items()} for row in clean.to_dict("records")]


def _unit_column(
    row: dict[str, Any], base: str, units: dict[str, float]
) -> tuple[str, float]:
    """The header of ``base`` in this export and its factor to ns or bytes."""
    for key in row:
        match = _UNIT.match(key)
        if match and match["base"] == base:
            if match[col.UNIT] not in units:
                raise ValueError(f"column {key!r}: unit {match['unit']!r} unknown")
            return key, units[match[col.UNIT]]
    raise ValueError(f"no {base!r} column in the cuda_gpu_trace export: {list(row)}")


def _kind(name: str) -> tuple[str, str | None]:
    """Timeline kind and copy direction of one trace row, by its Name."""
    if name.startswith("[CUDA memset"):
        return "memset", None
    if name.startswith("[CUDA memcpy"):
        for marker, found in _COPIES.items():
            if marker in name:
                return found
        return "memcpy_other", name.strip("[]").removeprefix("CUDA memcpy ")
    return "kernel", None  # contracts: literal (a kind)


def rows(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``cuda_gpu_trace`` rows (:func:`read_gpu_trace`) -> timeline rows.

    Returns:
        Dicts with ``kind, name, start_ns, end_ns, bytes, stream``.
    """
    if not raw:
        return []
    start_col, t_start = _unit_column(raw[0], "Start", TIME_UNITS)
    dur_col, t_dur = _unit_column(raw[0], "Duration", TIME_UNITS)
    bytes_col, b = _unit_column(raw[0], "Bytes", BYTE_UNITS)
    out = []
    for r in raw:
        start = round(float(r[start_col]) * t_start)
        kind, direction = _kind(str(r["Name"]))
        src, dst = r.get("SrcMemKd"), r.get("DstMemKd")
        if kind == "kernel":
            name = str(r["Name"])
        elif kind == "memset":
            name = f"memset ({str(dst).lower()})" if dst else "memset"
        else:
            name = copy_name(str(direction), src, dst)
        size = r.get(bytes_col)
        out.append(
            {
                col.KIND: kind,
                col.NAME: name,
                col.START_NS: start,
                col.END_NS: start + round(float(r[dur_col]) * t_dur),
                col.BYTES: None
                if size is None or kind == "kernel"
                else round(float(size) * b),
                col.STREAM: r.get("Strm"),
            }
        )
    return out


def assign_rounds(
    raw: list[dict[str, Any]], sizes: list[dict[str, Any]], rounds: int
) -> list[dict[str, Any]]:
    """Give each size that ran the trace rows of its kept (last) round.

    Every round of a variant runs the same operations, so the time-ordered rows
    split into equal consecutive blocks: ``rounds`` per size, in the order run.
    A count that does not split evenly marks every size ``trace_mismatch``.
    """
    ran = [s for s in sizes if s[col.STATUS] == Status.OK]
    if not ran:
        return sizes
    start_col = next(k for k in raw[0] if k.startswith("Start (")) if raw else ""
    ordered = sorted(raw, key=lambda r: float(r[start_col])) if raw else []
    blocks = len(ran) * rounds
    if not ordered or len(ordered) % blocks:
        message = (
            f"the trace holds {len(ordered)} GPU activities, not a multiple of "
            f"{blocks} ({len(ran)} sizes x {rounds} rounds of the same sequence)"
        )
        return [
            {**s, col.STATUS: Status.TRACE_MISMATCH, col.MESSAGE: message}
            if s in ran
            else s
            for s in sizes
        ]
    per = len(ordered) // blocks
    out = []
    for s in sizes:
        if s in ran:
            i = ran.index(s)
            first = (i * rounds + rounds - 1) * per
            s = {**s, "raw": ordered[first : first + per]}
        out.append(s)
    return out


def _run(
    argv: list[str], timeout_s: float
) -> subprocess.CompletedProcess[str] | dict[str, str]:
    """Run an nsys command; a dict (status, message) says why it did not finish."""
    try:
        return subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return {
            col.STATUS: Status.TIMEOUT,
            col.MESSAGE: f"nsys {argv[1]} did not finish within {timeout_s:g} s "
            "(config timeline.timeout_s)",
        }
    except OSError as exc:
        return {
            col.STATUS: Status.NSYS_FAILED,
            col.MESSAGE: f"nsys could not start: {exc}",
        }


def _profile(folder: Path, spec: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """Run the worker's sequences under ``nsys profile``; return the worker's result."""
    spec_path, result_path = folder / "spec.json", folder / "result.json"
    spec_path.write_text(json.dumps({**spec, "trace": "none"}))
    worker = [sys.executable, "-m", "nsightflow.gpu.worker", "timeline"]
    argv = profile_argv(folder / "trace", [*worker, str(spec_path), str(result_path)])
    proc = _run(argv, timeout_s)
    if isinstance(proc, dict):
        return proc
    output = (proc.stdout + proc.stderr)[-TAIL:]
    if not (folder / "trace.nsys-rep").is_file():
        left = sorted(p.name for p in folder.glob("trace*"))
        return {
            col.STATUS: Status.NSYS_FAILED,
            col.MESSAGE: f"nsys profile wrote {left or 'nothing'} but no .nsys-rep "
            f"(exit {proc.returncode}): it cannot import its own capture here",
            "log": output,
        }
    if not result_path.is_file():
        return {
            col.STATUS: Status.CRASHED,
            col.MESSAGE: f"the worker under nsys died: {output}",
        }
    result: dict[str, Any] = json.loads(result_path.read_text())
    if result[col.STATUS] == Status.ENVIRONMENT_ERROR:
        raise GpuUnavailableError(result[col.MESSAGE])
    return result


def record(spec: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """The worker's sequences under nsys, and the trace rows of each size.

    Returns:
        ``{"status", "message", "sizes"}`` like the CUPTI worker; status
        ``nsys_failed`` when nsys made no report (the caller may fall back).
    """
    with tempfile.TemporaryDirectory(prefix="nsightflow-nsys-") as tmp:
        folder = Path(tmp)
        result = _profile(folder, spec, timeout_s)
        if result[col.STATUS] != Status.OK:
            return result
        stats = _run(stats_argv(folder / "trace.nsys-rep", folder / "stats"), timeout_s)
        csv = folder / f"stats_{REPORT}.csv"
        if isinstance(stats, dict):
            return stats
        if not csv.is_file():
            return {
                col.STATUS: Status.NSYS_FAILED,
                col.MESSAGE: f"nsys stats wrote no {REPORT} CSV: "
                f"{(stats.stdout + stats.stderr)[-TAIL:]}",
            }
        raw = read_gpu_trace(csv.read_text(), str(csv))
    sizes = assign_rounds(raw, result[col.SIZES], int(spec["rounds"]))
    bad = [s for s in sizes if s[col.STATUS] not in (Status.OK, Status.UNSUPPORTED)]
    return {
        col.STATUS: bad[0][col.STATUS] if bad else Status.OK,
        col.MESSAGE: f"n={bad[0]['size']}: {bad[0]['message']}" if bad else "",
        col.SIZES: sizes,
    }
