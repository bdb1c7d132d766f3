#!/bin/bash
# On the GPU machine: timing stability (3 runs, cold-L2 auto mode, plus one hot run) and
# the profile stage's cost, lean set vs --set full. Prints a short table last.
# Usage (device tool, carry [".device"]): source .device/env.sh; bash scripts/device_quality.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/q"
T=""
for v in jacobi2d/v0_naive jacobi2d/v4_vec4 sgemm/v7_double_buffer; do T="$T results/verify/$v.json"; done
snakemake $T --cores all --config mode=measure > "$OUT/q/snakemake.log" 2>&1 || tail -20 "$OUT/q/snakemake.log"
time_run() {  # family variant cache tag
    python -m nsightflow time --family "$1" --variant "$2" --cubin "results/build/$1/$2.cubin" \
        --verify "results/verify/$1/$2.json" --out "$OUT/q/$1_$2_$3_$4.json" --cache "$3" > /dev/null
}
for r in 1 2 3; do time_run jacobi2d v0_naive auto $r; time_run jacobi2d v4_vec4 auto $r; done
time_run jacobi2d v0_naive hot 1
BENCH_REPS=2 python scripts/bench_profile.py jacobi2d/v0_naive sgemm/v7_double_buffer 2>&1 | tee "$OUT/q/bench_profile.txt"
tar czf "$OUT/quality.tar.gz" -C "$OUT" q
python - "$OUT/q" <<'PY'
import json, sys, glob, os
runs = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(p)); tag = os.path.basename(p)[:-5]
    runs[tag] = {r["size"]: (r["time_median_us"], r["cache"], r["cv"], r["throttled"]) for r in d["rows"]}
for tag, rows in runs.items():
    print(tag, " ".join(f"{n}:{m:.2f}{c[0]}" for n, (m, c, cv, th) in rows.items()),
          "throttled" if any(v[3] for v in rows.values()) else "")
for v in ("v0_naive", "v4_vec4"):
    tags = [t for t in runs if v in t and "_auto_" in t]
    for n in runs[tags[0]]:
        meds = [runs[t][n][0] for t in tags]
        print(f"{v} n={n}: spread of 3 medians {100 * (max(meds) - min(meds)) / min(meds):.2f}%")
PY
