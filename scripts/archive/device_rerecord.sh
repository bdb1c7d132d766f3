#!/bin/bash
# On the GPU machine: measure whole families with every stage (compile, verify at every
# size, time, profile, sanitizer, timeline, this GPU's own ceilings), and run only the
# stages named in UNTIL (and what they need) for the families in PARTIAL; then every
# raw output goes to $OUT as results.tar.gz, ready for `nsightflow record`. Usage
# (device tool, carry [".device"]):
#   source .device/env.sh; export NSIGHTFLOW_GIT_REVISION=<rev>; \
#   FAMILIES="jacobi2d" PARTIAL="conv2d scan spmv" UNTIL="sanitize_variant" \
#   bash scripts/device_rerecord.sh
# STOP_S (default 540): the whole script's budget; each snakemake gets what is left.
set -u
OUT=${OUT:-/tmp/out}
STOP_S=${STOP_S:-540}
FAMILIES=${FAMILIES-"jacobi2d sgemm"}  # empty: none
PARTIAL=${PARTIAL:-}
UNTIL=${UNTIL:-sanitize_variant}
mkdir -p "$OUT" logs
export PATH=/usr/local/cuda/bin:$PATH  # compute-sanitizer
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader
rm -rf results benchmarks .snakemake
run() {  # run NAME SNAKEMAKE-ARGS...: one snakemake within the time left
    local name=$1 start
    shift
    start=$(elapsed)
    timeout $((STOP_S - start)) snakemake --cores all "$@" > "logs/run_$name.txt" 2>&1
    echo "$name: snakemake exit $? in $(($(elapsed) - start)) s (at $(elapsed) s)"
}
list() { echo "[$(echo "$*" | tr ' ' ',')]"; }
for fam in $FAMILIES; do
    run "$fam" --omit-from render_pdf --config "families=[$fam]"
done
if [ -n "$PARTIAL" ]; then
    # shellcheck disable=SC2086  # UNTIL is a list of rule names
    run partial --until $UNTIL --config "families=$(list "$PARTIAL")"
fi
tar czf "$OUT/results.tar.gz" results/ceilings.json results/verify results/time \
    results/profile results/sanitize results/timeline results/build/*/*.resources.json \
    results/report logs benchmarks 2>/dev/null
python - <<'PY'
import csv, glob, json
for p in sorted(glob.glob("results/verify/*/*.json")):
    d = json.load(open(p))
    sizes = [s["n"] for s in d.get("sizes", [])]
    print(f"verify {d['family']:9s} {d['variant']:22s} {d['status']:8s} {sizes}")
for p in sorted(glob.glob("results/sanitize/*/*.json")):
    d = json.load(open(p))
    print(f"sanitize {d['family']:9s} {d['variant']:22s} {d['status']:14s} {d['message'][:90]}")
for p in sorted(glob.glob("results/report/*/summary.csv")):
    rows = list(csv.DictReader(open(p)))
    key = max(int(r["size"]) for r in rows)
    for r in rows:
        if int(r["size"]) == key:
            print(f"time {r['family']:9s} {r['variant']:22s} n={key} {r['status']:8s} "
                  f"{r['time_median_us'][:8]:>8s} us {r['gbps'][:6]:>6s} GB/s x{r['speedup_vs_baseline'][:5]}")
c = glob.glob("results/ceilings.json")
print(open(c[0]).read()[:400] if c else "no ceilings")
PY
echo "total $(elapsed) s"
