#!/bin/bash
# The one runner for the GPU machine: named phases in one call, each within the time
# left, outputs under $OUT. Usage (device tool, carry [".device"]):
#   source .device/env.sh; export NSIGHTFLOW_GIT_REVISION=<rev>; \
#   STOP_S=540 bash scripts/gpu/run.sh PHASE [PHASE ...]
# Phases:
#   preflight     GPU state, ncu version, every lean-set metric known to this ncu
#   record        FAMILIES (default: all of config.yaml) through every stage, measure
#                 mode; raw outputs to $OUT/results.tar.gz for `nsightflow record`
#   reprofile     the profile stage of FAMILIES again (today's lean set) after compiling,
#                 with the recording's verify records copied in (all ok): profiles and
#                 resources to $OUT/reprofile.tar.gz for `nsightflow record --add`
#   profile-cost  profile stage wall time, lean vs --set full (scripts/benchmarks/bench_profile.py)
#                 on BENCH (default: the families jacobi2d sgemm)
#   profile-parts where a profile run's seconds go; one ncu process per family
#                 (scripts/benchmarks/bench_profile_parts.py on BENCH and their families)
#   tests         tests/gpu (the GPU-marked tests)
#   NAME          any other name runs scripts/gpu/NAME.sh (a helper's phase)
# STOP_S (default 540): the whole call's budget; each phase gets what is left.
set -u
OUT=${OUT:-/tmp/out}
STOP_S=${STOP_S:-540}
mkdir -p "$OUT" logs
export PATH=/usr/local/cuda/bin:$PATH NSIGHTFLOW_MODE=measure
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
left() { echo $((STOP_S - $(elapsed))); }
say() { echo "[$(elapsed) s] $*" | tee -a "$OUT/phases.txt"; }

preflight() {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu \
        --format=csv,noheader
    ncu --version | tail -1
    ncu --query-metrics --chip gh100 > /tmp/metrics.txt 2>&1
    python - <<'PY'
import re
from pathlib import Path
from nsightflow.tools import ncu_metrics as metrics
known = set(re.findall(r"^(\w+__\w+)", Path("/tmp/metrics.txt").read_text(), re.M))
base = lambda m: re.sub(r"\.(sum|avg|max|min|ratio|pct)(\..*)?$", "", m)
wanted = sorted({m for m in metrics.lean_metrics()} if hasattr(metrics, "lean_metrics") else set())
missing = [m for m in wanted if base(m) not in known]
print(f"preflight: {len(known)} ncu base metrics; lean-set names unknown here: {missing or 'none'}")
PY
}

record() {
    local families=${FAMILIES:-}
    rm -rf results .snakemake
    if [ -n "$families" ]; then
        families="[$(echo "$families" | tr ' ' ',')]"
        timeout "$(left)" snakemake --cores all --omit-from render_pdf \
            --config "families=$families" > logs/record.txt 2>&1
    else
        timeout "$(left)" snakemake --cores all --omit-from render_pdf > logs/record.txt 2>&1
    fi
    say "record: snakemake exit $?"
    tar czf "$OUT/results.tar.gz" results/ceilings.json results/verify results/time \
        results/profile results/sanitize results/timeline results/build/*/*.resources.json \
        results/sweep/*/*.json results/report logs 2>/dev/null
    python - <<'PY'
import csv, glob
for p in sorted(glob.glob("results/report/*/summary.csv")):
    rows = [r for r in csv.DictReader(open(p)) if r["size"].isdigit()]
    key = max(int(r["size"]) for r in rows)
    for r in rows:
        if int(r["size"]) == key:
            print(f"time {r['family']:9s} {r['variant']:24s} n={key} {r['status']:8s} "
                  f"{r['time_median_us'][:9]:>9s} us")
PY
}

reprofile() {
    local config="mode=measure"
    [ -n "${FAMILIES:-}" ] && config="$config families=[$(echo "$FAMILIES" | tr ' ' ',')]"
    rm -rf results .snakemake
    # swept variants compile at the configuration the recording measured (its sweep
    # records), not at their defaults
    mkdir -p results/sweep
    cp -r examples/h200/sweep/* results/sweep/ 2>/dev/null
    # shellcheck disable=SC2086  # config holds key=value words
    timeout "$(left)" snakemake --cores all --until compile_variant --config $config \
        > logs/reprofile_compile.txt 2>&1
    say "reprofile: compile exit $?"
    mkdir -p results/verify
    cp -r examples/h200/verify/* results/verify/
    touch results/verify/*/*.json # newer than the cubins: not verified again
    # shellcheck disable=SC2086
    timeout "$(left)" snakemake --cores all --until profile_family --rerun-triggers mtime \
        --config $config > logs/reprofile.txt 2>&1
    say "reprofile: profile exit $?"
    tar czf "$OUT/reprofile.tar.gz" results/profile results/build/*/*.resources.json \
        logs/reprofile*.txt logs/profile 2>/dev/null
    python - <<'PY'
import glob, json
for p in sorted(glob.glob("results/profile/*/*/profile.json")):
    d = json.load(open(p))
    walls = d.get("wall_s")
    passes = [r.get("passes") for r in d.get("reports", [])]
    print(f"profile {d['family']:9s} {d['variant']:24s} {d['status']:8s} {walls} s passes {passes}")
PY
}

profile_cost() {
    # the profile stage on whole families (one ncu process each), lean vs --set full;
    # cubins compiled here, verify records from the recording (the stage needs "ok")
    local bench=${BENCH:-"jacobi2d sgemm"}
    if [ ! -d results/build ]; then
        mkdir -p results/sweep
        cp -r examples/h200/sweep/* results/sweep/ 2>/dev/null
        timeout "$(left)" snakemake --cores all --until compile_variant \
            --config mode=measure > logs/profile_cost_compile.txt 2>&1
    fi
    mkdir -p results/verify
    cp -r --update=none examples/h200/verify/* results/verify/
    # shellcheck disable=SC2086  # a list of targets
    BENCH_REPS=${BENCH_REPS:-2} timeout "$(left)" python scripts/benchmarks/bench_profile.py $bench \
        | tee -a "$OUT/phases.txt"
}

profile_parts() {
    # where a profile run's seconds go, and one ncu process per family
    ncu --help > "$OUT/ncu_help.txt" 2>&1
    timeout "$(left)" snakemake --cores all --until compile_variant \
        --config mode=measure "families=[jacobi2d,sgemm]" > logs/parts_compile.txt 2>&1
    timeout "$(left)" snakemake results/verify/jacobi2d/v0_naive.json \
        results/verify/sgemm/v7_double_buffer.json --cores all > logs/parts_verify.txt 2>&1
    say "profile-parts: prepared"
    BENCH_REPS=${BENCH_REPS:-2} PYTHONUNBUFFERED=1 timeout "$(left)" \
        python scripts/benchmarks/bench_profile_parts.py ${BENCH:-jacobi2d/v0_naive sgemm/v7_double_buffer} \
        | tee -a "$OUT/phases.txt"
}

for phase in "$@"; do
    if [ "$(left)" -le 10 ]; then
        say "$phase: not started, no time left"
        continue
    fi
    say "$phase: start"
    case $phase in
        preflight) preflight ;;
        record) record ;;
        reprofile) reprofile ;;
        profile-cost) profile_cost ;;
        profile-parts) profile_parts ;;
        tests) timeout "$(left)" python -m pytest -q tests/gpu 2>&1 | tail -15 ;;
        *) timeout "$(left)" bash "scripts/gpu/$phase.sh" ;;
    esac
    say "$phase: done"
done
say "total"
