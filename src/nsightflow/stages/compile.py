"""``nsightflow compile``: nvcc one variant to a cubin + resources JSON."""

import argparse
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
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
    p.add_argument(
        "--gpu-model",
        default=None,
        help="the GPU the run measures on, for tuned.yaml (default: the first "
        "visible GPU's name; none visible: the manifest defaults)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow compile``."""
    from nsightflow.family.registry import find_variant
    from nsightflow.tools.nvcc import compile_variant

    _, variant = find_variant(args.kernels_dir, args.family, args.variant)
    variant, config = choose_config(variant, args.sweep, args.gpu_model)
    record = compile_variant(variant, args.arch, args.cubin)
    record[col.CONFIG] = config
    write_json(args.resources, record)
    print(
        f"{args.family}/{args.variant}: {record['status']} "
        f"{record.get('resources', '')}{record['message'][-2000:]}"
    )
    if config["id"]:
        print(f"  configuration {config['id']}: {config['detail']}")
    return 0


def choose_config(
    variant: Any, sweep: list[Path], gpu: str | None
) -> tuple[Any, dict[str, Any]]:
    """This run's sweep's best; else tuned.yaml's entry for this GPU; else defaults."""
    from nsightflow.family.tuned import SWEEP, config_block, starting_config

    model = gpu_model() if gpu is None else gpu
    start, config = starting_config(variant, model)
    best = None
    if sweep and variant.params:
        from nsightflow.gpu.sweep.driver import best_params

        best = best_params(sweep[0])
    if not best:
        return start, config
    same = " = " + config["detail"] if best == config[col.PARAMS] else ""
    detail = f"this run's sweep ({sweep[0]}){same}"
    return variant.with_params(best), config_block(best, SWEEP, model, detail)


def gpu_model() -> str:
    """The name of the GPU the GPU stages will use, or "" where none is visible."""
    try:
        import pynvml

        from nsightflow.machine.gpulock import nvml_handle

        pynvml.nvmlInit()
        try:
            name = pynvml.nvmlDeviceGetName(nvml_handle(pynvml))
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # no driver, no GPU, no pynvml: the defaults run
        return ""
    return name.decode() if isinstance(name, bytes) else str(name)
