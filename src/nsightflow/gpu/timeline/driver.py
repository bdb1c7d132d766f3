"""Timeline stage: every copy and kernel of a realistic run, with start and end times.

Per variant, one process runs the launcher's sequence at each timeline size (allocate,
copy the inputs in, clear the outputs, launch, copy the outputs back) once to warm up
and once more under a tracer. Two backends record it:

- ``nsys``: Nsight Systems around the process, then its ``cuda_gpu_trace`` report as
  CSV (:mod:`nsightflow.tools.nsys`);
- ``cupti``: CUPTI activity records collected in the process itself through NVIDIA's
  ``cupti-python`` (:mod:`nsightflow.gpu.timeline.cupti`).

Which one runs is decided once per run from what the machine can do
(:func:`choose_backend`, written to ``results/timeline/backend.json``): nsys where it
can write reports, else CUPTI, saying why. Both give the same tidy table, written to
``results/timeline/<family>/<variant>.csv`` beside a JSON record (status, backend,
the raw records per size, provenance).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from nsightflow.contracts import TIMELINE
from nsightflow.contracts import columns as col
from nsightflow.family.registry import Family, find_variant
from nsightflow.gpu import driver as stages
from nsightflow.gpu import isolate
from nsightflow.io import read_json, write_json
from nsightflow.machine import double
from nsightflow.machine.capabilities import cupti_check, nsys_can_write_reports
from nsightflow.machine.gpulock import gpu_info
from nsightflow.records import Status
from nsightflow.tools import provenance

Backend = Literal["auto", "cupti", "nsys"]
ROUNDS = 2  # sequences per size: one warm-up (dropped), one traced


@dataclass(frozen=True)
class TimelineSettings:
    """How the timeline is recorded (config.yaml ``timeline``).

    ``sizes`` empty means the family's profiled sizes.
    """

    sizes: tuple[int, ...] = ()
    backend: Backend = "auto"
    timeout_s: float = 300.0


@dataclass(frozen=True)
class Capabilities:
    """What this machine offers for tracing, and what was found."""

    nsys_ok: bool
    nsys_found: str
    cupti_ok: bool
    cupti_found: str


@dataclass(frozen=True)
class Choice:
    """The backend that runs (None: neither can), and the sentence that says why."""

    backend: Literal["cupti", "nsys"] | None
    message: str
    requested: str = "auto"
    capabilities: dict[str, Any] = field(default_factory=dict)


def probe_capabilities() -> Capabilities:
    """Probe nsys (can it write a report?) and cupti-python on this machine."""
    if double.folder() is not None:  # a test's stand-in: its traces are CUPTI's
        return Capabilities(*double.timeline_capabilities())
    nsys_ok, nsys_found = nsys_can_write_reports()
    cupti_ok, cupti_found = cupti_check()
    return Capabilities(nsys_ok, nsys_found, cupti_ok, cupti_found)


def choose_backend(requested: str, caps: Capabilities) -> Choice:
    """The backend to use for ``requested`` (auto, nsys or cupti) on this machine.

    nsys wins where it can write reports; otherwise CUPTI, with the reason nsys was
    passed over. None when neither works: the stage then records that as data.
    """
    info = caps.__dict__.copy()
    if requested in ("auto", "nsys") and caps.nsys_ok:
        return Choice("nsys", f"Nsight Systems: {caps.nsys_found}", requested, info)
    if requested in ("auto", "nsys"):
        why = f"nsys cannot be used here ({caps.nsys_found})"
        if caps.cupti_ok:
            return Choice(
                "cupti",
                f"{why}: falling back to CUPTI activity tracing (cupti-python)",
                requested,
                info,
            )
        return Choice(
            None,
            f"{why}, and {caps.cupti_found}: no timeline backend; install Nsight "
            "Systems with its importer or `pip install cupti-python`, or set "
            "timeline.enabled: false",
            requested,
            info,
        )
    if caps.cupti_ok:
        return Choice("cupti", "CUPTI activity tracing (cupti-python)", requested, info)
    return Choice(
        None,
        f"timeline.backend is cupti, but {caps.cupti_found}: `pip install "
        "cupti-python` on the GPU machine, or set timeline.backend: auto",
        requested,
        info,
    )


def timeline_sizes(family: Family, settings: TimelineSettings) -> list[int]:
    """The sizes to trace: the configured ones, else the family's profiled sizes."""
    return list(settings.sizes) or list(family.profile_sizes)


def _without_warm_up(frame: pd.DataFrame) -> pd.DataFrame:
    """The sequence without a Python launcher's warm-up call (time-ordered rows).

    A Python launcher's setup runs its callable once and zeroes the outputs again
    (:class:`nsightflow.gpu.pylaunch.PythonLauncher`), inside the traced round: the
    kernels between the last copy in and that zero fill are the warm-up's, not the
    sequence's launch (the H200's torch.matmul at 4096: 2 x 2.69 ms traced against
    an event median of 2.67 ms). A kernel launcher zeroes before its first kernel,
    so nothing goes.
    """
    kinds = frame[col.KIND].tolist()
    copies = [i for i, k in enumerate(kinds) if k == "memcpy_htod"]
    start = copies[-1] + 1 if copies else 0
    fill = next((i for i in range(start, len(kinds)) if kinds[i] == "memset"), None)
    if fill is None:
        return frame
    warm = [i for i in range(start, fill) if kinds[i] == "kernel"]
    return frame.drop(index=frame.index[warm])


