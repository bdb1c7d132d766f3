"""``nsightflow time``: CUDA-event timing over the size sweep."""

import argparse
from pathlib import Path

from nsightflow.io import write_json
from nsightflow.stages.common import variant_args


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``time`` to the CLI."""
    p = sub.add_parser("time", help="CUDA-event timing over the size sweep")
    variant_args(p)
    p.add_argument("--verify", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--min-reps", type=int, default=30)
    p.add_argument("--max-reps", type=int, default=2000)
    p.add_argument("--budget-s", type=float, default=1.0)
    p.add_argument("--settle-rel", type=float, default=0.005)
    p.add_argument("--cache", choices=["auto", "hot", "cold"], default="auto")
    p.add_argument(
        "--guard",
        choices=["flag", "wait", "refuse"],
        default="flag",
        help="when other processes use the GPU: time and flag, wait, or refuse",
    )
    p.add_argument("--timeout-s", type=float, default=300)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow time``."""
    from nsightflow.gpu import driver as stages
    from nsightflow.gpu.timing import TimingSettings

    settings = TimingSettings(
        args.warmup,
        args.min_reps,
        args.max_reps,
        args.budget_s,
        args.settle_rel,
        args.timeout_s,
        args.cache,
        args.guard,
    )
    record = stages.time(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "verify": args.verify},
        settings,
        args.seed,
    )
    write_json(args.out, record)
    for row in record.get("rows", []):
        print(
            f"  n={row['size']}: {row.get('time_median_us', float('nan')):.2f} us "
            f"({row.get('reps', 0)} reps)"
        )
    print(f"{args.family}/{args.variant}: time {record['status']} {record['message']}")
    return 0
