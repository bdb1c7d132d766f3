"""``nsightflow record``: results/ GPU-stage outputs -> a recording folder."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``record`` to the CLI."""
    p = sub.add_parser(
        "record", help="results/ GPU-stage outputs -> a recording folder"
    )
    p.add_argument("--results", type=Path, default=Path("results"))
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--command", default="snakemake --cores all")
    p.add_argument(
        "--add",
        action="store_true",
        help="add to the existing recording --out (listed under additions)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow record``."""
    from nsightflow.machine.recording import record

    info = record(args.results, args.out, args.command, add=args.add)
    if args.add:
        info = info["additions"][-1]
    print(f"recorded {', '.join(info['families'])} on {info['gpu']} into {args.out}")
    return 0
