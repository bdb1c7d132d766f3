"""Benchmark: wall time of a full replay run (`snakemake --cores all`, set-up excluded).

Copies the workflow, kernels and recording into a fresh temporary folder per repetition
(no results/, no .snakemake/), runs the README's main command and prints the times.
Usage: python scripts/benchmarks/bench_replay.py [repetitions]
"""

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPY = ("Snakefile", "config.yaml", "workflow", "kernels", "profiles", "examples")


def one_run() -> float:
    with tempfile.TemporaryDirectory(prefix="nsf-bench-") as tmp:
        for name in COPY:
            src, dst = ROOT / name, Path(tmp) / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
        start = time.perf_counter()
        proc = subprocess.run(
            ["snakemake", "--cores", "all"],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(proc.stderr[-3000:])
        reports = sorted(Path(tmp).glob("results/report/*/report.*"))
        print(f"replay run: {wall:.1f} s, {len(reports)} report files", flush=True)
        return wall


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    times = [one_run() for _ in range(reps)]
    print(
        f"median {statistics.median(times):.1f} s over {reps} runs "
        f"(min {min(times):.1f}, max {max(times):.1f}); nproc={len(__import__('os').sched_getaffinity(0))}"
    )


if __name__ == "__main__":
    main()
