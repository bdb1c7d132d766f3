"""No module compares a status with a string literal: it names a Status member.

A status spelled as a literal ("ok") in a comparison is a second declaration of the
status values: a renamed or added status would not reach it. The scan covers every
module outside nsightflow.contracts; ALLOWED lists the comparisons that remain, each
with why.
"""

import re
from pathlib import Path

from nsightflow.contracts import Status

PACKAGE = Path(__file__).resolve().parents[3] / "src" / "nsightflow"
VALUES = "|".join(sorted(re.escape(s.value) for s in Status))
# `x == "ok"`, `"ok" != x`, `.isin(["ok", ...])`, `in ("ok", ...)`
COMPARED = re.compile(
    rf'(?:[=!]=\s*"({VALUES})"|"({VALUES})"\s*[=!]=|isin\(\[[^\]]*"({VALUES})"'
    rf'|in \([^)]*"({VALUES})")'
)
ALLOWED = {
    # a compute-sanitizer tool's own outcome "failed" (it did not finish) sits in one
    # tuple with "errors" and "timeout"; Status has no member for it
    "gpu/sanitize.py": "a tool's 'failed' beside stage statuses",
}


def test_no_status_literal_is_compared_outside_the_contracts():
    found = sorted(
        f"{path.relative_to(PACKAGE).as_posix()}:{i}: {line.strip()}"
        for path in PACKAGE.rglob("*.py")
        if "contracts" not in path.relative_to(PACKAGE).parts
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if COMPARED.search(line) and path.relative_to(PACKAGE).as_posix() not in ALLOWED
    )
    assert not found, "compare with Status.<NAME>:\n" + "\n".join(found)
