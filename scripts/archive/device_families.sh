#!/bin/bash
# On the GPU machine: the six ECE408 pattern families through the pipeline in measure
# mode (verify at every size, time, profile with the lean set), one family after the
# other in priority order while time is left; then the raw outputs and the reports
# go to $OUT. Usage (device tool, carry [".device", ".wt-NAME"]):
#   source .device/env.sh; cd .wt-NAME; export PYTHONPATH=$PWD/src:$PYTHONPATH \
#       NSIGHTFLOW_GIT_REVISION=<rev>; bash scripts/device_families.sh
# DEADLINE_S (default 260): no family starts after this many seconds; each snakemake
# gets at most STOP_S (default 390) minus the time spent so far.
set -u
OUT=${OUT:-/tmp/out}
DEADLINE_S=${DEADLINE_S:-260}
STOP_S=${STOP_S:-390}
FAMILIES=${FAMILIES:-"vecadd reduction histogram conv2d scan spmv"}
mkdir -p "$OUT"
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader
ncu --version | tail -1

# Pre-flight: every metric the report reads must be known to this ncu (an unknown
# name fails every profile). Unknown ones are dropped from this copy and listed.
ncu --query-metrics --chip gh100 > /tmp/metrics.txt 2>&1
python - <<'PY'
import re
from pathlib import Path
from nsightflow.tools import ncu_metrics as metrics
known = set(re.findall(r"^(\w+__\w+)", Path("/tmp/metrics.txt").read_text(), re.M))
def base(m):
    return re.sub(r"\.(sum|avg|max|min|ratio|pct)(\..*)?$", "", m)
if len(known) < 500:
    print(f"preflight: ncu --query-metrics listed {len(known)} names; check skipped")
    raise SystemExit(0)
missing = [m for m in metrics.PATTERN_METRICS if base(m) not in known]
print(f"preflight: {len(known)} ncu base metrics; unknown here: {missing or 'none'}")
if missing:  # this copy only: the lean set without them
    with Path("src/nsightflow/tools/ncu_metrics.py").open("a") as fh:
        fh.write(f"\nEXTRA_METRICS = tuple(m for m in EXTRA_METRICS if m not in {missing!r})\n")
PY

rm -rf results logs benchmarks .snakemake
mkdir -p results
# The recording's ceilings (copy and FMA rates of an H200, measured 2026-11-29) stand
# in for a new measurement: replay uses the recorded ones for every family anyway.
cp examples/h200/ceilings.json results/ceilings.json
printf 'timing: {budget_s: 0.3, min_reps: 20, max_reps: 1000}\n' > /tmp/families.yaml
done_families=""
for fam in $FAMILIES; do
    if [ "$(elapsed)" -ge "$DEADLINE_S" ]; then
        echo "deadline: $fam not started at $(elapsed) s"
        continue
    fi
    left=$((STOP_S - $(elapsed)))
    start=$(elapsed)
    timeout "$left" snakemake --cores all --omit-from render_pdf \
        --configfile config.yaml /tmp/families.yaml --config "families=[$fam]" \
        > "logs_$fam.txt" 2>&1
    echo "$fam: snakemake exit $? in $(($(elapsed) - start)) s (at $(elapsed) s)"
    done_families="$done_families $fam"
done
mkdir -p logs && mv logs_*.txt logs/ 2>/dev/null
tar czf "$OUT/families.tar.gz" results/verify results/time results/profile results/sanitize results/timeline \
    results/build/*/*.resources.json results/report results/analysis logs 2>/dev/null
ls -la "$OUT"
python - "$done_families" <<'PY'
import csv, glob, json, sys
for fam in sys.argv[1].split():
    for p in sorted(glob.glob(f"results/verify/{fam}/*.json")):
        d = json.load(open(p))
        worst = max((s.get("rel_l2_error", 0) for s in d.get("sizes", [])), default=None)
        print(f"verify {fam:9s} {d['variant']:24s} {d['status']:8s} sizes={len(d.get('sizes', []))} worst={worst} {d['message'][:120]}")
    for p in glob.glob(f"results/report/{fam}/summary.csv"):
        rows = list(csv.DictReader(open(p)))
        key = max(int(r["size"]) for r in rows)
        for r in rows:
            if int(r["size"]) == key:
                print(f"time {fam:9s} {r['variant']:24s} n={key} {r['status']:8s} {r['time_median_us'][:9]:>9s} us {r['gbps'][:7]:>7s} GB/s x{r['speedup_vs_baseline'][:5]}")
    for p in sorted(glob.glob(f"results/profile/{fam}/*/profile.json")):
        d = json.load(open(p))
        print(f"profile {fam:9s} {d['variant']:24s} {d['status']} {str(d.get('message', ''))[:160]}")
PY
echo "total $(elapsed) s"
