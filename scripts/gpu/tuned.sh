#!/usr/bin/env bash
# The default experiment, restricted to SGEMM v7 and Jacobi-2D v5 (their sweep, compile,
# verify and time jobs, and the GPU's ceilings), on a GPU machine: does the quick sweep,
# which now contains tuned.yaml's point, reach >= 94% of cuBLAS (SGEMM, n = 4096) and
# >= 95% of copy bandwidth (Jacobi-2D, n = 8192)? Writes $OUT/tuned.tar.gz.
set -u
source .device/env.sh
snakemake --cores all --config families='[sgemm,jacobi2d]' -- \
    results/time/sgemm/v7_double_buffer.json results/time/jacobi2d/v5_strip_vec4.json \
    results/ceilings.json > "$OUT/snakemake.log" 2>&1
echo "snakemake exit $?"
python - <<'PY'
import json
import cupy as cp
c = json.load(open("results/ceilings.json"))
a = cp.random.rand(4096, 4096, dtype=cp.float32); b = cp.random.rand(4096, 4096, dtype=cp.float32)
for _ in range(5): a @ b
s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
for _ in range(20):
    s.record(); a @ b; e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
ts.sort(); cublas4096 = 2 * 4096**3 / (ts[10] * 1e-3) / 1e9
print(f"{'what':34} {'config (origin)':48} {'time us':>9} {'value':>9} {'% ceiling':>9}")
for fam, var, n, work, unit, ceil in [
    ("sgemm", "v7_double_buffer", 4096, 2 * 4096**3, "GFLOP/s", c["vendor_sgemm_gflops"]),
    ("jacobi2d", "v5_strip_vec4", 8192, 2 * 4 * 8192**2, "GB/s", c["copy_gbps"]),
]:
    t = json.load(open(f"results/time/{fam}/{var}.json"))
    row = next(r for r in t["rows"] if r["size"] == n)
    cfg = t.get("config") or {}
    value = work / (row["time_median_us"] * 1e-6) / 1e9
    print(f"{fam}/{var} n={n:<6} {cfg.get('id','?')+' ('+cfg.get('origin','?')+')':48} "
          f"{row['time_median_us']:9.1f} {value:9.0f} {100*value/ceil:8.1f}%")
print(f"cuBLAS n=4096 (cupy) {cublas4096:.0f} GFLOP/s; ceilings.json: cuBLAS {c['vendor_sgemm_gflops']:.0f}, copy {c['copy_gbps']:.0f} GB/s")
PY
tar czf "$OUT/tuned.tar.gz" results/time results/sweep/*/*.json results/build results/ceilings.json logs 2>/dev/null
