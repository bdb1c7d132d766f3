#!/bin/bash
# Run the whole pipeline on the GPU machine and bring the results back under $OUT.
# Usage (device tool, carry [".device"]):
#   source .device/env.sh; NSIGHTFLOW_GIT_REVISION=<rev> bash scripts/device_run.sh
# Runs the default experiment (timed), then the faulty test family, prints a short
# table last; $OUT gets results.tar.gz (results/, logs/, benchmarks/).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv
ncu --version | tail -1
start=$(date +%s)
snakemake --cores all "$@" > "$OUT/snakemake.log" 2>&1
rc=$?
end=$(date +%s)
tail -8 "$OUT/snakemake.log"
echo "default experiment: snakemake exit $rc, wall time $((end - start)) s"
snakemake --cores all "$@" --config kernels_dir=tests/data/families > "$OUT/snakemake_faulty.log" 2>&1
echo "faulty test family: snakemake exit $?"
tar czf "$OUT/results.tar.gz" results logs benchmarks .snakemake/log 2>/dev/null
python - <<'PY'
import csv, glob
for path in sorted(glob.glob("results/report/*/summary.csv")):
    for r in csv.DictReader(open(path)):
        if r["size"] in ("2048", "8192", "1048576"):
            print(f"{r['family']:9s} {r['variant']:12s} {r['size']:>8s} {r['status']:15s}"
                  f" {r['time_median_us'][:8]:>8s} us  {r['gbps'][:6]:>6s} GB/s"
                  f"  x{r['speedup_vs_baseline'][:4]}")
print(open("results/report/ceilings.csv").read())
PY
exit $rc
