"""``nsightflow index``: index.md / index.html over all families."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``index`` to the CLI."""
    p = sub.add_parser("index", help="index.md / index.html over all families")
    p.add_argument("--report-dir", type=Path, default=Path("results/report"))
    p.add_argument("--families", nargs="+", required=True)
    p.add_argument(
        "--language",
        choices=["en", "zh"],
        default="en",
        help="link the reports in this language (index.zh.html for zh)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow index``."""
    from nsightflow.report.build import write_index

    write_index(args.report_dir, args.families, language=args.language)
    return 0
