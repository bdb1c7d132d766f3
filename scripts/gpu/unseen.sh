#!/bin/bash
# On the GPU machine: test families the rules were not written against
# (tests/data/diagnosis_families: staging = low occupancy from a 48 KB shared buffer,
# window = a per-thread array in local memory; transpose = strided stores and bank
# conflicts), measured end to end with the current code. Prints each step's primary
# finding with its line and each variant's hottest line.
# Usage: source .device/env.sh; FAMILIES="staging window" bash scripts/gpu/unseen.sh
set -u
OUT=${OUT:-/tmp/out}
FAMILIES=${FAMILIES:-staging window}
mkdir -p "$OUT" logs
export NSIGHTFLOW_MODE=measure
echo "nvdisasm: $(command -v nvdisasm || ls /usr/local/cuda/bin/nvdisasm 2>/dev/null || echo none)"
printf 'kernels_dir: tests/data/diagnosis_families\ntimeline: {enabled: false}\nsanitize: {enabled: false}\nsweep: {enabled: false}\n' >/tmp/unseen.yaml
targets=$(for f in $FAMILIES; do printf 'results/report/%s/report.md ' "$f"; done)
# shellcheck disable=SC2086
timeout "${UNSEEN_S:-420}" snakemake $targets --cores all --keep-going \
    --configfile config.yaml /tmp/unseen.yaml --config mode=measure >logs/unseen.txt 2>&1
echo "unseen: snakemake exit $?"
tail -n 30 logs/unseen.txt | grep -i "error\|exception" | head -n 10
folders=""
for f in $FAMILIES; do
    for stage in analysis report profile time verify build metrics figures; do
        folders="$folders results/$stage/$f"
    done
done
# shellcheck disable=SC2086
tar czf "$OUT/unseen.tar.gz" $folders results/ceilings.json logs 2>/dev/null
# shellcheck disable=SC2086
python scripts/gpu/primaries.py $FAMILIES
FAMILIES="$FAMILIES" python - <<'PY'
import os
import pandas as pd
for fam in os.environ["FAMILIES"].split():
    if not os.path.exists(f"results/analysis/{fam}/hotspots.csv"):
        continue
    h = pd.read_csv(f"results/analysis/{fam}/hotspots.csv")
    top = h.sort_values("share", ascending=False).groupby("variant").head(1)
    print(top[["variant", "size", "line", "share", "top_reason", "source"]].to_string(index=False))
    s = pd.read_csv(f"results/report/{fam}/summary.csv")
    keep = ["variant", "size", "status", "time_median_us", "gbps", "regime"]
    print(s[keep].to_string(index=False))
PY
