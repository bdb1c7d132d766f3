"""The bundled recording analysed once per session for the figure tests."""

from pathlib import Path

import pytest

import recorded
from recorded import analyze as _analyze

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def analyses(recording, tmp_path_factory):
    """Family -> its analysis folder (analysis.csv, stalls.csv, context.json,
    findings.csv, and the timeline and sweep tables where the recording has them)."""
    from nsightflow.analysis import sweep, timeline
    from nsightflow.family.registry import load_family

    for family in recorded.FAMILIES:
        recorded.KERNELS.setdefault(family, ROOT / "kernels")
    out = {}
    for family in recorded.FAMILIES:
        folder = _analyze(recording, family, tmp_path_factory.mktemp(family))
        traces = sorted(recording.glob(f"timeline/{family}/*.json"))
        if traces:
            tables = [p.with_suffix(".csv") for p in traces]
            timeline.write_analysis(traces, tables, folder)
        sweeps = sorted(recording.glob(f"sweep/{family}/*.json"))
        if sweeps:
            sweep.write_analysis(sweeps, folder, load_family(ROOT / "kernels" / family))
        out[family] = folder
    return out
