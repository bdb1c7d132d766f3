#!/bin/bash
# On the GPU machine: the five test families of the diagnosis's efficiency, pipe and
# launch rules (tests/data/diagnosis_families: diverge = lanes idle in an issue-bound FMA
# kernel, mio = MIO waits from shuffles and special functions without shared memory,
# fp64 = an unsuffixed literal that moves float code to FP64, fused = a step that removes
# a launch, strided = loads and stores strided together), measured end to end with the
# current code and recorded with `nsightflow record`; then the lean profile's replay
# passes per launch with and without the pipe and instruction-class counters
# (ncu_metrics.MIX_METRICS), on the strided family. Prints each step's primary finding
# with its line, and the passes.
# Usage: source .device/env.sh; bash scripts/gpu/claims.sh
set -u
OUT=${OUT:-/tmp/out}
FAMILIES=${FAMILIES:-diverge mio fp64 fused strided}
mkdir -p "$OUT" logs
export NSIGHTFLOW_MODE=measure
printf 'kernels_dir: tests/data/diagnosis_families\nfamilies: [%s]\ntimeline: {enabled: false}\nsanitize: {enabled: false}\nsweep: {enabled: false}\n' \
    "$(echo "$FAMILIES" | tr ' ' ',')" >/tmp/claims.yaml
targets=$(for f in $FAMILIES; do printf 'results/analysis/%s/findings.csv ' "$f"; done)
# shellcheck disable=SC2086
timeout "${CLAIMS_S:-400}" snakemake $targets --cores all --keep-going \
    --configfile config.yaml /tmp/claims.yaml --config mode=measure >logs/claims.txt 2>&1
echo "claims: snakemake exit $?"
grep -i "error\|exception" logs/claims.txt | head -n 10
python -m nsightflow record --results results --out /tmp/rec \
    --command "scripts/gpu/claims.sh" >logs/record.txt 2>&1 || tail -n 5 logs/record.txt
tar czf "$OUT/claims_recording.tar.gz" -C /tmp rec
# the lean set without the pipe and instruction-class counters, for the pass count
python - >logs/passes_without_mix.txt 2>&1 <<'PY'
from nsightflow.tools import ncu_metrics as M

M.EXTRA_METRICS = tuple(m for m in M.EXTRA_METRICS if m not in M.MIX_METRICS)
from nsightflow.cli import main

names = ["v0_row_per_thread", "v1_element_per_thread"]
main(["profile", "--kernels-dir", "tests/data/diagnosis_families", "--family", "strided",
      "--variant", *names, "--cubin", *(f"results/build/strided/{v}.cubin" for v in names),
      "--verify", *(f"results/verify/strided/{v}.json" for v in names),
      "--out-dir", "/tmp/prof_without_mix"])
PY
tar czf "$OUT/claims_results.tar.gz" results/analysis results/metrics logs /tmp/prof_without_mix 2>/dev/null
# shellcheck disable=SC2086
python scripts/gpu/primaries.py $FAMILIES
FAMILIES="$FAMILIES" python - <<'PY'
import json
import os
from pathlib import Path

import pandas as pd

pd.set_option("display.width", 200)
for fam in os.environ["FAMILIES"].split():
    a = pd.read_csv(f"results/analysis/{fam}/analysis.csv")
    keep = ["variant", "size", "status", "time_median_us", "time_iqr_us", "regime"]
    print(a[a["profiled"]][keep].to_string(index=False))
for label, root in (("with mix", Path("results/profile")), ("without mix", Path("/tmp/prof_without_mix"))):
    passes = {
        str(p.parent.relative_to(root)): [r.get("passes") for r in json.loads(p.read_text())["reports"]]
        for p in sorted(root.glob("**/profile.json"))
    }
    print("passes", label, passes)
PY
