#!/bin/bash
# On the GPU machine: an A/A pair for `nsightflow compare`. The pipeline's
# time stage runs twice over FAMILIES, back to back on one GPU with the default timing
# settings; each run is recorded (time JSONs only) into $OUT/h200_aa/{a,b}, then b is
# compared with a, and the kept history entry with the second run. Usage (device tool,
# carry [".device"]; the lead's usual revision stamp):
#   source .device/env.sh; export NSIGHTFLOW_GIT_REVISION=<rev>; bash scripts/gpu/compare.sh
# A second call for the other families (about 6 min each):
#   FAMILIES="sgemm vecadd reduction" bash scripts/gpu/compare.sh
# With examples/h200_aa/ in the tree (the first call's result, copied there), the second
# call adds its runs to a copy of it (listed under `additions`) and returns the whole.
#
# VERIFY=recorded (default): the time stage needs each variant's verify record; the
# recorded H200 ones (examples/h200/verify, all ok) are copied in after compiling,
# which saves ~2-5 min of float64 references. VERIFY=run verifies here instead.
# STOP_S (default 420): the whole script's budget; each pass gets half of what is left.
set -u
OUT=${OUT:-/tmp/out}
FAMILIES=${FAMILIES:-"jacobi2d conv2d scan spmv"}
VERIFY=${VERIFY:-recorded}
STOP_S=${STOP_S:-420}
mkdir -p "$OUT" logs
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
list() { echo "[$(echo "$*" | tr ' ' ',')]"; }
CONFIG="mode=measure families=$(list $FAMILIES)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv,noheader
rm -rf results .snakemake

# shellcheck disable=SC2086  # CONFIG holds several key=value words
timeout 120 snakemake --cores all --until compile_variant --config $CONFIG \
    > logs/aa_compile.txt 2>&1
echo "compile: exit $? at $(elapsed) s"
if [ "$VERIFY" = recorded ]; then
    for fam in $FAMILIES; do
        mkdir -p "results/verify/$fam"
        cp examples/h200/verify/"$fam"/*.json "results/verify/$fam/"
    done
    touch results/verify/*/*.json # newer than the cubins: not verified again
fi

pass() { # pass NAME [SNAKEMAKE-ARGS...]: the time stage of every variant, then record
    local name=$1 start left
    shift
    start=$(elapsed)
    left=$(((STOP_S - start) / PASSES_LEFT))
    [ "$left" -lt 30 ] && left=30 # timeout 0 would mean no limit at all
    # shellcheck disable=SC2086
    timeout "$left" snakemake --cores all --until measure_variant --rerun-triggers mtime \
        "$@" --config $CONFIG > "logs/aa_$name.txt" 2>&1
    echo "pass $name: snakemake exit $? in $(($(elapsed) - start)) s (limit $left s)"
    rm -rf "/tmp/aa_$name"
    python -m nsightflow record --results results --out "/tmp/aa_$name" \
        --command "scripts/gpu/compare.sh pass $name: snakemake --until measure_variant, FAMILIES=$FAMILIES, VERIFY=$VERIFY" \
        > /dev/null
}
PASSES_LEFT=2 pass a
PASSES_LEFT=1 pass b --forcerun measure_variant
HISTORY=$(ls -d results/history/*/ | tail -1)

# Keep the time JSONs only; add to the example already in the tree, if any.
rm -rf "$OUT/h200_aa"
[ -f examples/h200_aa/a/recording.json ] && cp -r examples/h200_aa "$OUT/h200_aa"
python - "$OUT/h200_aa" <<'PY'
import json, shutil, sys
from pathlib import Path
out = Path(sys.argv[1])
for name in ("a", "b"):
    run, dst = Path(f"/tmp/aa_{name}"), out / name
    info = json.loads((run / "recording.json").read_text())
    info["note"] = "time JSONs only (verify and build records left out to keep it small)"
    fams = sorted(p.name for p in (run / "time").iterdir())
    info["folders"] = [f"time/{f}" for f in fams]
    for fam in fams:
        shutil.rmtree(dst / "time" / fam, ignore_errors=True)
        shutil.copytree(run / "time" / fam, dst / "time" / fam)
    if (dst / "recording.json").is_file():  # the earlier call's runs stay the base
        base = json.loads((dst / "recording.json").read_text())
        base.setdefault("additions", []).append(info)
        info = base
    (dst / "recording.json").write_text(json.dumps(info, indent=2) + "\n")
PY
du -sh "$OUT/h200_aa"
python -m nsightflow compare "$OUT/h200_aa/a" "$OUT/h200_aa/b" -o "$OUT/compare_aa" \
    --no-counters > logs/aa_compare.txt 2>&1
echo "compare a b: exit $? ($(tail -1 logs/aa_compare.txt))"
python -m nsightflow compare "$HISTORY" results -o "$OUT/compare_history" \
    --no-counters > logs/aa_compare_history.txt 2>&1
echo "compare $HISTORY results: exit $? ($(tail -1 logs/aa_compare_history.txt))"
cp -r logs "$OUT/logs"
echo "total $(elapsed) s"

python - "$OUT/compare_aa/compare.csv" <<'PY'
import sys
import pandas as pd
p = pd.read_csv(sys.argv[1])
big = p[p[["median_a_us", "median_b_us"]].min(axis=1) > 20]
print(f"A/A pairs: {len(p)}; above 20 us: {len(big)}, SAME {int((big.verdict == 'SAME').sum())} "
      f"({100 * (big.verdict == 'SAME').mean():.1f}%; target >= 95%)")
print(f"{'family':10s} {'pairs>20us':>10s} {'SAME':>5s} {'max|chg|%':>9s} {'median|chg|%':>12s}")
for fam, g in big.groupby("family"):
    print(f"{fam:10s} {len(g):10d} {int((g.verdict == 'SAME').sum()):5d} "
          f"{g.change_pct.abs().max():9.2f} {g.change_pct.abs().median():12.2f}")
odd = p[p.verdict != "SAME"]
for r in odd.itertuples():
    print(f"  {r.verdict:9s} {r.family}/{r.variant} n={r.size}: {r.median_a_us:.2f} -> "
          f"{r.median_b_us:.2f} us ({r.change_pct:+.2f}%, interval {100 * (r.ci_low - 1):+.2f}"
          f"..{100 * (r.ci_high - 1):+.2f}%, threshold {r.threshold_pct:.1f}%)")
PY
