"""``nsightflow report``: report.md / report.html / summary.csv.

In Chinese the report is ``report.zh.md`` / ``.html``; ``--only`` splits the report
from the summary, which is the same in every language (the workflow's rules).
"""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``report`` to the CLI."""
    p = sub.add_parser(
        "report", help="report.md / report.html (report.zh.* in Chinese) / summary.csv"
    )
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--figures-dir", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument(
        "--language",
        choices=["en", "zh"],
        default="en",
        help="language of the report's text (default: en)",
    )
    p.add_argument(
        "--timeline",
        type=Path,
        nargs="*",
        default=[],
        help="the family's timeline_summary.csv: adds the timeline section",
    )
    p.add_argument(
        "--sweep",
        type=Path,
        nargs="*",
        default=[],
        help="the family's sweep_summary.csv (sweep.csv beside it): adds the sweep "
        "section",
    )
    p.add_argument(
        "--only",
        choices=["report", "summary"],
        help="write only report[.LANG].md/.html, or only summary.csv (default: both)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow report``."""
    from nsightflow.report.build import write_report, write_summary

    if args.only == "summary":
        write_summary(args.analysis_dir, args.out_dir)
        return 0
    write_report(
        args.analysis_dir,
        args.figures_dir,
        args.out_dir,
        language=args.language,
        timeline=args.timeline[0] if args.timeline else None,
        sweep=args.sweep[0] if args.sweep else None,
        summary=args.only is None,
    )
    return 0
