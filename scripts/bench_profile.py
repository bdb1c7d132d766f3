"""Benchmark (GPU machine): wall time of the profile stage, lean set vs --set full.

Profiles the same launches (each variant's profiled sizes) with the default lean set
and with `--set full`, three times each, and prints the medians and their ratio.
Needs compiled cubins and verify records (run the pipeline up to verify first).
Usage: python scripts/bench_profile.py FAMILY/VARIANT [FAMILY/VARIANT ...]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPS = int(os.environ.get("BENCH_REPS", "3"))


def profile_wall(family: str, variant: str, ncu_set: str) -> float:
    """Wall time of one profile stage run; prints ncu's replay passes per size."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "nsightflow",
                "profile",
                "--family",
                family,
                "--variant",
                variant,
                "--cubin",
                f"results/build/{family}/{variant}.cubin",
                "--verify",
                f"results/verify/{family}/{variant}.json",
                "--out-dir",
                str(Path(tmp) / "p"),
                "--set",
                ncu_set,
            ],
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - start
        meta = json.loads((Path(tmp) / "p" / "profile.json").read_text())
        passes = [r.get("passes") for r in meta["reports"]]
        print(
            f"  {family}/{variant} {ncu_set}: {wall:.1f} s, passes per size {passes}",
            flush=True,
        )
        return wall


def main() -> None:
    for target in sys.argv[1:]:
        family, variant = target.split("/")
        walls = {
            s: [profile_wall(family, variant, s) for _ in range(REPS)]
            for s in ("lean", "full")
        }
        lean, full = (statistics.median(walls[s]) for s in ("lean", "full"))
        print(
            f"{target}: lean {lean:.1f} s, full {full:.1f} s, ratio {lean / full:.2f} "
            f"(medians of {REPS}; {walls})",
            flush=True,
        )


if __name__ == "__main__":
    main()
