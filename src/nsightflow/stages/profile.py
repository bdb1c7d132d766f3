"""``nsightflow profile``: one launch per profiled size under ncu."""

import argparse
from pathlib import Path

from nsightflow.machine import provenance
from nsightflow.stages.common import variant_args


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``profile`` to the CLI."""
    p = sub.add_parser("profile", help="one launch per profiled size under ncu")
    variant_args(p)
    p.add_argument("--verify", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument("--clock-control", choices=["none", "base"], default="none")
    p.add_argument("--set", choices=["lean", "full"], default="lean")
    p.add_argument("--timeout-s", type=float, default=300)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow profile``."""
    from nsightflow.gpu import driver as stages
    from nsightflow.tools.ncu import NcuSettings

    settings = NcuSettings(args.clock_control, args.set, args.timeout_s)
    record = stages.profile(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "verify": args.verify, "out_dir": args.out_dir},
        settings,
        args.seed,
    )
    provenance.write_json(args.out_dir / "profile.json", record)
    print(
        f"{args.family}/{args.variant}: profile {record['status']} {record['message']}"
    )
    return 0
