"""Benchmark (GPU machine): where a profile run's seconds go, and what one process per
family would cost.

Part 1, per FAMILY/VARIANT target (its profiled sizes, one ncu process each):
  worker       the launcher alone (Python, CUDA context, inputs, launches), no ncu
  ncu_1metric  ncu collecting one metric (its start, one pass, report write)
  lean         the profile stage's ncu command line (lean set)
  lean_norules the same with ``--apply-rules no``
  lean_nopc    the same without the warp-sampling metrics
  full         ``--set full``
  stage_lean   ``nsightflow profile`` as the workflow runs it (CLI, provenance, ncu)
  stage_full   the same with ``--set full``
  provenance   what the stage stamps into profile.json (versions, GPU, git), alone
Part 2, per family of the targets: every compiled variant of it profiled in one ncu
process (one worker launching each variant at each profiled size), lean and full,
against the sum of one process per variant.

Needs cubins under results/build (compile first); part 1's stage runs need the verify
records. Usage: python scripts/benchmarks/bench_profile_parts.py FAMILY/VARIANT [...]
Environment: BENCH_REPS (default 2) repetitions of part 1, alternating the configs.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nsightflow.family.registry import find_variant, load_family
from nsightflow.tools import ncu_metrics
from nsightflow.tools.ncu import NcuSettings, launch_spec, ncu_argv, replay_passes

KERNELS = Path("kernels")
REPS = int(os.environ.get("BENCH_REPS", "2"))
SEED = 0
PROVENANCE = (
    "from pathlib import Path; from nsightflow.tools import provenance as p; "
    "from nsightflow.machine.gpulock import gpu_info; "
    "p.collect(Path('kernels'), ncu=p.ncu_version(), **gpu_info())"
)


def _timed(argv: list[str]) -> tuple[float, list[int], int]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        print(
            f"  rc {proc.returncode}: {' '.join(argv)[:200]}\n{out[-800:]}", flush=True
        )
    return wall, replay_passes(out), proc.returncode


def _runs(family: str, variants: list[str]) -> tuple[list[dict], list[str], int]:
    """The worker's runs for these variants, their kernel names, launches in all."""
    runs, kernels, launches = [], [], 0
    for name in variants:
        cubin = Path(f"results/build/{family}/{name}.cubin")
        fam, variant = find_variant(KERNELS, family, name, cubin)
        sizes = [n for n in fam.profile_sizes if variant.accepts_size(n)]
        runs.append(
            {"family": family, "variant": name, "cubin": str(cubin), "sizes": sizes}
        )
        kernels += list(variant.kernels)
        launches += len(sizes) * len(variant.launches)
    return runs, kernels, launches


def _argvs(tmp: Path, family: str, variants: list[str]) -> dict[str, list[str]]:
    runs, kernels, launches = _runs(family, variants)
    spec_path, result_path = tmp / "spec.json", tmp / "result.json"
    first = runs[0]
    spec = launch_spec(
        KERNELS, (family, first["variant"]), Path(first["cubin"]), SEED, []
    )
    spec["runs"] = runs
    spec_path.write_text(json.dumps(spec))
    worker = [sys.executable, "-m", "nsightflow.gpu.worker", "launch"]
    target = [*worker, str(spec_path), str(result_path)]
    report = tmp / "r.ncu-rep"
    lean = ncu_argv(NcuSettings(), kernels, report, target, launches)
    full = ncu_argv(NcuSettings(set="full"), kernels, report, target, launches)
    pc = set(ncu_metrics.SOURCE_METRICS)
    nopc = list(lean)
    i = nopc.index("--metrics") + 1
    nopc[i] = ",".join(m for m in nopc[i].split(",") if m not in pc)
    one = [lean[0], *lean[1:11], "--metrics", "gpu__time_duration.sum"]
    one += ["--export", str(report), "--force-overwrite", *target]
    return {
        "worker": target,
        "ncu_1metric": one,
        "lean": lean,
        "lean_norules": [lean[0], "--apply-rules", "no", *lean[1:]],
        "lean_nopc": nopc,
        "full": full,
    }


def _stage(family: str, variant: str, ncu_set: str, tmp: Path) -> list[str]:
    return [
        sys.executable, "-m", "nsightflow", "profile",
        "--family", family, "--variant", variant,
        "--cubin", f"results/build/{family}/{variant}.cubin",
        "--verify", f"results/verify/{family}/{variant}.json",
        "--out-dir", str(tmp / "stage"), "--set", ncu_set,
    ]  # fmt: skip


def part1(target: str) -> None:
    family, variant = target.split("/")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        argvs = _argvs(tmp, family, [variant])
        argvs["stage_lean"] = _stage(family, variant, "lean", tmp)
        argvs["stage_full"] = _stage(family, variant, "full", tmp)
        argvs["provenance"] = [sys.executable, "-c", PROVENANCE]
        walls: dict[str, list[float]] = {k: [] for k in argvs}
        passes: dict[str, list[int]] = {}
        for _ in range(REPS):
            for name, argv in argvs.items():
                wall, p, _rc = _timed(argv)
                walls[name].append(wall)
                passes[name] = p
        for name in argvs:
            med = statistics.median(walls[name])
            print(
                f"part1 {target:28s} {name:13s} {med:6.2f} s "
                f"passes {passes[name]} walls {[round(w, 2) for w in walls[name]]}",
                flush=True,
            )


def part2(family: str) -> None:
    variants = list(load_family(KERNELS / family).variants)
    variants = [
        v for v in variants if Path(f"results/build/{family}/{v}.cubin").exists()
    ]
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        one = _argvs(tmp, family, variants)
        w_lean, p_lean, _ = _timed(one["lean"])
        w_full, p_full, _ = _timed(one["full"])
        each = {"lean": 0.0, "full": 0.0}
        for v in variants:
            argvs = _argvs(tmp, family, [v])
            each["lean"] += _timed(argvs["lean"])[0]
            each["full"] += _timed(argvs["full"])[0]
    print(
        f"part2 {family}: {len(variants)} variants, one process: lean {w_lean:.1f} s "
        f"full {w_full:.1f} s ratio {w_lean / w_full:.2f} (passes {p_lean[:4]}.. "
        f"{p_full[:4]}..); one per variant: lean {each['lean']:.1f} s full "
        f"{each['full']:.1f} s ratio {each['lean'] / each['full']:.2f}",
        flush=True,
    )


def main() -> None:
    targets = sys.argv[1:]
    for target in targets:
        part1(target)
    for family in dict.fromkeys(t.split("/")[0] for t in targets):
        part2(family)


if __name__ == "__main__":
    main()
