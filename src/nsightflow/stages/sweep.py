"""The sweep's subcommands, registered by :mod:`nsightflow.cli`.

``sweep-compile`` (every configuration of a variant's space, CPU jobs in parallel),
``sweep`` (verify and time them in one GPU process, resumable), ``sweep-analyze`` (the
family's sweep tables) and ``sweep-plot`` (one heatmap per swept variant).
"""

import argparse
from pathlib import Path

from nsightflow.machine import provenance


def _compile(args: argparse.Namespace) -> int:
    from nsightflow.family.registry import find_variant
    from nsightflow.gpu.sweep import compile_all

    _, variant = find_variant(args.kernels_dir, args.family, args.variant)
    record = compile_all(variant, args.space, args.arch, args.build_dir, args.jobs)
    provenance.write_json(args.out, record)
    counts: dict[str, int] = {}
    for config in record["configs"]:
        counts[config["status"]] = counts.get(config["status"], 0) + 1
    print(
        f"{args.family}/{args.variant}: {len(record['configs'])} configurations "
        f"({args.space}) in {record['compile_wall_s']} s with {args.jobs} jobs: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from nsightflow.gpu.sweep import SweepPaths, SweepSettings, run

    settings = SweepSettings(
        strategy=args.strategy,
        max_configs=args.max_configs,
        budget_s=args.budget_s,
        config_timeout_s=args.config_timeout_s,
        warmup=args.warmup,
        min_reps=args.min_reps,
        max_reps=args.max_reps,
        rep_budget_s=args.rep_budget_s,
        cache=args.cache_mode,
        seed=args.seed,
    )
    paths = SweepPaths(args.compiled, args.build_dir, args.cache, args.out)
    record = run(args.kernels_dir, (args.family, args.variant), paths, settings)
    provenance.write_json(args.out, record)
    best = record["best"]
    print(
        f"{args.family}/{args.variant}: sweep {record['status']} in "
        f"{record['sweep_wall_s']} s: {len(record['configs'])} configurations, "
        f"{record['resumed']} from the cache, {record['restarts']} restarts; best "
        + (f"{best['id']} {best['times_us']} us" if best else "none")
    )
    return 0


def _analyze(args: argparse.Namespace) -> int:
    from nsightflow.analysis.sweep import write_analysis
    from nsightflow.family.registry import load_family

    family = load_family(args.kernels_dir / args.family)
    write_analysis(args.records, args.out_dir, family)
    return 0


def _plot(args: argparse.Namespace) -> int:
    from nsightflow.plot.sweep import write_figures

    write_figures(args.analysis_dir, args.out_dir, args.variants)
    return 0


def _variant_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", required=True)


def add_commands(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Register the sweep subcommands on the CLI's subparsers."""
    p = sub.add_parser(
        "sweep-compile", help="compile every configuration of a variant's space"
    )
    _variant_args(p)
    p.add_argument("--space", choices=["quick", "full"], default="quick")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--jobs", type=int, default=1, help="nvcc processes at a time")
    p.add_argument("--build-dir", type=Path, required=True, help="cubins go here")
    p.add_argument("--out", type=Path, required=True, help="compile.json")
    p.set_defaults(handler=_compile)

    p = sub.add_parser(
        "sweep", help="verify and time every compiled configuration (one GPU process)"
    )
    _variant_args(p)
    p.add_argument("--compiled", type=Path, required=True, help="compile.json")
    p.add_argument("--build-dir", type=Path, required=True)
    p.add_argument(
        "--cache", type=Path, required=True, help="results so far (kept: resume)"
    )
    p.add_argument("--out", type=Path, required=True, help="the sweep record (.json)")
    p.add_argument(
        "--strategy",
        default="exhaustive",
        help="exhaustive, or a Kernel Tuner strategy (random_sample, ...)",
    )
    p.add_argument("--max-configs", type=int, default=0, help="0: the whole space")
    p.add_argument("--budget-s", type=float, default=300.0)
    p.add_argument("--config-timeout-s", type=float, default=60.0)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--min-reps", type=int, default=5)
    p.add_argument("--max-reps", type=int, default=200)
    p.add_argument("--rep-budget-s", type=float, default=0.25)
    p.add_argument("--cache-mode", choices=["auto", "hot", "cold"], default="auto")
    p.add_argument("--seed", type=int, default=408)
    p.set_defaults(handler=_sweep)

    p = sub.add_parser("sweep-analyze", help="a family's sweep tables")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--records", type=Path, nargs="+", required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.set_defaults(handler=_analyze)

    p = sub.add_parser("sweep-plot", help="a heatmap per swept variant")
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument("--variants", nargs="+", required=True)
    p.set_defaults(handler=_plot)
