"""Shared test helpers: the recording analyzed as the workflow does it.

On pytest's path (pyproject `pythonpath = ["tests"]`): `from recorded import analyze`.
"""

from pathlib import Path

from nsightflow.analysis.analyze import AnalysisInputs, write_analysis

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = (  # every family the bundled recording holds
    "conv2d",
    "histogram",
    "jacobi2d",
    "reduction",
    "scan",
    "sgemm",
    "spmv",
    "vecadd",
)
KERNELS = {
    "jacobi2d": ROOT / "kernels",
    "sgemm": ROOT / "kernels",
    "histogram": ROOT / "kernels",
    "spmv": ROOT / "kernels",
    "faulty": ROOT / "tests" / "data" / "families",
}


def analyze(recording: Path, family: str, tmp_path: Path) -> Path:
    """parse -> analyze on the recording, as the workflow does, into tmp_path."""
    from nsightflow.tools.ncu_parse import parse_files, write_table

    metrics, rules = [], []
    for folder in sorted(
        p for p in recording.glob(f"profile/{family}/*") if p.is_dir()
    ):
        m, r = parse_files([folder])
        if m.empty:
            continue
        write_table(m, tmp_path / f"{folder.name}.csv")
        write_table(r, tmp_path / f"{folder.name}.rules.csv")
        metrics.append(tmp_path / f"{folder.name}.csv")
        rules.append(tmp_path / f"{folder.name}.rules.csv")
    inputs = AnalysisInputs(
        KERNELS[family] / family,
        sorted(recording.glob(f"build/{family}/*.resources.json")),
        sorted(recording.glob(f"verify/{family}/*.json")),
        sorted(recording.glob(f"time/{family}/*.json")),
        metrics,
        rules,
        sorted(recording.glob(f"profile/{family}/*")),
        recording / "ceilings.json",
    )
    out = tmp_path / "analysis"
    write_analysis(inputs, out)
    return out
