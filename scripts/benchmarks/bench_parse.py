"""Benchmark (CPU): parse throughput on the bundled recording's .ncu-rep files."""

import time
from pathlib import Path

from nsightflow.tools.ncu_parse import parse_files

ROOT = Path(__file__).resolve().parents[2]
reports = sorted((ROOT / "examples" / "h200" / "profile").glob("*/*/*.ncu-rep"))
start = time.perf_counter()
metrics, rules = parse_files(reports)
wall = time.perf_counter() - start
print(
    f"{len(reports)} reports, {len(metrics):,} metric values, {len(rules)} rule results "
    f"in {wall:.2f} s: {len(metrics) / wall:,.0f} values/s, "
    f"{wall / len(reports) * 1e3:.0f} ms per report"
)
