"""``nsightflow sanitize``: compute-sanitizer memcheck / racecheck on one launch."""

import argparse
from pathlib import Path

from nsightflow.io import write_json
from nsightflow.stages.common import variant_args


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``sanitize`` to the CLI."""
    p = sub.add_parser(
        "sanitize", help="compute-sanitizer memcheck / racecheck on one launch"
    )
    variant_args(p)
    p.add_argument("--resources", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--size", type=int, default=0, help="0: smallest verify size")
    p.add_argument("--timeout-s", type=float, default=300)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow sanitize``."""
    from nsightflow.gpu.sanitize import SanitizeSettings, sanitize

    record = sanitize(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "resources": args.resources},
        SanitizeSettings(args.size, args.timeout_s),
        args.seed,
    )
    write_json(args.out, record)
    print(
        f"{args.family}/{args.variant}: sanitize {record['status']}: "
        f"{record['message']}"
    )
    return 0
