#!/bin/bash
# On the GPU machine, in one call, each phase bounded and logged to $OUT as
# it goes (a call that hits its limit before a final tar loses everything):
#  1. `nsightflow doctor`, then again with Nsight Compute's bundled nsys on PATH (it
#     captures but cannot write a report: the "nsys unusable" row);
#  2. the faulty family (wrong, broken, crashing, hanging variants among good ones)
#     through the whole pipeline in measure mode, the hanging variant first and alone,
#     so everything after it shows whether the GPU still works;
#  3. one memcheck run timed on its own (what a sanitizer run costs here), then the
#     sanitizer stage on jacobi2d and sgemm with what is left of BUDGET_S.
# Records what finished (nsightflow record) and prints a short table last.
# Usage (device tool): source .device/env.sh; BUDGET_S=300 bash scripts/device_faults.sh
# On a CPU machine, DRY=1 dry-runs the Snakemake calls.
set -u
OUT=${OUT:-/tmp/out}
BUDGET_S=${BUDGET_S:-300} # whole script; the last phase gets what is left
mkdir -p "$OUT"
# Targets first, then the list options, each closed by the next option: --configfile
# and --omit-from are greedy and eat targets placed after them.
smk() { # smk LIMIT_S CONFIG TARGET...
    local limit=$1 config=$2
    shift 2
    timeout "$limit" snakemake ${DRY:+-n} "$@" --cores all \
        --configfile config.yaml "$config" --omit-from render_pdf
}
export NSIGHTFLOW_MODE=measure
T0=$(date +%s)
left() { echo $((BUDGET_S - ($(date +%s) - T0))); }
stamp() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/phases.txt"; }

NSYS=$(ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | tail -1)
{
    timeout 60 python -m nsightflow doctor
    echo "doctor exit $?"
    if [ -n "$NSYS" ]; then
        echo "--- again with $(dirname "$NSYS") on PATH"
        PATH="$(dirname "$NSYS"):$PATH" timeout 60 python -m nsightflow doctor
        echo "doctor exit $?"
    fi
} >"$OUT/doctor.txt" 2>&1 &

rm -rf results logs .snakemake
printf 'kernels_dir: tests/data/families\nverify: {timeout_s: 15, seed: 408}\nsanitize: {timeout_s: 20}\n' >/tmp/faulty.yaml
stamp "faulty: v4_hang alone"
smk 120 /tmp/faulty.yaml results/verify/faulty/v4_hang.json \
    results/sanitize/faulty/v4_hang.json >"$OUT/faulty_hang.log" 2>&1
stamp "faulty v4_hang: exit $?"
smk 150 /tmp/faulty.yaml >"$OUT/faulty.log" 2>&1
stamp "faulty family: exit $?"
nvidia-smi --query-compute-apps=pid,name --format=csv,noheader | tee -a "$OUT/phases.txt"

# What one sanitizer run costs here, outside Snakemake (cubin from a fresh compile).
ONE=(--kernels-dir kernels --family jacobi2d --variant v0_naive --cubin /tmp/j0.cubin)
python -m nsightflow compile "${ONE[@]}" --resources /tmp/j0.json >/dev/null
start=$(date +%s%N)
timeout 60 python -m nsightflow sanitize "${ONE[@]}" --resources /tmp/j0.json \
    --out /tmp/j0_sanitize.json >"$OUT/one_memcheck.log" 2>&1
stamp "one memcheck (jacobi2d v0_naive): exit $?, $((($(date +%s%N) - start) / 1000000)) ms"

TARGETS=$(python -c '
from pathlib import Path
from nsightflow.family.registry import load_families
for f in load_families(Path("kernels"), []):
    print(*(f"results/sanitize/{f.name}/{v}.json" for v in f.variants))')
printf 'sanitize: {timeout_s: 45}\n' >/tmp/san.yaml
REMAIN=$(($(left) - 45)) # keep 45 s for recording and the table
stamp "ladders' sanitizer: $REMAIN s left for it"
[ "$REMAIN" -gt 20 ] && smk "$REMAIN" /tmp/san.yaml $TARGETS \
    >"$OUT/ladders.log" 2>&1
stamp "ladders' sanitizer: exit $?"
[ -n "${DRY:-}" ] && exit 0

REV=${NSIGHTFLOW_GIT_REVISION:-unknown}
python -m nsightflow record --results results --out /tmp/rec --command \
    "bash scripts/device_faults.sh (revision $REV): faulty family (kernels_dir: tests/data/families, verify.timeout_s: 15, sanitize.timeout_s: 20, v4_hang first), then results/sanitize/{jacobi2d,sgemm}/*.json (sanitize.timeout_s: 45)"
rm -rf /tmp/rec/build/jacobi2d /tmp/rec/build/sgemm # unchanged: the recording's stay
tar czf "$OUT/rec.tar.gz" -C /tmp rec
tar czf "$OUT/logs.tar.gz" logs results/report/faulty/report.md \
    results/report/faulty/summary.csv 2>/dev/null

python - <<'PY' | tee -a "$OUT/phases.txt"
import glob, json, os
def load(p):
    return json.load(open(p)) if os.path.exists(p) else {"status": "-", "message": ""}
print("\nfaulty family: verify | time | sanitize")
for p in sorted(glob.glob("results/verify/faulty/*.json")):
    v = load(p); name = v["variant"]
    t, s = load(f"results/time/faulty/{name}.json"), load(f"results/sanitize/faulty/{name}.json")
    print(f"  {name:10s} {v['status']:15s} {t['status']:15s} {s['status']:12s} "
          f"{s['message'][:100]!r}")
print("\nsanitizer: memcheck(errors) | racecheck(errors) | wall s")
for p in sorted(glob.glob("results/sanitize/*/*.json")):
    s = load(p); tools = {t["tool"]: t for t in s.get("tools", [])}
    cell = lambda t: f"{t['status']}({t.get('errors')})" if t else "-"
    print(f"  {s['family']:8s} {s['variant']:20s} n={s.get('size')} "
          f"{cell(tools.get('memcheck')):14s} {cell(tools.get('racecheck')):20s} "
          f"{[t.get('wall_s') for t in s.get('tools', [])]}")
PY
stamp "done"
