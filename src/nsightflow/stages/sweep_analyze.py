"""``nsightflow sweep-analyze``: a family's sweep records as two tables."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``sweep-analyze`` to the CLI."""
    p = sub.add_parser("sweep-analyze", help="a family's sweep tables")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--records", type=Path, nargs="+", required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow sweep-analyze``."""
    from nsightflow.analysis.sweep import write_analysis
    from nsightflow.family.registry import load_family

    family = load_family(args.kernels_dir / args.family)
    write_analysis(args.records, args.out_dir, family)
    return 0
