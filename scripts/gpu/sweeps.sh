#!/usr/bin/env bash
# On the GPU machine: parameter sweeps through the pipeline itself (measure
# mode), from the repository root after `source .device/env.sh` (alone, or as the
# phase `sweeps` of scripts/gpu/run.sh):
#   1. sweepy (tests/data/families): one variant whose MODE parameter is a deliberate
#      fault: a wrong result, a compile error, an illegal address (the process dies and
#      is restarted), a hang (killed after sweep.config_timeout_s), too much static and
#      too much dynamic shared memory. The sweep must record each and go on.
#   2. SGEMM v7_double_buffer, the full space: 96 points, 64 within the constraints
#      (8 of them need more than 48 KB of shared memory and fail to compile). Compile
#      (16 CPU jobs) + one GPU process, timed; the issue's bound is 2 minutes.
#   3. Jacobi-2D v5_strip_vec4, full space (70 configurations), interrupted with SIGINT
#      after INTERRUPT_S seconds, then run again: it resumes from its cache
#      (results/sweep/jacobi2d/v5_strip_vec4/cache.jsonl); then v4_vec4's block shapes.
#   4. The pipeline at each variant's best configuration: verify, time, profile,
#      sanitizer and timeline of the three swept variants (compile builds the best),
#      and the GPU's ceilings (copy, FMA, cuBLAS).
# Everything recorded goes to $OUT/sweeps.tar.gz (results/ as `nsightflow record`
# reads it, logs, benchmarks); a table of the outcome is printed last.
# STOP_S (default 450): the whole script's budget; each step gets what is left.
set -uo pipefail
OUT=${OUT:-$PWD/device_out}
STOP_S=${STOP_S:-450}
INTERRUPT_S=${INTERRUPT_S:-20}
mkdir -p "$OUT" logs
export PYTHONUNBUFFERED=1
export PATH=/usr/local/cuda/bin:$PATH # compute-sanitizer
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
left() { echo $((STOP_S - $(elapsed))); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
rm -rf results benchmarks .snakemake

# One configuration for every step: full spaces, only these variants swept.
cat > sweeps.yaml <<'EOF'
mode: measure
families: [jacobi2d, sgemm]
sweep:
  space: full
  variants: [sgemm/v7_double_buffer, jacobi2d/v4_vec4, jacobi2d/v5_strip_vec4]
  config_timeout_s: 20
EOF
run() { # run NAME TIMEOUT_S TARGETS...: one snakemake, its wall time printed
    # (targets before --configfile, which takes every argument after it). SIGINT at
    # the limit, as Ctrl-C would: snakemake stops its jobs, the sweep its GPU process.
    local name=$1 limit=$2 start code
    shift 2
    start=$(date +%s)
    timeout -s INT -k 30 "$limit" snakemake --cores all "$@" \
        --configfile config.yaml sweeps.yaml > "logs/run_$name.txt" 2>&1
    code=$?
    echo "$name: snakemake exit $code in $(($(date +%s) - start)) s (at $(elapsed) s)"
    return $code
}

echo "== 1. sweepy: every failure as data"
cat > sweepy.yaml <<'EOF'
mode: measure
kernels_dir: tests/data/families
families: [sweepy]
sweep: {space: full, config_timeout_s: 10}
EOF
start=$(date +%s)
timeout -s INT -k 30 120 snakemake --cores all results/sweep/sweepy/v0_modes.json \
    --configfile config.yaml sweepy.yaml > logs/run_sweepy.txt 2>&1
echo "sweepy: snakemake exit $? in $(($(date +%s) - start)) s"

echo "== 2. sgemm v7: 64 configurations, timed"
run sgemm_v7 "$(left)" results/sweep/sgemm/v7_double_buffer.json

echo "== 3. jacobi2d v5: interrupted after ${INTERRUPT_S} s, then resumed"
run jacobi_v5_interrupted "$INTERRUPT_S" results/sweep/jacobi2d/v5_strip_vec4.json
echo "cache lines kept: $(wc -l < results/sweep/jacobi2d/v5_strip_vec4/cache.jsonl 2>/dev/null || echo 0)"
run jacobi_v5_resumed "$(left)" results/sweep/jacobi2d/v5_strip_vec4.json
run jacobi_v4 "$(left)" results/sweep/jacobi2d/v4_vec4.json

echo "== 4. the pipeline at the best configurations"
# Every variant whose source took the -D parameters (SGEMM v4-v7, Jacobi-2D v3-v5):
# verify, time, profile and sanitizer, at the best configuration where swept, else at
# the defaults. The recording's ceilings stand in for a new measurement (replay uses
# the recorded ones anyway); the timeline of these variants is not re-traced.
mkdir -p results && cp examples/h200/ceilings.json results/ceilings.json
targets=()
for fv in sgemm/v4_regblock1d sgemm/v5_regblock2d sgemm/v6_vectorized \
    sgemm/v7_double_buffer jacobi2d/v3_colstrip jacobi2d/v4_vec4 jacobi2d/v5_strip_vec4; do
    targets+=("results/time/$fv.json" "results/profile/$fv" "results/sanitize/$fv.json")
done
run best "$(left)" "${targets[@]}"

tar czf "$OUT/sweeps.tar.gz" results/sweep results/build/*/*.resources.json \
    results/verify results/time results/profile results/sanitize results/timeline \
    results/ceilings.json logs benchmarks sweeps.yaml sweepy.yaml 2>/dev/null
ls -la "$OUT"

python - <<'PY'
import glob, json
from pathlib import Path

def load(path):
    p = Path(path)
    return json.loads(p.read_text()) if p.is_file() else None

print("\n== sweeps")
for path in sorted(glob.glob("results/sweep/*/*.json")):
    r = load(path)
    counts = {}
    for c in r.get("configs", []):
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    best = r.get("best") or {}
    print(f"{r['family']}/{r['variant']}: {len(r.get('configs', []))} points, "
          f"compile {r.get('compile_wall_s')} s, GPU {r.get('sweep_wall_s')} s, "
          f"resumed {r.get('resumed')}, restarts {r.get('restarts')}; {counts}")
    print(f"   best {best.get('id')} {best.get('times_us')}  default {r.get('default_id')}")
sweepy = load("results/sweep/sweepy/v0_modes.json")
if sweepy:
    for c in sweepy["configs"]:
        if c["status"] != "constraint":
            print(f"   sweepy {c['id']:16s} {c['status']:24s} {str(c.get('message', ''))[:70]!r}")
ceil = load("results/ceilings.json") or {}
copy, cublas = ceil.get("copy_gbps"), ceil.get("vendor_sgemm_gflops")
print(f"\n== at the best configuration (time stage); copy {copy} GB/s, cuBLAS {cublas} GFLOP/s")
for fv, work in (("sgemm/v7_double_buffer", lambda n: 2 * n**3),
                 ("jacobi2d/v4_vec4", lambda n: 8 * n * n),
                 ("jacobi2d/v5_strip_vec4", lambda n: 8 * n * n)):
    t = load(f"results/time/{fv}.json")
    v = load(f"results/verify/{fv}.json") or {}
    if not t:
        print(f"{fv}: no timing")
        continue
    print(f"{fv}: verify {v.get('status')}, params {t.get('params')}")
    for row in t.get("rows", []):
        n, us = row["size"], row.get("time_median_us")
        if not us or n not in (4096, 8192):
            continue
        rate = work(n) / (us * 1e3)
        if fv.startswith("sgemm"):
            share = f"{100 * rate / cublas:.1f}% of cuBLAS" if cublas else ""
            print(f"   n={n}: {us:,.1f} us  {rate / 1e3:.2f} TFLOP/s  {share}  (target >= 90%)")
        else:
            share = f"{100 * rate / copy:.1f}% of copy" if copy else ""
            print(f"   n={n}: {us:,.1f} us  {rate:,.0f} GB/s  {share}  (target >= 95% at 8192)")
PY
echo "total $(elapsed) s"
