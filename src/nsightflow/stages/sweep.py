"""``nsightflow sweep``: verify and time every configuration in one GPU process.

Results are cached as they come, so an interrupted sweep resumes.
"""

import argparse
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.io import write_json


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``sweep`` to the CLI."""
    p = sub.add_parser(
        "sweep", help="verify and time every compiled configuration (one GPU process)"
    )
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", required=True)
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
    p.add_argument(
        "--write-tuned",
        action="store_true",
        help="store the best configuration in kernels/<family>/tuned.yaml for this "
        "GPU model (only with this flag; the line printed names what it replaced)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow sweep``."""
    from nsightflow.gpu.sweep.driver import SweepPaths, SweepSettings
    from nsightflow.gpu.sweep.driver import run as sweep

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
    record = sweep(args.kernels_dir, (args.family, args.variant), paths, settings)
    write_json(args.out, record)
    best = record["best"]
    print(
        f"{args.family}/{args.variant}: sweep {record['status']} in "
        f"{record['sweep_wall_s']} s: {len(record['configs'])} configurations, "
        f"{record['resumed']} from the cache, {record['restarts']} restarts; best "
        + (f"{best['id']} {best['times_us']} us" if best else "none")
    )
    if args.write_tuned:
        print(write_tuned(args.kernels_dir / args.family, args.out, record))
    return 0


def write_tuned(folder: Path, out: Path, record: dict[str, Any]) -> str:
    """Store the sweep's best for its GPU model in ``tuned.yaml``; the line to print."""
    from nsightflow.errors import StageInputError
    from nsightflow.family.tuned import TunedEntry, write_entry

    best, gpu = record["best"], str(record["provenance"].get(col.GPU) or "")
    if not best or not gpu:
        raise StageInputError(
            f"{out}: --write-tuned: the sweep found no best configuration or no GPU "
            "name; tuned.yaml is left as it was"
        )
    times = ", ".join(f"{t:,.1f} us at n = {n}" for n, t in best["times_us"].items())
    info = {
        "sweep": f"{out} ({record['space']} space, {record['strategy']}: {times})",
        col.DATE: str(record["provenance"].get(col.DATE, ""))[:10],
    }
    return write_entry(
        folder, TunedEntry(gpu, record[col.VARIANT], best[col.PARAMS], info)
    )
