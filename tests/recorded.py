"""Shared test helpers: the recording analyzed as the workflow does it.

On pytest's path (pyproject `pythonpath = ["tests"]`): `from recorded import analyze`.
"""

import os
from pathlib import Path

from nsightflow.analysis.analyze import AnalysisInputs, write_analysis
from nsightflow.diagnosis.build import write_findings

ROOT = Path(__file__).resolve().parents[1]
# NSIGHTFLOW_TEST_RECORDING names another recording to run the recording tests over (a
# fresh measurement copied back from a GPU node, `nsightflow record`): the property tests
# then check its families; the named cases, written for the bundled one, fail there.
RECORDING = Path(
    os.environ.get("NSIGHTFLOW_TEST_RECORDING") or ROOT / "examples" / "h200"
)
FAMILIES = tuple(  # every family the recording holds but the fault-injection one
    sorted(
        p.name
        for p in (RECORDING / "time").iterdir()
        if p.is_dir() and p.name != "faulty"
    )
)
KERNELS = {
    "jacobi2d": ROOT / "kernels",
    "sgemm": ROOT / "kernels",
    "histogram": ROOT / "kernels",
    "spmv": ROOT / "kernels",
    "reduction": ROOT / "kernels",
    "faulty": ROOT / "tests" / "data" / "families",
}


def analyze(recording: Path, family: str, tmp_path: Path) -> Path:
    """parse -> analyze (tables, then findings) on the recording, as the workflow does."""
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
        KERNELS.get(family, ROOT / "kernels") / family,
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
    write_findings(out)
    return out


def analyze_measured(
    data: Path, family: str, kernels_dir: Path, tmp_path: Path
) -> Path:
    """parse -> analyze of one family of a recording in the family layout (one shared
    ncu report for its variants), with the per-instruction samples, into tmp_path."""
    from nsightflow.stages.parse import inlined_sites
    from nsightflow.tools.ncu_parse import parse_files, write_table
    from nsightflow.tools.ncu_source import parse_source_files

    tables: dict[str, list[Path]] = {"metrics": [], "rules": [], "source": []}
    folders = sorted(p for p in (data / f"profile/{family}").iterdir() if p.is_dir())
    # the compile records' call sites: inlined toolkit code named by the kernel's line
    inlined = inlined_sites(sorted(data.glob(f"build/{family}/*.resources.json")))
    for folder in folders:
        metrics, rules = parse_files([folder])
        source, _ = parse_source_files([folder], inlined=inlined)
        for frame, kind in ((metrics, "metrics"), (rules, "rules"), (source, "source")):
            path = tmp_path / f"{folder.name}.{kind}.csv"
            write_table(frame, path)
            tables[kind].append(path)
    inputs = AnalysisInputs(
        kernels_dir / family,
        sorted(data.glob(f"build/{family}/*.resources.json")),
        sorted(data.glob(f"verify/{family}/*.json")),
        sorted(data.glob(f"time/{family}/*.json")),
        tables["metrics"],
        tables["rules"],
        [data / f"profile/{family}"],  # the family's folder: every variant in it
        data / "ceilings.json",
        source=tables["source"],
    )
    out = tmp_path / "analysis"
    write_analysis(inputs, out)
    write_findings(out)  # the analyze stage's second step
    return out


def analysed_families(recording: Path, families: tuple[str, ...], tmp_factory) -> dict:
    """Each family of the recording analysed into its own folder of ``tmp_factory``."""
    out = {}
    for family in families:
        tmp = tmp_factory.mktemp(family)
        kernels = KERNELS.get(family, ROOT / "kernels")
        out[family] = analyze_measured(recording, family, kernels, tmp)
    return out


def written_reports(analysed: dict, tmp_factory, recording: Path) -> dict[str, str]:
    """Each analysed family's report.md, with its traced sequences, as the workflow
    writes it."""
    from nsightflow.analysis.timeline import write_analysis as write_timeline
    from nsightflow.report.build import write_report

    out = {}
    for family, folder in analysed.items():
        tmp = tmp_factory.mktemp(f"{family}_report")
        write_timeline(
            sorted(recording.glob(f"timeline/{family}/*.json")),
            sorted(recording.glob(f"timeline/{family}/*.csv")),
            tmp / "timeline",
        )
        summary = tmp / "timeline" / "timeline_summary.csv"
        timeline = summary if summary.is_file() else None
        write_report(folder, tmp / "figures", tmp / "report", timeline=timeline)
        out[family] = (tmp / "report" / "report.md").read_text()
    return out
