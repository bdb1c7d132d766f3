#!/bin/bash
# On the GPU machine: the faulty family (wrong, broken, crashing, hanging variants among
# good ones) through the whole pipeline, and `nsightflow doctor`.
# Usage (device tool, carry [".device"]): source .device/env.sh; bash scripts/device_faults.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
python -m nsightflow doctor 2>&1 | tee "$OUT/doctor.txt"
echo "doctor exit ${PIPESTATUS[0]}"
rm -rf results logs .snakemake
start=$(date +%s)
printf 'kernels_dir: tests/data/families\nverify: {timeout_s: 20, seed: 408}\n' > /tmp/faulty.yaml
snakemake --cores all --omit-from render_pdf --configfile config.yaml /tmp/faulty.yaml \
    > "$OUT/faulty.log" 2>&1
echo "faulty family: snakemake exit $? in $(( $(date +%s) - start )) s"
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv
python -m nsightflow record --results results --out /tmp/rec --command \
    "snakemake --cores all --configfile config.yaml faulty.yaml (kernels_dir: tests/data/families, verify.timeout_s: 20)"
tar czf "$OUT/faulty.tar.gz" -C /tmp rec
python - <<'PY'
import json, glob
for p in sorted(glob.glob("results/verify/faulty/*.json")):
    d = json.load(open(p)); print(d["variant"], d["status"], d["message"][:150].replace("\n", " "))
PY
