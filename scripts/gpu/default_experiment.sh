#!/bin/bash
# On the GPU machine: one device call of the default experiment as a user runs it
# (config.yaml as shipped, every stage, PDFs included) for a set of families, then
# `nsightflow record` of what it measured. Usage (device tool, carry [".device"], from
# the project root):
#   source .device/env.sh; export NSIGHTFLOW_GIT_REVISION=<rev>; \
#   bash scripts/gpu/default_experiment.sh NAME spmv,scan,conv2d [PYTEST-ARGS...]
# PYTEST-ARGS, when given, run first (`-m "gpu or ncu"` tests, at most 150 s).
# Writes to $OUT: NAME.rec.tgz.NN (the recording, in parts of 15 MiB) and NAME.logs.tgz
# (Snakemake's log, benchmarks/, .snakemake/metadata, the GPU-job cost per family from
# scripts/benchmarks/gpu_stage_cost.py, each report's summary.csv and report.md).
# STOP_S (default 480): Snakemake's time limit, so that the record fits in the call.
# CONFIG: more `--config` pairs (e.g. "kernels_dir=tests/data/advice_families").
set -u
NAME=$1
FAMS=$2
shift 2
OUT=${OUT:-/tmp/out}
STOP_S=${STOP_S:-480}
CONFIG=${CONFIG:-}
export PATH=/usr/local/cuda/bin:$PATH # compute-sanitizer
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu \
    --format=csv,noheader
if [ $# -gt 0 ]; then
    timeout 150 python -m pytest -q -p no:cacheprovider -m "gpu or ncu" "$@" 2>&1 | tail -8
    echo "tests done at $(elapsed) s"
fi
rm -rf results benchmarks logs .snakemake rec cost
command="snakemake --cores all --keep-going --config families=[$FAMS] $CONFIG"
# shellcheck disable=SC2086  # CONFIG is a list of key=value pairs
timeout "$STOP_S" snakemake --cores all --keep-going --config "families=[$FAMS]" $CONFIG \
    > snakemake.log 2>&1
echo "snakemake exit $? at $(elapsed) s"
grep -E "^Error in rule|Exiting because|steps \([0-9]+%\) done" snakemake.log | tail -6
python -m nsightflow record --results results --out rec --command "$command" 2>&1 | tail -3
tar czf - rec | split -b 15M -d - "$OUT/$NAME.rec.tgz."
mkdir -p cost
for fam in ${FAMS//,/ }; do
    python scripts/benchmarks/gpu_stage_cost.py --family "$fam" --json "cost/$fam.json" \
        > "cost/$fam.txt" 2>&1
    tail -3 "cost/$fam.txt"
done
tar czf "$OUT/$NAME.logs.tgz" snakemake.log benchmarks .snakemake/metadata cost \
    results/report/*/summary.csv results/report/*/report.md results/report/*/*.pdf \
    2>/dev/null
ls -la "$OUT"
python - <<'PY'
import csv, glob
for p in sorted(glob.glob("results/report/*/summary.csv")):
    rows = list(csv.DictReader(open(p)))
    sizes = [int(r["size"]) for r in rows if r["size"]]
    key = max(sizes)
    for r in rows:
        if r["size"] and int(r["size"]) == key:
            print(f"{r['family']:9s} {r['variant']:22s} n={key} {r['status']:18s} "
                  f"{r['time_median_us'][:8]:>8s} us x{r['speedup_vs_baseline'][:5]}")
PY
echo "total $(elapsed) s"
