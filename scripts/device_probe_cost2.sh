#!/bin/bash
# On the GPU machine (device tool, carry [".device"]):
#   source .device/env.sh; bash scripts/device_probe_cost2.sh
# Verifies jacobi2d + sgemm at every size (timed), candidate lean ncu sets, FMA under ncu.
set -u
OUT=${OUT:-/tmp/out}
T0=$(date +%s)
snakemake results/verify/jacobi2d/{v0_naive,v1_smem,v2_coarsen2,v3_colstrip,v4_vec4,v5_strip_vec4}.json results/verify/sgemm/{v0_naive,v1_tiled32,v2_tiled_transposed,v3_padded,v4_regblock1d,v5_regblock2d,v6_vectorized,v7_double_buffer}.json --cores all --config mode=measure > $OUT/snakemake.log 2>&1 || tail -30 $OUT/snakemake.log
echo "verify stage: $(( $(date +%s) - T0 )) s"
tar -czf $OUT/verify.tgz results/verify logs/verify
python scripts/device_probe_cost2.py $OUT/probe 2>&1 | tail -30
ncu --import $OUT/probe/fma_full_n0.ncu-rep --page details --section ComputeWorkloadAnalysis --section WarpStateStats --section SpeedOfLight --section InstructionStats 2>&1 | grep -v "^\s*$" | head -90 > $OUT/fma_details.txt
nvcc -arch=native -cubin -O3 -o /tmp/helpers.cubin src/nsightflow/cuda/helpers.cu && cuobjdump -sass -fun fma_peak /tmp/helpers.cubin 2>&1 | grep -E "FFMA|IADD|ISETP|BRA|BAR|LOP" | sort | uniq -c | sort -rn | head -20 >> $OUT/fma_details.txt
rm -f $OUT/probe/*.ncu-rep
python - <<'P'
import json, glob
for f in sorted(glob.glob("results/verify/*/*.json")):
    d = json.load(open(f))
    sizes = sorted({s["n"] for s in d.get("sizes", [])})
    worst = max((s.get("rel_l2_error", 0) for s in d.get("sizes", [])), default=None)
    print(f"{d['family']:9s} {d['variant']:22s} {d['status']:8s} sizes={sizes} worst={worst}")
P
