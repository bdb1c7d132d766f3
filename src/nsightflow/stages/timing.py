"""``nsightflow time``: CUDA-event timing over the size sweep."""

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nsightflow.contracts import columns as col
from nsightflow.io import write_json
from nsightflow.stages.common import variant_args

if TYPE_CHECKING:
    from nsightflow.gpu.timing import TimingSettings


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``time`` to the CLI."""
    p = sub.add_parser("time", help="CUDA-event timing over the size sweep")
    variant_args(p)
    p.add_argument("--verify", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    timing_args(p)
    p.add_argument("--timeout-s", type=float, default=300)
    p.set_defaults(handler=run)


def timing_args(p: argparse.ArgumentParser) -> None:
    """The sampling flags (config.yaml ``timing``), shared with ``measure``."""
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


def timing_fields(args: argparse.Namespace, timeout_s: float) -> dict[str, Any]:
    """The sampling settings of the parsed flags, by field of ``TimingSettings``."""
    names = (
        "warmup",
        "min_reps",
        "max_reps",
        "budget_s",
        "settle_rel",
        col.CACHE,
        "guard",
    )
    return {**{name: getattr(args, name) for name in names}, "timeout_s": timeout_s}


def timing_settings(args: argparse.Namespace, timeout_s: float) -> "TimingSettings":
    """The sampling settings of the parsed flags."""
    from nsightflow.gpu.timing import TimingSettings

    return TimingSettings(**timing_fields(args, timeout_s))


def print_rows(record: dict[str, Any]) -> None:
    """One line per timed size and the stage's status line."""
    for row in record.get("rows", []):
        energy = row.get(col.ENERGY_J_PER_LAUNCH)
        said = f", {energy * 1e3:.3g} mJ/launch" if energy is not None else ""
        print(
            f"  n={row['size']}: {row.get('time_median_us', float('nan')):.2f} us "
            f"({row.get('reps', 0)} reps{said})"
        )
    print(
        f"{record['family']}/{record['variant']}: time {record['status']} "
        f"{record['message']}"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow time``."""
    from nsightflow.gpu import driver as stages

    record = stages.time(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "verify": args.verify},
        timing_settings(args, args.timeout_s),
        args.seed,
    )
    from nsightflow.family.tuned import built_config

    record[col.CONFIG] = built_config(args.cubin)  # which configuration, and why
    write_json(args.out, record)
    print_rows(record)
    return 0
