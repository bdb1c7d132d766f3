"""``nsightflow verify``: check one variant against the numpy reference."""

import argparse
from pathlib import Path

from nsightflow.io import write_json
from nsightflow.stages.common import variant_args


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``verify`` to the CLI."""
    p = sub.add_parser("verify", help="check one variant against the numpy reference")
    variant_args(p)
    p.add_argument("--resources", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--timeout-s", type=float, default=120)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow verify``."""
    from nsightflow.gpu import driver as stages

    record = stages.verify(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "resources": args.resources},
        args.timeout_s,
        args.seed,
    )
    write_json(args.out, record)
    print(
        f"{args.family}/{args.variant}: verify {record['status']}: {record['message']}"
    )
    return 0
