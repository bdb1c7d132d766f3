#!/bin/bash
# On the GPU machine, after scripts/gpu/pylaunch.sh: the three Python launchers
# profiled again without per-instruction samples (tools.ncu.ncu_argv source=False:
# with them ncu stored cuBLAS's and CuPy's whole modules, 14 MB per report), their
# verify records from that run in run2/verify; recorded into $OUT/reprofile.tar.gz
# (profiles and compile records) for `nsightflow record --add`. Then
# tests/gpu/test_api_gpu.py (nsightflow.api.measure on the GPU).
# Usage (device tool, carry [".device"]):
#   source .device/env.sh; export NSIGHTFLOW_GIT_REVISION=<rev>; bash scripts/gpu/pylaunch_reprofile.sh
set -u
OUT=${OUT:-/tmp/out}
STOP_S=${STOP_S:-140}
mkdir -p "$OUT" logs
export PATH=/usr/local/cuda/bin:$PATH NSIGHTFLOW_MODE=measure
T0=$(date +%s)
left() { echo $((STOP_S - $(date +%s) + T0)); }
say() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/phases.txt"; }
say "python: $(command -v python)"
rm -rf results
for fv in vecadd/v4_triton reduction/v5_cupy_sum sgemm/v8_torch_matmul; do
    f=${fv%/*} v=${fv#*/}
    mkdir -p "results/build/$f" "results/verify/$f"
    cp "run2/verify/$fv.json" "results/verify/$fv.json"
    python -m nsightflow compile --kernels-dir kernels --family "$f" --variant "$v" \
        --cubin "results/build/$fv.cubin" --resources "results/build/$fv.resources.json" \
        >> logs/reprofile.txt 2>&1
    timeout "$(left)" python -m nsightflow profile --kernels-dir kernels --family "$f" \
        --variant "$v" --cubin "results/build/$fv.cubin" --verify "results/verify/$fv.json" \
        --out-dir "results/profile/$f" >> logs/reprofile.txt 2>&1
    say "$fv: profile exit $?"
done
ls -l results/profile/*/*/*.ncu-rep | tee -a "$OUT/phases.txt"
rm -rf results/verify # the recording keeps the first run's (the same files)
python -m nsightflow record --results results --out /tmp/reprofile --command \
    "bash scripts/gpu/pylaunch_reprofile.sh (profile stage again, launchers without per-instruction samples; verify records of scripts/gpu/pylaunch.sh)"
tar czf "$OUT/reprofile.tar.gz" -C /tmp reprofile
timeout "$(left)" python -m pytest -q -p no:cacheprovider tests/gpu/test_api_gpu.py \
    > logs/api_test.txt 2>&1
say "api test: exit $?"
tail -15 logs/api_test.txt
tar czf "$OUT/logs.tar.gz" logs
