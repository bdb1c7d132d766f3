"""``nsightflow sweep-compile``: every configuration of a variant's space, in parallel."""

import argparse
from pathlib import Path

from nsightflow.contracts import columns as col
from nsightflow.io import write_json


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``sweep-compile`` to the CLI."""
    p = sub.add_parser(
        "sweep-compile", help="compile every configuration of a variant's space"
    )
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", required=True)
    p.add_argument("--space", choices=["quick", "full"], default="quick")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--jobs", type=int, default=1, help="nvcc processes at a time")
    p.add_argument("--build-dir", type=Path, required=True, help="cubins go here")
    p.add_argument("--out", type=Path, required=True, help="compile.json")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow sweep-compile``."""
    from nsightflow.family.registry import find_variant
    from nsightflow.gpu.sweep.space import compile_all

    _, variant = find_variant(args.kernels_dir, args.family, args.variant)
    record = compile_all(variant, args.space, args.arch, args.build_dir, args.jobs)
    write_json(args.out, record)
    counts: dict[str, int] = {}
    for config in record[col.CONFIGS]:
        counts[config[col.STATUS]] = counts.get(config[col.STATUS], 0) + 1
    print(
        f"{args.family}/{args.variant}: {len(record['configs'])} configurations "
        f"({args.space}) in {record['compile_wall_s']} s with {args.jobs} jobs: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    return 0
