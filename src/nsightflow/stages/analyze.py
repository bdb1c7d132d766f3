"""``nsightflow analyze``: derive the family's analysis tables."""

import argparse
from pathlib import Path


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
        "source",
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
    from nsightflow.analysis.analyze import AnalysisInputs, write_analysis
    from nsightflow.diagnosis.build import write_findings

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
    write_analysis(inputs, args.out_dir)
    write_findings(args.out_dir)  # the diagnosis of the tables just written
    if args.summary:
        from nsightflow.report.summary import write_summary_csv

        write_summary_csv(args.out_dir / "analysis.csv", args.summary)
    return 0
