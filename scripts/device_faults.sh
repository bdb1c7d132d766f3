#!/bin/bash
# On the GPU machine (issue 7), in one call:
#  1. `nsightflow doctor`, then again with Nsight Compute's bundled nsys on PATH (it
#     captures but cannot write a report: the "nsys unusable" row);
#  2. the faulty family (wrong, broken, crashing, hanging variants among good ones)
#     through the whole pipeline in measure mode, the hanging variant first and alone,
#     so everything after it shows whether the GPU still works;
#  3. at the same time, in a copy of the tree, the sanitizer stage on jacobi2d and
#     sgemm: the two runs share the one GPU through the per-device lock.
# Records both into $OUT (nsightflow record) and prints a short table last.
# Usage (device tool): source .device/env.sh; bash scripts/device_faults.sh
# On a CPU machine, DRY=1 dry-runs the Snakemake calls.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
SMK=(snakemake --cores all --omit-from render_pdf ${DRY:+-n})
export NSIGHTFLOW_MODE=measure
T0=$(date +%s)
stamp() { echo "[$(($(date +%s) - T0)) s] $*"; }

NSYS=$(ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | tail -1)
{
    python -m nsightflow doctor
    echo "doctor exit $?"
    if [ -n "$NSYS" ]; then
        echo "--- again with $(dirname "$NSYS") on PATH"
        PATH="$(dirname "$NSYS"):$PATH" python -m nsightflow doctor
        echo "doctor exit $?"
    fi
} >"$OUT/doctor.txt" 2>&1 &
DOCTOR=$!

# 3. sanitizer on the two ladders, in a copy of the tree (its own results/ and lock on
# .snakemake), started first: it waits for the GPU whenever the faulty run holds it.
rm -rf results logs logs_san .snakemake /tmp/san
mkdir -p /tmp/san
tar cf - --exclude=./results --exclude=./.snakemake . | tar -C /tmp/san -xf -
SAN_TARGETS=$(python - <<'PY'
from pathlib import Path
from nsightflow.registry import load_families
for f in load_families(Path("kernels"), []):
    for v in f.variants:
        print(f"results/sanitize/{f.name}/{v}.json")
PY
)
(
    cd /tmp/san && printf 'sanitize: {timeout_s: 60}\n' >/tmp/san.yaml &&
        "${SMK[@]}" $SAN_TARGETS --configfile config.yaml /tmp/san.yaml >/tmp/san.log 2>&1
    echo "sanitizer run: snakemake exit $? at $(($(date +%s) - T0)) s" >>/tmp/san.log
) &
SAN=$!

# 2. the faulty family: v4_hang first and alone, then the rest.
printf 'kernels_dir: tests/data/families\nverify: {timeout_s: 15, seed: 408}\nsanitize: {timeout_s: 20}\n' >/tmp/faulty.yaml
stamp "faulty: v4_hang"
"${SMK[@]}" results/verify/faulty/v4_hang.json results/sanitize/faulty/v4_hang.json \
    --configfile config.yaml /tmp/faulty.yaml >/tmp/faulty_hang.log 2>&1
stamp "faulty v4_hang: snakemake exit $?"
"${SMK[@]}" --configfile config.yaml /tmp/faulty.yaml >/tmp/faulty.log 2>&1
stamp "faulty family: snakemake exit $?"
wait $SAN
stamp "$(tail -1 /tmp/san.log)"
wait $DOCTOR
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
nvidia-smi --query-compute-apps=pid,name --format=csv,noheader
[ -n "${DRY:-}" ] && exit 0

REV=${NSIGHTFLOW_GIT_REVISION:-unknown}
python -m nsightflow record --results results --out /tmp/rec_faulty --command \
    "bash scripts/device_faults.sh (revision $REV): snakemake --configfile config.yaml faulty.yaml (kernels_dir: tests/data/families, verify.timeout_s: 15, sanitize.timeout_s: 20), v4_hang first"
python -m nsightflow record --results /tmp/san/results --out /tmp/rec_san --command \
    "bash scripts/device_faults.sh (revision $REV): snakemake results/sanitize/{jacobi2d,sgemm}/*.json (sanitize.timeout_s: 60)"
rm -rf /tmp/rec_san/build # unchanged sources: the recording's compile records stay
tar czf "$OUT/rec_faulty.tar.gz" -C /tmp rec_faulty
tar czf "$OUT/rec_san.tar.gz" -C /tmp rec_san
cp /tmp/san.log /tmp/faulty.log /tmp/faulty_hang.log logs/ 2>/dev/null
cp -r /tmp/san/logs logs_san
tar czf "$OUT/logs.tar.gz" logs logs_san results/report/faulty/report.md \
    results/report/faulty/summary.csv

python - <<'PY'
import glob, json, re
def load(p):
    return json.load(open(p))
print("\nfaulty family (verify | time | sanitize):")
for p in sorted(glob.glob("results/verify/faulty/*.json")):
    v = load(p); name = v["variant"]
    t = load(f"results/time/faulty/{name}.json")
    s = load(f"results/sanitize/faulty/{name}.json")
    print(f"  {name:10s} {v['status']:15s} {t['status']:15s} {s['status']:12s} "
          f"{s['message'][:90]!r}")
hang = load("results/verify/faulty/v4_hang.json")["provenance"]["date"]
late = load("results/time/faulty/v5_late.json")["provenance"]["date"]
print(f"  v4_hang verify ended {hang}; v5_late timed {late}")
print("\nsanitizer on the ladders (memcheck | racecheck | wall s):")
for p in sorted(glob.glob("/tmp/san/results/sanitize/*/*.json")):
    s = load(p); tools = {t["tool"]: t for t in s["tools"]}
    cell = lambda t: f"{t['status']}({t.get('errors')})" if t else "-"
    walls = [t.get("wall_s", 0) for t in s["tools"]]
    print(f"  {s['family']:8s} {s['variant']:20s} n={s.get('size')} "
          f"{cell(tools.get('memcheck')):14s} {cell(tools.get('racecheck')):18s} {walls}")
waits = [float(m) for f in glob.glob("logs/**/*.log", recursive=True)
         + glob.glob("logs_san/**/*.log", recursive=True)
         for m in re.findall(r"gpu-lock: GPU \S+ of \S+ \(waited ([\d.]+) s", open(f).read())]
print(f"\ngpu-lock: {len(waits)} GPU jobs, {sum(w > 0.5 for w in waits)} waited, "
      f"longest wait {max(waits, default=0):.1f} s")
PY
stamp "done"
