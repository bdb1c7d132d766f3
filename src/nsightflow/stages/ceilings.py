"""``nsightflow ceilings``: measure copy bandwidth and FP32 FMA rate."""

import argparse
from pathlib import Path

from nsightflow.io import write_json
from nsightflow.machine.gpulock import gpu_info
from nsightflow.tools import provenance


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``ceilings`` to the CLI."""
    p = sub.add_parser("ceilings", help="measure copy bandwidth and FP32 FMA rate")
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow ceilings``."""
    from nsightflow.gpu.ceilings import measure

    record = measure()
    write_json(
        args.out,
        {**record, "provenance": provenance.collect(None, **gpu_info())},
    )
    levels = ", ".join(
        f"{name} {record[key]:.0f} GB/s"
        for name, key in (
            ("L2", "l2_gbps"),
            ("L1", "l1_gbps"),
            ("shared", "shared_gbps"),
        )
        if record.get(key)
    )
    print(
        f"copy {record['copy_gbps']:.0f} GB/s, fp32 {record['fp32_gflops']:.0f} GFLOP/s"
        + (f"; read: {levels}" if levels else "")
    )
    return 0
