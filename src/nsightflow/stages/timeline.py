"""``nsightflow timeline``: trace copies and kernel of one variant."""

import argparse
from pathlib import Path

from nsightflow.contracts import columns as col


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``timeline`` to the CLI."""
    p = sub.add_parser("timeline", help="trace copies and kernel of one variant")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", required=True)
    p.add_argument("--cubin", type=Path, required=True)
    p.add_argument("--seed", type=int, default=408)
    p.add_argument("--verify", type=Path, required=True)
    p.add_argument(
        "--backend-choice",
        type=Path,
        required=True,
        help="the JSON written by `nsightflow timeline-backend`",
    )
    p.add_argument("--backend", choices=["auto", "cupti", "nsys"], default="auto")
    p.add_argument(
        "--sizes", type=int, nargs="*", default=[], help="default: profiled sizes"
    )
    p.add_argument("--timeout-s", type=float, default=300)
    p.add_argument("--out", type=Path, required=True, help="record (.json)")
    p.add_argument("--table", type=Path, required=True, help="timeline table (.csv)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow timeline``."""
    from nsightflow.gpu.timeline.driver import (
        TimelineSettings,
        record_variant,
        write_outputs,
    )

    settings = TimelineSettings(tuple(args.sizes), args.backend, args.timeout_s)
    record = record_variant(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "verify": args.verify, col.BACKEND: args.backend_choice},
        settings,
        args.seed,
    )
    write_outputs(record, args.out, args.table)
    print(
        f"{args.family}/{args.variant}: timeline {record['status']} "
        f"({record.get('backend')}) {record['message']}"
    )
    return 0
