"""``nsightflow plot``: figures from the analysis tables."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``plot`` to the CLI."""
    p = sub.add_parser("plot", help="figures from the analysis tables")
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow plot``."""
    from nsightflow.plot.figures import write_figures

    write_figures(args.analysis_dir, args.out_dir)
    return 0
