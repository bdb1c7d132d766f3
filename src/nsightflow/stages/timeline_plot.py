"""``nsightflow timeline-plot``: a family's timeline figure."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``timeline-plot`` to the CLI."""
    p = sub.add_parser("timeline-plot", help="a family's timeline figure")
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--family", required=True)
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow timeline-plot``."""
    from nsightflow.plot.timeline import write_figure

    write_figure(args.analysis_dir, args.out, args.family)
    return 0
