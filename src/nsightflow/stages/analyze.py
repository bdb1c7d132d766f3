"""``nsightflow analyze``: derive the family's analysis tables."""

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nsightflow.analysis.analyze import AnalysisInputs
    from nsightflow.family.registry import Family


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``analyze`` to the CLI."""
    p = sub.add_parser("analyze", help="derive the family's analysis tables")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    for name in (
        "resources",
        "verify",
        "timing",
        "metrics",
        "rules",
        "profiles",
        "sanitize",
        "source",  # contracts: literal (an option's name)
    ):
        p.add_argument(f"--{name}", type=Path, nargs="*", default=[])
    p.add_argument("--ceilings", type=Path)
    p.add_argument(
        "--out-dir",
        type=Path,
        required=True,
        help="folder of the analysis tables (analysis.csv, stalls.csv, rules.csv, "
        "hotspots.csv, context.json, findings.csv), which plot and report read",
    )
    p.add_argument(
        "--summary",
        type=Path,
        help="also write the family's summary.csv (analysis.csv's headline columns)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow analyze``."""
    from nsightflow.analysis.analyze import AnalysisInputs
    from nsightflow.family.registry import load_family

    inputs = AnalysisInputs(
        args.kernels_dir / args.family,
        args.resources,
        args.verify,
        args.timing,
        args.metrics,
        args.rules,
        args.profiles,
        args.ceilings,
        args.sanitize,
        args.source,
    )
    analyze(load_family(inputs.family_dir), inputs, args.out_dir, args.summary)
    return 0


def analyze(
    family: "Family", inputs: "AnalysisInputs", out_dir: Path, summary: Path | None
) -> None:
    """The family's analysis tables, its findings and (with ``summary``) summary.csv."""
    from nsightflow.analysis.analyze import write_analysis
    from nsightflow.contracts import ANALYSIS
    from nsightflow.diagnosis.build import write_findings

    write_analysis(inputs, out_dir, family)
    write_findings(out_dir)  # the diagnosis of the tables just written
    if summary:
        from nsightflow.report.summary import write_summary_csv

        write_summary_csv(out_dir / ANALYSIS.name, summary)
