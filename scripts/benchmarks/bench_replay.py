"""Benchmark: a full replay run (`snakemake --cores all`), wall and CPU time per stage.

Copies the workflow, kernels and recording into a fresh temporary folder per repetition
(no results/, no .snakemake/), runs the README's main command and prints, per run, the
wall time, the CPU time (user + system) of everything it started, and that CPU time per
stage: each nsightflow process appends its stages and CPU seconds to a log
(NSIGHTFLOW_CPU_LOG, nsightflow.cli); what is left is Snakemake's own and the shells'.
The load average at the start and the end says how busy the machine was.

Usage: python scripts/benchmarks/bench_replay.py [repetitions] [--cold]

--cold: each run also starts with a new, empty matplotlib configuration folder (its font
cache is built on the way), as on a fresh clone's first run. (Python's compiled modules
are not emptied: pip compiles an installed package's modules when it installs them.)
"""

import collections
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPY = ("Snakefile", "config.yaml", "workflow", "kernels", "profiles", "examples")


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def stage_cpu(log: Path) -> tuple[dict[str, float], dict[str, int]]:
    """CPU seconds and process count per stage (chained stages joined by +)."""
    cpu: dict[str, float] = collections.defaultdict(float)
    count: dict[str, int] = collections.defaultdict(int)
    for line in log.read_text().splitlines() if log.is_file() else []:
        stages, user, system = line.split("\t")
        cpu[stages] += float(user) + float(system)
        count[stages] += 1
    return dict(cpu), dict(count)


def one_run(cold: bool) -> tuple[float, float, dict[str, float], dict[str, int]]:
    with tempfile.TemporaryDirectory(prefix="nsf-bench-") as tmp:
        for name in COPY:
            src, dst = ROOT / name, Path(tmp) / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
        log = Path(tmp) / "cpu.log"
        env = {**os.environ, "NSIGHTFLOW_CPU_LOG": str(log)}
        env.pop("NSIGHTFLOW_MODE", None)
        if cold:
            env["MPLCONFIGDIR"] = tempfile.mkdtemp(dir=tmp, prefix="mpl-")
        cpu0, start = children_cpu(), time.perf_counter()
        proc = subprocess.run(
            ["snakemake", "--cores", "all"],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        wall, cpu = time.perf_counter() - start, children_cpu() - cpu0
        if proc.returncode != 0:
            sys.exit(proc.stderr[-3000:])
        stages, count = stage_cpu(log)
        reports = sorted(Path(tmp).glob("results/report/*/report.*"))
        print(
            f"replay run: {wall:.1f} s wall, {cpu:.1f} s CPU, "
            f"{len(reports)} report files",
            flush=True,
        )
        return wall, cpu, stages, count


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--cold"]
    reps = int(args[0]) if args else 3
    cold = "--cold" in sys.argv[1:]
    load0 = os.getloadavg()[0]
    runs = [one_run(cold) for _ in range(reps)]
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    print(
        f"median {statistics.median(walls):.1f} s wall over {reps} runs "
        f"(min {min(walls):.1f}, max {max(walls):.1f}); CPU median "
        f"{statistics.median(cpus):.1f} s; nproc={len(os.sched_getaffinity(0))}; "
        f"load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
        + ("; cold caches" if cold else "")
    )
    print("stage (processes): median CPU seconds per run")
    names = sorted({n for r in runs for n in r[2]}, key=lambda n: -runs[0][2].get(n, 0))
    for name in names:
        cpu = statistics.median(r[2].get(name, 0.0) for r in runs)
        print(f"  {name} ({runs[0][3].get(name, 0)}): {cpu:.1f}")
    rest = statistics.median(r[1] - sum(r[2].values()) for r in runs)
    print(f"  snakemake and shells: {rest:.1f}")


if __name__ == "__main__":
    main()
