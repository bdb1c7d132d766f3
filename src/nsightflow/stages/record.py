"""``nsightflow record``: results/ GPU-stage outputs -> a recording folder."""

import argparse
import sys
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
    left = info["left_out"]
    for refusal in left["refused"]:
        print(f"WARNING: not recorded: {refusal}", file=sys.stderr)
    print(f"recorded {', '.join(info['families'])} on {info['gpu']} into {args.out}")
    if left["replayed"]:
        print(
            f"left out {left['replayed']} outputs replayed from a recording "
            "(they are in that recording already)"
        )
    if info.get("superseded"):
        print(
            f"kept the {len(info['replaced']) + len(info['removed'])} files this "
            f"addition replaces under {args.out / info['superseded']}"
        )
    return 0
