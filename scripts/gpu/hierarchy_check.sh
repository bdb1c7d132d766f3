#!/bin/bash
# On the GPU machine: the ceilings stage twice, then each of its memory-level kernels
# once under ncu, to show what it measures (hit rates, bank conflicts, the unit's
# share of its peak). Usage (device tool, carry [".device"], from the project root):
#   source .device/env.sh; bash scripts/gpu/hierarchy_check.sh
# Writes $OUT/ceilings-1.json, $OUT/ceilings-2.json and $OUT/hierarchy-ncu.csv.
set -u
OUT=${OUT:-/tmp/out}
for i in 1 2; do
    python -m nsightflow ceilings --out "$OUT/ceilings-$i.json"
done
metrics=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second
metrics+=,dram__bytes_read.sum,lts__t_bytes.sum,lts__t_sector_hit_rate.pct
metrics+=,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,l1tex__t_bytes.sum,l1tex__t_sector_hit_rate.pct
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_active
metrics+=,sm__inst_issued.avg.pct_of_peak_sustained_active
for k in l2_read l1_read shared_read; do
    # the fourth launch: after the first warm-up launches, with the buffer in the L2
    ncu --clock-control none -k "$k" --launch-skip 3 --launch-count 1 --csv \
        --metrics "$metrics" python -m nsightflow ceilings --out /tmp/c.json \
        2>/dev/null | grep '^"' > "/tmp/$k.csv"
done
head -1 /tmp/l2_read.csv > "$OUT/hierarchy-ncu.csv"
for k in l2_read l1_read shared_read; do tail -n +2 "/tmp/$k.csv" >> "$OUT/hierarchy-ncu.csv"; done
python - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
for i in (1, 2):
    c = json.load(open(f"{out}/ceilings-{i}.json"))
    print(i, *(f"{k} {c.get(k, 0):,.0f}" for k in
               ("copy_gbps", "l2_gbps", "l1_gbps", "shared_gbps", "fp32_gflops")))
for r in csv.DictReader(open(f"{out}/hierarchy-ncu.csv")):
    print(f"{r['Kernel Name']:12s} {r['Metric Name']:60s} {r['Metric Unit']:10s} {r['Metric Value']}")
PY
