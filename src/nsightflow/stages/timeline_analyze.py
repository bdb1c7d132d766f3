"""``nsightflow timeline-analyze``: a family's timeline tables."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``timeline-analyze`` to the CLI."""
    p = sub.add_parser("timeline-analyze", help="a family's timeline tables")
    p.add_argument("--records", type=Path, nargs="+", required=True)
    p.add_argument("--tables", type=Path, nargs="+", required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow timeline-analyze``."""
    from nsightflow.analysis.timeline import write_analysis

    write_analysis(args.records, args.tables, args.out_dir)
    return 0
