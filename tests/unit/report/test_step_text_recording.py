"""The step sections of the bundled H200 recording's reports, read as text: what a
step is credited with, the line it is shown at, and what the text says the counters
show (scan, histogram, reduction).
"""

import re
from pathlib import Path

import pytest

from nsightflow.report.build import write_report
from recorded import analyze_measured

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def reports(recording, tmp_path_factory):
    """family -> report.md, with the per-instruction samples (the cited lines)."""
    out = {}
    for family in ("scan",):
        tmp = tmp_path_factory.mktemp(family)
        analysis = analyze_measured(recording, family, ROOT / "kernels", tmp)
        write_report(analysis, tmp / "report" / "figures", tmp / "report")
        out[family] = (tmp / "report" / "report.md").read_text()
    return out


def _section(md: str, heading: str) -> str:
    """One step section of a report, from its heading to the next heading."""
    start = md.index(heading)
    end = md.find("\n#", start + len(heading))
    return md[start : end if end > 0 else len(md)]


def test_scan_v2_credits_the_tree_pass_it_removed(reports):
    """v1 -> v2 at 2^24: its tile pass no longer runs the shared-memory tree
    (shared loads and stores 4.11 M -> 0.03 M of 46.2 M -> 2.05 M instructions);
    the load requests fell 4x, the instructions 23x: not "wider loads"."""
    step = _section(reports["scan"], "### 2.2 `v2_reduce_then_scan`")
    why = step.split("**Also:**")[0]
    assert "wider loads" not in why
    assert "instruction count" in why
    assert "shared-memory loads and stores 4.11 M -> 0.03 M" in why
    # the line is one of the tile pass (scan_v2_reduce, in the shared header), not
    # the float4 store of the scan pass, another launch
    line = re.search(r"hottest line is (\d+) of `([^`]+)`", why)
    assert line is not None
    assert (line.group(1), line.group(2)) == ("39", "reduce_then_scan.cuh")
    header = (ROOT / "kernels/scan/reduce_then_scan.cuh").read_text().splitlines()
    assert "x.x + x.y" in header[38]
