#!/bin/bash
# On the GPU machine, right after `gpu_stage_cost.py --family FAMILY --run`: an A/A of
# the time stage through the measure job. The run just made is recorded as A; the
# measure job of every variant of FAMILY runs again (--forcerun) and is recorded as B;
# `nsightflow compare A B` then says how many pairs above 20 us stayed SAME (goal >=
# 95%). Prints the energy per launch of run A's time records last. Usage (device tool,
# carry the checkout's wheels; the lead's revision stamp):
#   source .device/env.sh; FAMILY=vecadd bash scripts/benchmarks/measure_aa.sh
set -u
OUT=${OUT:-/tmp/out}
FAMILY=${FAMILY:-vecadd}
mkdir -p "$OUT" logs
record() { # record NAME: results/ -> /tmp/aa_NAME (time, verify and timeline records)
    rm -rf "/tmp/aa_$1"
    python -m nsightflow record --results results --out "/tmp/aa_$1" \
        --command "scripts/benchmarks/measure_aa.sh run $1 (FAMILY=$FAMILY)" > /dev/null
}
record a
start=$(date +%s)
snakemake --cores all --until measure_variant --forcerun measure_variant \
    --config mode=measure "families=[$FAMILY]" > logs/aa_b.txt 2>&1
echo "run b (measure jobs again): snakemake exit $? in $(($(date +%s) - start)) s"
record b
python -m nsightflow compare /tmp/aa_a /tmp/aa_b -o "$OUT/compare_aa" --no-counters \
    > logs/aa_compare.txt 2>&1
echo "compare a b: exit $? ($(tail -1 logs/aa_compare.txt))"
python - "$OUT/compare_aa/compare.csv" "$FAMILY" <<'PY'
import glob, json, sys
import pandas as pd
p = pd.read_csv(sys.argv[1])
big = p[p[["median_a_us", "median_b_us"]].min(axis=1) > 20]
same = int((big.verdict == "SAME").sum())
print(f"A/A pairs: {len(p)}; above 20 us: {len(big)}, SAME {same} "
      f"({100 * same / max(len(big), 1):.1f}%; goal >= 95%); max |change| above 20 us "
      f"{big.change_pct.abs().max():.2f}%")
for r in p[p.verdict != "SAME"].itertuples():
    print(f"  {r.verdict} {r.variant} n={r.size}: {r.median_a_us:.2f} -> {r.median_b_us:.2f} us")
print(f"{'variant':20s} {'n':>9s} {'us':>8s} {'mJ/launch':>10s} {'W':>6s} {'busy':>5s} {'window s':>8s}")
for path in sorted(glob.glob(f"/tmp/aa_a/time/{sys.argv[2]}/*.json")):
    for row in json.load(open(path))["rows"]:
        e = row.get("energy", {})
        if e.get("status") == "ok":
            print(f"{path.split('/')[-1][:-5]:20s} {row['size']:9d} {row['time_median_us']:8.2f} "
                  f"{1e3 * e['j_per_launch']:10.4f} {e['power_w']:6.0f} {e['busy']:5.2f} {e['window_s']:8.3f}")
        else:
            print(f"{path.split('/')[-1][:-5]:20s} {row['size']:9d} energy {e.get('status')}: {e.get('message')}")
PY
