#!/bin/bash
# On the GPU machine: the profile stage's wall time and replay passes, lean vs --set full.
# Usage (device tool, carry [".device"]): source .device/env.sh; bash scripts/device_profile_cost.sh
set -u
T=""
for v in jacobi2d/v0_naive sgemm/v7_double_buffer; do T="$T results/verify/$v.json"; done
snakemake $T --cores all --config mode=measure > /tmp/sm.log 2>&1 || tail -20 /tmp/sm.log
BENCH_REPS=${BENCH_REPS:-2} python scripts/bench_profile.py jacobi2d/v0_naive sgemm/v7_double_buffer
