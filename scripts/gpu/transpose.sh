#!/bin/bash
# On the GPU machine: the transpose test family
# (tests/data/diagnosis_families/transpose: strided stores, a shared tile with 32-way
# bank conflicts, the padded tile) measured end to end with the current code (family
# profile in one ncu process, drain counted to the stores, primary findings citing
# their line); prints each variant's primary finding, its line and the hottest line.
# Usage: source .device/env.sh; bash scripts/gpu/transpose.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" logs
export NSIGHTFLOW_MODE=measure
printf 'kernels_dir: tests/data/diagnosis_families\ntimeline: {enabled: false}\nsanitize: {enabled: false}\nsweep: {enabled: false}\n' >/tmp/transpose.yaml
timeout "${TRANSPOSE_S:-300}" snakemake results/report/transpose/report.md --cores all \
    --configfile config.yaml /tmp/transpose.yaml --config mode=measure >logs/transpose.txt 2>&1
echo "transpose: snakemake exit $?"
tar czf "$OUT/transpose.tar.gz" results/analysis/transpose results/report/transpose \
    results/profile/transpose results/time/transpose results/verify/transpose \
    logs/transpose.txt 2>/dev/null
python - <<'PY'
import pandas as pd
f = pd.read_csv("results/analysis/transpose/findings.csv")
p = f[f["role"] == "primary"]
cols = [c for c in ("variant", "step_of", "size", "rule", "line", "line_share") if c in p]
print(p[cols].to_string(index=False))
h = pd.read_csv("results/analysis/transpose/hotspots.csv")
top = h.sort_values("share", ascending=False).groupby("variant").head(1)
print(top[["variant", "size", "line", "share", "top_reason", "source"]].to_string(index=False))
PY
