"""CUPTI backend of the timeline: activity records through NVIDIA's ``cupti-python``.

:class:`CuptiTracer` runs inside the GPU worker: it enables the kernel, memcpy and
memset activity kinds before the CUDA context exists and hands back, per traced
window, each record as a plain dict (:func:`activity_dict`), which is what the stage
stores. :func:`rows` turns those dicts into timeline rows; it is pure and runs on any
machine, so recorded traces are converted and tested without a GPU. ``cupti`` is
imported only by the tracer.
"""

from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.tools.nsys import copy_name

# CUPTI activity kinds recorded (cupti.ActivityKind member names).
ACTIVITY_KINDS = ("CONCURRENT_KERNEL", "MEMCPY", "MEMSET")
KERNEL = "kernel"  # contracts: literal (the timeline's kind of a kernel launch)
BUFFER_BYTES = 8 * 1024 * 1024  # per activity buffer, as NVIDIA's samples use
# CUpti_ActivityMemcpyKind names -> timeline kind and the direction in the name.
_COPY_KINDS = {
    "HTOD": ("memcpy_htod", "HtoD"),
    "DTOH": ("memcpy_dtoh", "DtoH"),
    "DTOD": ("memcpy_dtod", "DtoD"),
}


def _enum_name(enum: Any, value: Any) -> str | None:
    try:
        return str(enum(value).name)
    except (ValueError, TypeError):
        return None


def activity_dict(activity: Any, cupti: Any) -> dict[str, Any]:
    """One CUPTI activity record as a plain dict (what the stage stores).

    Keys: ``kind`` (ActivityKind name), ``start``, ``end`` (CUPTI timestamps in ns),
    ``stream_id``, ``correlation_id``, ``device_id``; kernels add ``name``, ``grid``,
    ``block``; copies ``bytes``, ``copy_kind``, ``src_kind``, ``dst_kind``; memsets
    ``bytes``, ``value``, ``memory_kind``.
    """
    kind = _enum_name(cupti.ActivityKind, activity.kind) or str(activity.kind)
    record: dict[str, Any] = {
        col.KIND: kind,
        "start": int(activity.start),
        "end": int(activity.end),
        "stream_id": int(getattr(activity, "stream_id", -1)),
        "correlation_id": int(getattr(activity, "correlation_id", 0)),
        "device_id": int(getattr(activity, "device_id", 0)),
    }
    if kind in ("KERNEL", "CONCURRENT_KERNEL"):
        record[col.NAME] = str(activity.name)
        record["grid"] = [int(getattr(activity, f"grid_{a}", 0)) for a in "xyz"]
        record["block"] = [int(getattr(activity, f"block_{a}", 0)) for a in "xyz"]
    elif kind == "MEMCPY":
        record[col.BYTES] = int(activity.bytes)
        record["copy_kind"] = _enum_name(cupti.ActivityMemcpyKind, activity.copy_kind)
        for side in ("src_kind", "dst_kind"):
            record[side] = _enum_name(
                cupti.ActivityMemoryKind, getattr(activity, side, None)
            )
    elif kind == "MEMSET":
        record[col.BYTES] = int(activity.bytes)
        record[col.VALUE] = int(getattr(activity, "value", 0))
        record["memory_kind"] = _enum_name(
            cupti.ActivityMemoryKind, getattr(activity, "memory_kind", None)
        )
    return record


def rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CUPTI activity dicts (:func:`activity_dict`) -> timeline rows.

    Returns:
        Dicts with ``kind, name, start_ns, end_ns, bytes, stream``; records of other
        activity kinds are left out, copies are named by :func:`copy_name`.
    """
    out = []
    for r in records:
        row = {
            col.START_NS: int(r["start"]),
            col.END_NS: int(r["end"]),
            col.STREAM: r.get("stream_id"),
            col.BYTES: r.get(col.BYTES),
        }
        if r[col.KIND] in ("KERNEL", "CONCURRENT_KERNEL"):
            out.append(
                {**row, col.KIND: KERNEL, col.NAME: r[col.NAME], col.BYTES: None}
            )
        elif r[col.KIND] == "MEMCPY":
            kind, direction = _COPY_KINDS.get(
                r.get("copy_kind") or "", ("memcpy_other", str(r.get("copy_kind")))
            )
            name = copy_name(direction, r.get("src_kind"), r.get("dst_kind"))
            out.append({**row, col.KIND: kind, col.NAME: name})
        elif r[col.KIND] == "MEMSET":
            memory = (r.get("memory_kind") or "").lower()
            name = f"memset ({memory})" if memory else "memset"
            out.append({**row, col.KIND: "memset", col.NAME: name})
    return out


class CuptiTracer:
    """CUPTI activity tracing in this process (GPU worker only).

    Create it before the CUDA context so every record kind is available; then per
    traced window take :meth:`now` before and after and :meth:`collect` the records
    that started in between.
    """

    def __init__(self) -> None:
        from cupti import cupti

        self._cupti = cupti
        self._records: list[dict[str, Any]] = []
        cupti.activity_register_callbacks(self._requested, self._completed)
        for name in ACTIVITY_KINDS:
            cupti.activity_enable(getattr(cupti.ActivityKind, name))

    @staticmethod
    def _requested() -> tuple[int, int]:
        return BUFFER_BYTES, 0  # 0: as many records as fit

    def _completed(self, activities: list[Any]) -> None:
        # Converted at once: the activity objects point into a buffer CUPTI reuses.
        for activity in activities:
            try:
                self._records.append(activity_dict(activity, self._cupti))
            except (AttributeError, TypeError, ValueError) as exc:
                self._records.append({col.KIND: "unreadable", col.MESSAGE: repr(exc)})

    def now(self) -> int:
        """CUPTI's timestamp (ns), the clock of the activity records."""
        return int(self._cupti.get_timestamp())

    def collect(self, start: int, end: int) -> list[dict[str, Any]]:
        """Flush, and return the records that started in ``[start, end]``."""
        self._cupti.activity_flush_all(1)  # 1: also buffers not yet full
        kept = [
            r
            for r in self._records
            if r[col.KIND] == "unreadable" or start <= r["start"] <= end
        ]
        self._records.clear()
        return kept

    def close(self) -> None:
        """Disable the activity kinds and flush what is left."""
        for name in ACTIVITY_KINDS:
            self._cupti.activity_disable(getattr(self._cupti.ActivityKind, name))
        self._cupti.activity_flush_all(1)
