#!/bin/bash
# On the GPU machine, one call with bounded phases (the last GPU minutes of 2026-11-29):
#  A. the faulty family through the whole pipeline in measure mode (crashing, hanging,
#     wrong and broken variants among good ones; sanitizer on; the GPU ceilings, with
#     the one-wave FMA kernel, are measured on the way);
#  B. the profile stage's wall time, lean set against --set full, on the same launches
#     (Jacobi v0 and SGEMM v7, all profile sizes in one ncu process each).
# Usage (device tool): source .device/env.sh; bash scripts/device_final.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export NSIGHTFLOW_MODE=measure
T0=$(date +%s)
stamp() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/phases.txt"; }
rm -rf results logs .snakemake
printf 'kernels_dir: tests/data/families\nverify: {timeout_s: 15, seed: 408, threads: 8}\nsanitize: {timeout_s: 20}\ntimeline: {enabled: false}\ntiming: {budget_s: 0.3}\n' >/tmp/faulty.yaml
# Targets (none here) first; --configfile and --omit-from are greedy.
timeout 120 snakemake --cores all --configfile config.yaml /tmp/faulty.yaml \
    --omit-from render_pdf >"$OUT/faulty.log" 2>&1
stamp "A. faulty family: exit $?"
python -m nsightflow record --results results --out /tmp/faulty_rec --command \
    "bash scripts/device_final.sh (phase A: kernels_dir tests/data/families, verify.timeout_s 15, sanitize.timeout_s 20)" >/dev/null
tar czf "$OUT/faulty.tar.gz" -C /tmp faulty_rec
tar czf "$OUT/faulty_report.tar.gz" logs results/report/faulty results/ceilings.json 2>/dev/null
cat results/ceilings.json | python -c "import json,sys; d=json.load(sys.stdin); print({k: d[k] for k in d if 'gflops' in k or 'gbps' in k})" | tee -a "$OUT/phases.txt"

printf 'timeline: {enabled: false}\nsanitize: {enabled: false}\n' >/tmp/bench.yaml
timeout 60 snakemake results/verify/jacobi2d/v0_naive.json results/verify/sgemm/v7_double_buffer.json \
    --cores all --configfile config.yaml /tmp/bench.yaml >"$OUT/bench_verify.log" 2>&1
stamp "B. verify for the bench: exit $?"
BENCH_REPS=1 timeout 110 python scripts/bench_profile.py jacobi2d/v0_naive sgemm/v7_double_buffer 2>&1 | tee -a "$OUT/phases.txt"
stamp "B. bench: exit $?"

python - <<'PY' | tee -a "$OUT/phases.txt"
import glob, json, os
def load(p):
    return json.load(open(p)) if os.path.exists(p) else {"status": "-", "message": ""}
print("faulty family: verify | time | profile | sanitize")
for p in sorted(glob.glob("results/verify/faulty/*.json")):
    v = load(p); n = v["variant"]
    t, s = load(f"results/time/faulty/{n}.json"), load(f"results/sanitize/faulty/{n}.json")
    pr = load(f"results/profile/faulty/{n}/profile.json")
    print(f"  {n:10s} {v['status']:15s} {t['status']:15s} {pr['status']:15s} {s['status']:14s} {v['message'][:70]!r} {s.get('message', '')[:70]!r}")
for p in sorted(glob.glob("results/report/faulty/summary.csv")):
    print(open(p).read()[:1500])
PY
