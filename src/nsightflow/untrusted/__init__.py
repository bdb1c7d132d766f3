"""The one reader of recordings and run folders: untrusted input, read safely.

A recording (``examples/h200``, a folder copied back from a cluster) or a run folder
(``results/``, ``results/history/<time>/``) comes from somewhere else; replay,
``parse``, ``record`` and ``compare`` read it only through this package:

* :mod:`~nsightflow.untrusted.paths`: every path stays inside its folder; no
  symbolic link is followed, no FIFO or device is read; copies are written whole.
* :mod:`~nsightflow.untrusted.schema`: the shape of each record kind.
* :mod:`~nsightflow.untrusted.records`: each record read, checked against its schema
  and against what its place says it is (family, variant, report location).

A refusal is a :class:`RecordError`, one line naming the file, the field and the
fix; callers turn it into a ``not_recorded`` variant (replay) or an ``invalid`` pair
(compare). The guarantees are listed in docs/untrusted-input.md. This package sits
beside :mod:`nsightflow.io` in the lowest layer: every other layer may import it.
"""

from nsightflow.untrusted.paths import MissingRecord, RecordError, Tree, relative
from nsightflow.untrusted.records import (
    COMPRESSED,
    MAX_JSON_BYTES,
    Dropped,
    Where,
    check_record,
    check_table,
    identify,
    parse_json,
    profile_reports,
    read_record,
    read_rows,
    report_path,
    stored_report,
)

__all__ = [
    "COMPRESSED",
    "MAX_JSON_BYTES",
    "Dropped",
    "MissingRecord",
    "RecordError",
    "Tree",
    "Where",
    "check_record",
    "check_table",
    "identify",
    "parse_json",
    "profile_reports",
    "read_record",
    "read_rows",
    "relative",
    "report_path",
    "stored_report",
]
