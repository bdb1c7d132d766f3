"""``nsightflow ceilings-table``: ceilings JSON -> ceilings.csv."""

import argparse
from pathlib import Path

from nsightflow.contracts import CEILINGS
from nsightflow.io import read_json


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``ceilings-table`` to the CLI."""
    p = sub.add_parser("ceilings-table", help="ceilings JSON -> ceilings.csv")
    p.add_argument("ceilings", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow ceilings-table``."""
    data = read_json(args.ceilings)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    CEILINGS.write(
        CEILINGS.frame([{c: data.get(c) for c in CEILINGS.columns}]), args.output
    )
    return 0
