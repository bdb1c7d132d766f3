"""``nsightflow compile``: nvcc one variant to a cubin + resources JSON."""

import argparse
from pathlib import Path

from nsightflow.io import write_json
from nsightflow.stages.common import variant_args


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``compile`` to the CLI."""
    p = sub.add_parser("compile", help="nvcc one variant to a cubin + resources JSON")
    variant_args(p)
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--resources", type=Path, required=True)
    p.add_argument(
        "--sweep",
        type=Path,
        nargs="*",
        default=[],
        help="the variant's sweep record: compile its best configuration",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow compile``."""
    from nsightflow.family.registry import find_variant
    from nsightflow.tools.nvcc import compile_variant

    _, variant = find_variant(args.kernels_dir, args.family, args.variant)
    if args.sweep:  # the sweep's best configuration, when it found one
        from nsightflow.gpu.sweep import best_params

        best = best_params(args.sweep[0])
        variant = variant.with_params(best) if best else variant
    record = compile_variant(variant, args.arch, args.cubin)
    write_json(args.resources, record)
    print(
        f"{args.family}/{args.variant}: {record['status']} "
        f"{record.get('resources', '')}{record['message'][-2000:]}"
    )
    return 0
