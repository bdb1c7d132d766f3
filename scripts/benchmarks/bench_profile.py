"""Benchmark (GPU machine): wall time of the profile stage, lean set vs --set full.

Runs the profile stage as the workflow does, on a whole family (its variants in one
ncu process) or on one variant (FAMILY/VARIANT), with the default lean set and with
`--set full`, alternating, BENCH_REPS times each; prints the medians and their ratio.
Needs compiled cubins and verify records (run the pipeline up to verify first).
Usage: python scripts/benchmarks/bench_profile.py FAMILY[/VARIANT] [...]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nsightflow.family.registry import load_family

REPS = int(os.environ.get("BENCH_REPS", "3"))


def profile_wall(family: str, variants: list[str], ncu_set: str) -> float:
    """Wall time of one profile stage run; prints ncu's replay passes per variant."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "p"
        argv = [sys.executable, "-m", "nsightflow", "profile", "--family", family]
        argv += ["--variant", *variants, "--cubin"]
        argv += [f"results/build/{family}/{v}.cubin" for v in variants]
        argv += ["--verify", *(f"results/verify/{family}/{v}.json" for v in variants)]
        argv += ["--out-dir", str(out), "--set", ncu_set]
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        wall = time.perf_counter() - start
        passes, status = [], set()
        for v in variants:
            meta = json.loads((out / v / "profile.json").read_text())
            status.add(meta["status"])
            passes += [r.get("passes") for r in meta["reports"]]
        print(
            f"  {family} ({len(variants)} variants) {ncu_set}: {wall:.1f} s, "
            f"status {sorted(status)}, passes per launch {passes}",
            flush=True,
        )
        return wall


def main() -> None:
    for target in sys.argv[1:]:
        family, _, variant = target.partition("/")
        variants = (
            [variant]
            if variant
            else list(load_family(Path("kernels") / family).variants)
        )
        walls: dict[str, list[float]] = {"lean": [], "full": []}
        for _ in range(REPS):
            for ncu_set in walls:
                walls[ncu_set].append(profile_wall(family, variants, ncu_set))
        lean, full = (statistics.median(walls[s]) for s in ("lean", "full"))
        print(
            f"{target}: lean {lean:.1f} s, full {full:.1f} s, ratio {lean / full:.2f} "
            f"(medians of {REPS}; {walls})",
            flush=True,
        )


if __name__ == "__main__":
    main()
