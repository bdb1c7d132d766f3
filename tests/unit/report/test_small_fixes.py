"""Doctor's labels, the sanitizer table's sizes."""

import re

from nsightflow.i18n import language
from nsightflow.machine.doctor import OPTIONAL, Check, exit_status, render
from nsightflow.report.sections.sanitize import SanitizeSections


def test_doctor_calls_optional_tools_optional():
    names = ["GPU + pycuda", "nvcc", "ncu", *sorted(OPTIONAL)]
    found = [Check(n, False, "missing", f"install {n}", "measure") for n in names]
    text = render(found)
    for name in names:
        fix_line = text.splitlines()[
            text.splitlines().index(
                next(ln for ln in text.splitlines() if name in ln and "[MISS]" in ln)
            )
            + 1
        ]
        expected = "(optional)" if name in OPTIONAL else "(needed to measure)"
        assert fix_line.endswith(expected), fix_line
    # the README: nsys, compute-sanitizer and NVML are optional; measuring needs the rest
    assert {"nsys (timeline)", "compute-sanitizer", "NVML (nvidia-ml-py)"} <= OPTIONAL
    only_optional_missing = [
        Check(n, n not in OPTIONAL, "x", "fix", "measure") for n in names
    ]
    assert exit_status(only_optional_missing) == 0


def test_sanitizer_sizes_print_as_integers():
    records = {
        "v0_naive": {
            "status": "ok",
            "size": 1000,
            "tools": [{"tool": "memcheck", "status": "clean"}],
        },
        "v1_new": {"status": "not_recorded", "size": None, "tools": []},
        "v2_big": {"status": "ok", "size": 1048576.0, "tools": []},
    }
    with language("en"):
        table = SanitizeSections._table(records)
    rows = table.splitlines()[2:]
    assert re.search(r"\|\s+1000 \|", rows[0]) and "1,000.00" not in table
    assert re.search(r"\|\s+1048576 \|", rows[2]) and "1,048,576" not in table


def test_doctor_puts_what_it_found_in_one_column_for_every_row():
    found = [
        Check("nvcc", True, "13.0.88", "", "measure"),
        Check("cupti-python (timeline)", False, "not installed", "pip", "measure"),
        Check("ncu_report", True, "importable", "", "replay"),
    ]
    rows = [line for line in render(found).splitlines() if line.startswith("[")]
    starts = {row.index(c.found) for row, c in zip(rows, found, strict=True)}
    assert len(starts) == 1, render(found)
