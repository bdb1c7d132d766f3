"""The bundled recording analysed once per session for the figure tests."""

from pathlib import Path

import pytest

import recorded
from once import built_once
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

    def build(root):
        for family in recorded.FAMILIES:
            (root / family).mkdir()
            folder = _analyze(recording, family, root / family)
            traces = sorted(recording.glob(f"timeline/{family}/*.json"))
            if traces:
                tables = [p.with_suffix(".csv") for p in traces]
                timeline.write_analysis(traces, tables, folder)
            sweeps = sorted(recording.glob(f"sweep/{family}/*.json"))
            if sweeps:
                family_dir = ROOT / "kernels" / family
                sweep.write_analysis(sweeps, folder, load_family(family_dir))

    # once per run, read by the figure tests of every worker (tests/once.py)
    root = built_once(tmp_path_factory, "figure_analyses", build)
    return {family: root / family / "analysis" for family in recorded.FAMILIES}
