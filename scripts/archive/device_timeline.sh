#!/usr/bin/env bash
# On the GPU machine (see ../shared/device/README.md): record the timeline stage of
# jacobi2d and sgemm through the pipeline itself (measure mode), show how the backend is
# chosen (nsys cannot write reports there: the run falls back to CUPTI and says so), force
# the nsys path once to show the same fallback at run time, and tar what was recorded
# to $OUT. Run from the repository root after `source .device/env.sh`.
set -uo pipefail
OUT=${OUT:-$PWD/device_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
FAMILIES=(jacobi2d sgemm)

echo "== machine"
nvidia-smi -L
python3 -c "from cupti import cupti; print('cupti-python loads')" || echo "cupti-python missing"
# nsys is not on PATH in this image; Nsight Compute ships one. Put it on PATH so the
# pipeline meets the real failure (a .qdstrm and no importer), not just "not on PATH".
NSYS=$(ls /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | tail -1)
if [ -n "$NSYS" ]; then
    mkdir -p /tmp/nsysbin && ln -sf "$NSYS" /tmp/nsysbin/nsys
    export PATH=/tmp/nsysbin:$PATH
    echo "nsys on PATH: $NSYS"
fi

echo "== doctor"
python -m nsightflow doctor | tee "$OUT/doctor.txt"

echo "== pipeline: timeline targets in measure mode"
targets=()
for f in "${FAMILIES[@]}"; do
    targets+=("results/analysis/$f/timeline_summary.csv" "results/report/$f/figures/timeline.png")
done
start=$(date +%s)
timeout 330 snakemake --cores 16 "${targets[@]}" --config mode=measure \
    > "$OUT/snakemake.log" 2>&1
echo "snakemake exit $? after $(( $(date +%s) - start )) s"
grep -E "nsightflow|Error|error" "$OUT/snakemake.log" | grep -v "^\s*$" | tail -20
echo "-- backend choice (logs/timeline/backend.log):"
cat logs/timeline/backend.log

echo "== nsys asked for explicitly (jacobi2d v0_naive, n = 2048): the fallback at run time"
python - <<'EOF' > /tmp/force.json
import json
print(json.dumps({"schema_version": json.load(open("results/timeline/backend.json"))["schema_version"],
                  "backend": "nsys", "message": "forced by scripts/device_timeline.sh",
                  "requested": "nsys", "capabilities": {}}))
EOF
timeout 120 python -m nsightflow timeline --family jacobi2d --variant v0_naive \
    --cubin results/build/jacobi2d/v0_naive.cubin \
    --verify results/verify/jacobi2d/v0_naive.json --backend-choice /tmp/force.json \
    --backend nsys --sizes 2048 --timeout-s 100 \
    --out /tmp/forced/v0_naive.json --table /tmp/forced/v0_naive.csv
python -c "import json; r = json.load(open('/tmp/forced/v0_naive.json')); \
print('forced nsys ->', r['backend'], '|', r['status'], '|', r['backend_note'])"

echo "== GPU test of the timeline (CUPTI, jacobi2d v0_naive, n = 1024)"
timeout 90 python -m pytest -q -p no:cacheprovider tests/gpu/test_timeline_gpu.py 2>&1 | tail -3

echo "== record"
python -m nsightflow record --results results --out /tmp/recording \
    --command "snakemake --cores 16 <timeline targets> --config mode=measure (scripts/device_timeline.sh)"
tar -czf "$OUT/timeline.tgz" results/timeline results/analysis/*/timeline*.csv \
    results/report/*/figures/timeline.png logs/timeline /tmp/recording/recording.json \
    /tmp/forced 2>/dev/null
ls -la "$OUT"

echo "== copies and kernel (traced round)"
python - <<'EOF'
import pandas as pd
for family in ("jacobi2d", "sgemm"):
    s = pd.read_csv(f"results/analysis/{family}/timeline_summary.csv")
    s = s[s["status"] == "ok"]
    print(family, s["backend"].iloc[0] if len(s) else "-")
    for _, r in s.iterrows():
        print(f"  {r.variant:22s} n={int(r['size']):5d} in {r.htod_ns/1e6:7.2f} ms "
              f"({r.htod_gbps:5.1f} GB/s)  kernel {r.kernel_ns/1e6:8.3f} ms  "
              f"out {r.dtoh_ns/1e6:7.2f} ms ({r.dtoh_gbps:5.1f} GB/s)  "
              f"copies/kernel {r.transfer_to_kernel:7.1f}")
EOF
