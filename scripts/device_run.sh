#!/bin/bash
# Run the pipeline on the GPU machine and bring the results back under $OUT.
# Usage (device tool, carry [".device"]):
#   source .device/env.sh; bash scripts/device_run.sh [snakemake targets...]
# Prints a short table last; $OUT gets results.tar.gz (results/, logs/, benchmarks/).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv
ncu --version | tail -1
start=$(date +%s)
snakemake --cores all "$@" > "$OUT/snakemake.log" 2>&1
rc=$?
end=$(date +%s)
tail -25 "$OUT/snakemake.log"
echo "snakemake exit $rc, wall time $((end - start)) s"
tar czf "$OUT/results.tar.gz" results logs benchmarks .snakemake/log 2>/dev/null
python - <<'PY'
import json, glob
for path in sorted(glob.glob("results/time/*/*.json")):
    data = json.load(open(path))
    rows = {r["size"]: r.get("time_median_us") for r in data.get("rows", [])}
    print(f"{data['family']}/{data['variant']:14s} {data['status']:8s}",
          " ".join(f"{n}:{t:.1f}" for n, t in rows.items() if t))
for path in sorted(glob.glob("results/verify/*/*.json")):
    d = json.load(open(path)); print(path, d["status"], d["message"][:200])
PY
exit $rc
