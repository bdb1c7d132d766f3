"""``nsightflow sweep-plot``: one heatmap per swept variant."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``sweep-plot`` to the CLI."""
    p = sub.add_parser("sweep-plot", help="a heatmap per swept variant")
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument("--variants", nargs="+", required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow sweep-plot``."""
    from nsightflow.plot.sweep import write_figures

    write_figures(args.analysis_dir, args.out_dir, args.variants)
    return 0
