"""The status values stage records carry, in one place.

Every stage writes ``status`` into its JSON record; the report shows it and keeps a
variant out of the ranking unless it is ``ok``. The values are strings on disk
(``StrEnum`` members compare equal to, and serialize as, their string).
"""

from enum import StrEnum


class Status(StrEnum):
    """A stage record's ``status``."""

    OK = "ok"
    # compile
    COMPILE_FAILED = "compile_failed"
    # verify (and the stages after it, which carry the upstream status when skipped)
    WRONG = "wrong"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    GPU_BUSY = "gpu_busy"
    ENVIRONMENT_ERROR = "environment_error"
    SKIPPED = "skipped"
    # tools missing on this machine
    NCU_UNAVAILABLE = "ncu_unavailable"
    SANITIZER_UNAVAILABLE = "sanitizer_unavailable"
    TIMELINE_UNAVAILABLE = "timeline_unavailable"
    # compute-sanitizer
    CLEAN = "clean"
    ERRORS = "errors"
    UNSUPPORTED = "unsupported"
    NOT_APPLICABLE = "not_applicable"
    # timeline
    NSYS_FAILED = "nsys_failed"
    TRACE_EMPTY = "trace_empty"
    TRACE_MISMATCH = "trace_mismatch"
    # replay
    NOT_RECORDED = "not_recorded"
    # integrity checks of a timed size (nsightflow.analysis.integrity)
    FASTER_THAN_FLOOR = "faster_than_floor"
    CHANGED_AFTER_TIMING = "changed_after_timing"
    NOT_CHECKED = "not_checked"