def tidy(rows: list[dict[str, Any]], ident: tuple[str, str], size: int) -> pd.DataFrame:
    """Activities of one traced sequence as the timeline table, in time order.

    Args:
        rows: Dicts with ``kind, name, start_ns, end_ns, bytes, stream`` (raw
            timestamps of either backend).
        ident: (family, variant).
        size: The problem size of the sequence.

    Returns:
        :data:`nsightflow.contracts.TIMELINE`; times shifted so that the first activity starts at 0.
    """
    if not rows:
        return TIMELINE.empty()
    frame = pd.DataFrame(rows)
    origin = int(frame[col.START_NS].min())
    frame = frame.assign(
        family=ident[0],
        variant=ident[1],
        size=size,
        start_ns=frame[col.START_NS].astype("int64") - origin,
        end_ns=frame[col.END_NS].astype("int64") - origin,
        bytes=frame[col.BYTES].astype("Int64"),  # blank for kernels
    )
    frame = _without_warm_up(frame.sort_values(col.START_NS, kind="stable"))
    return frame.reset_index(drop=True)[list(TIMELINE.columns)]


def table_of(record: dict[str, Any]) -> pd.DataFrame:
    """The timeline table of a stage record (its raw records per size)."""
    from nsightflow.gpu.timeline import cupti as timeline_cupti
    from nsightflow.tools import nsys as timeline_nsys

    convert = {"cupti": timeline_cupti.rows, "nsys": timeline_nsys.rows}
    ident = (record[col.FAMILY], record[col.VARIANT])
    frames = [
        tidy(convert[record[col.BACKEND]](s.get("raw", [])), ident, int(s[col.SIZE]))
        for s in record.get(col.SIZES, [])
        if s.get(col.STATUS) == Status.OK
    ]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else TIMELINE.empty()


def record_variant(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: dict[str, Path],
    settings: TimelineSettings,
    seed: int,
) -> dict[str, Any]:
    """Trace one variant at every timeline size with the chosen backend.

    Args:
        kernels_dir: Folder of families.
        ident: (family, variant).
        paths: ``cubin``, ``verify`` (upstream status) and ``backend`` (the choice
            written by ``nsightflow timeline-backend``).
        settings: Sizes, backend asked for, time limit.
        seed: Input seed.

    Returns:
        The record for ``<variant>.json``; :func:`table_of` turns it into the table.
    """
    if double.folder() is not None:  # a test's stand-in for the tracer
        return double.record("timeline", ident)
    family_name, variant_name = ident
    choice = read_json(paths[col.BACKEND])
    base = {
        col.FAMILY: family_name,
        col.VARIANT: variant_name,
        "requested_backend": settings.backend,
        col.BACKEND: choice[col.BACKEND],
        col.BACKEND_NOTE: choice[col.MESSAGE],
        col.SIZES: [],
    }
    upstream = stages.upstream_status(paths["verify"])
    if upstream[col.STATUS] != Status.OK:
        return {**base, **stages.skipped(upstream, "timeline")}
    if choice[col.BACKEND] is None:
        return {
            **base,
            col.STATUS: Status.TIMELINE_UNAVAILABLE,
            col.MESSAGE: choice[col.MESSAGE],
        }
    family, _ = find_variant(kernels_dir, family_name, variant_name)
    spec = {
        "kernels_dir": str(kernels_dir),
        col.FAMILY: family_name,
        col.VARIANT: variant_name,
        "cubin": str(paths["cubin"]),
        "seed": seed,
        col.SIZES: timeline_sizes(family, settings),
        "rounds": ROUNDS,
    }
    result, note = _run_backend(choice[col.BACKEND], spec, settings.timeout_s)
    return {
        **base,
        col.BACKEND_NOTE: note or base[col.BACKEND_NOTE],
        **result,
        "provenance": provenance.collect(kernels_dir, **gpu_info()),
    }


def _run_backend(
    backend: str, spec: dict[str, Any], timeout_s: float
) -> tuple[dict[str, Any], str | None]:
    """Run the traced sequences; return the result and, after a fallback, why.

    An nsys that cannot turn its capture into a report (``nsys_failed``) hands over
    to CUPTI where cupti-python loads, and the note says so.
    """
    if backend == "nsys":
        from nsightflow.tools import nsys as timeline_nsys

        result = timeline_nsys.record(spec, timeout_s)
        if result[col.STATUS] != Status.NSYS_FAILED or not cupti_check()[0]:
            return {**result, col.BACKEND: "nsys"}, None
        note = f"{result['message']}: falling back to CUPTI activity tracing"
        print(f"nsightflow timeline: {note}")
        return _run_backend("cupti", spec, timeout_s)[0], note
    result = isolate.run_task("timeline", {**spec, "trace": "cupti"}, timeout_s)
    return {**result, col.BACKEND: "cupti"}, None


def write_outputs(record: dict[str, Any], json_path: Path, csv_path: Path) -> None:
    """Write the record and its table (header only when nothing was traced)."""
    write_json(json_path, record)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    table = table_of(record) if record.get(col.BACKEND) else TIMELINE.empty()
    TIMELINE.write(table, csv_path)
