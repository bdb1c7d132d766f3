"""``nsightflow replay``: copy one recorded stage output into results/."""

import argparse
import sys
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``replay`` to the CLI."""
    p = sub.add_parser("replay", help="copy one recorded stage output into results/")
    p.add_argument("recorded", type=Path)
    p.add_argument("output", type=Path)
    p.add_argument("--family", help="with --variant: record a missing file as data")
    p.add_argument("--variant")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow replay``."""
    from nsightflow.machine.replay import replay_file

    ident = (args.family, args.variant) if args.family and args.variant else None
    refusal = replay_file(args.recorded, args.output, ident)
    if refusal:  # with --family/--variant: written as not_recorded, saying why
        print(f"WARNING: {refusal}", file=sys.stderr)
    print(f"replayed {args.recorded} -> {args.output}")
    return 0
