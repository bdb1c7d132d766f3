#!/bin/bash
# On the GPU machine: per-source-line warp samples and what they cost.
# Compiles and verifies Jacobi-2D v0 and SGEMM v2, then runs the profile stage on each
# (its profiled sizes, one ncu process) with the lean set, which now samples warps per
# instruction, and with `--set full`, REPS times each, alternating; parses the last
# lean and full reports with `nsightflow parse --source` and prints each launch's
# hottest source lines; last, a table: wall time lean vs full, ratio, replay passes,
# samples, hottest line. $OUT/hotspots.tar.gz holds the reports (results/profile_hot/
# {lean,full}/<family>/<variant>/), their parsed tables and the logs.
# Usage (device tool, carry [".device"]): source .device/env.sh; bash scripts/gpu/hotspots.sh
set -u
OUT=${OUT:-/tmp/out}
REPS=${REPS:-2}
TARGETS=${TARGETS:-"jacobi2d/v0_naive sgemm/v2_tiled_transposed"}
mkdir -p "$OUT" logs
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,utilization.gpu --format=csv,noheader
ncu --version | tail -1
V=""
for t in $TARGETS; do V="$V results/verify/$t.json"; done
# shellcheck disable=SC2086  # V is a list of targets
timeout 300 snakemake $V --cores all --config mode=measure > logs/hotspots_verify.txt 2>&1
echo "compile + verify: snakemake exit $? at $(($(date +%s) - T0)) s"
REPS=$REPS TARGETS=$TARGETS timeout 400 python - <<'PY' 2>&1 | tee logs/hotspots.txt
import json, os, statistics, subprocess, sys, time
from pathlib import Path

import pandas as pd

from nsightflow.analysis.hotspots import build_hotspots, locate

reps = int(os.environ["REPS"])
targets = os.environ["TARGETS"].split()
base = Path("results/profile_hot")
table = []
for target in targets:
    family, variant = target.split("/")
    walls = {"lean": [], "full": []}
    passes = {}
    for rep in range(reps):
        for kind in ("lean", "full"):  # alternating: drift hits both alike
            out = base / kind / family / variant
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "nsightflow", "profile", "--family", family,
                 "--variant", variant, "--cubin", f"results/build/{target}.cubin",
                 "--verify", f"results/verify/{target}.json", "--out-dir", str(out),
                 "--set", kind], capture_output=True, text=True)
            walls[kind].append(time.perf_counter() - start)
            meta = json.loads((out / "profile.json").read_text())
            passes[kind] = [r.get("passes") for r in meta["reports"]]
            print(f"{target} {kind} rep {rep}: {walls[kind][-1]:.1f} s, status "
                  f"{meta['status']}, passes per size {passes[kind]} "
                  f"{meta.get('message', '')[:300]}", flush=True)
    hot = {}
    for kind in ("lean", "full"):
        folder = base / kind / family / variant
        src = folder / "instructions.csv"
        proc = subprocess.run(
            [sys.executable, "-m", "nsightflow", "parse", str(folder), "-o",
             str(folder / "metrics.csv"), "--source", str(src), "--family", family],
            capture_output=True, text=True)
        print(proc.stdout.strip(), proc.stderr.strip()[-500:], flush=True)
        if (folder / "metrics.csv").is_file():  # sampling interval, drops, totals
            m = pd.read_csv(folder / "metrics.csv")
            m = m[m["metric"].str.startswith("smsp__pcsamp_")
                  & ~m["metric"].str.contains("stalled")]
            for r in m.itertuples():
                print(f"   {kind} n={r.size} launch {r.launch}: {r.metric} = "
                      f"{r.value:g} {r.unit}", flush=True)
        rows = pd.read_csv(src) if src.is_file() else pd.DataFrame()
        if rows.empty:
            hot[kind] = pd.DataFrame()
            continue
        fam_dir = Path("kernels") / family
        texts = {p: p.read_text().splitlines()
                 for f in rows["file"].unique() if (p := locate(f, fam_dir))}
        hot[kind] = build_hotspots(rows, fam_dir, texts)
        hot[kind].to_csv(folder / "hotspots.csv", index=False)
        for (size, launch), g in hot[kind].groupby(["size", "launch"]):
            print(f"-- {kind} {target} n={size} launch {launch} {g['kernel'].iloc[0]}: "
                  f"{int(g['samples'].sum())} samples, shares sum "
                  f"{g['share'].sum():.4f}", flush=True)
            for r in g.head(5).itertuples():
                print(f"   line {r.line:4d} {100 * r.share:5.1f}%  {r.top_reason:18s} "
                      f"{100 * r.top_reason_share:3.0f}%  {r.file}: {r.source[:70]}",
                      flush=True)
    lean, full = (statistics.median(walls[k]) for k in ("lean", "full"))

    def top(kind, size):
        h = hot[kind]
        g = h[h["size"] == size].sort_values("samples", ascending=False) if len(h) else h
        if g.empty:
            return "no samples"
        r = g.iloc[0]
        return f"line {r['line']} {100 * r['share']:.0f}% {r['top_reason']}"

    sizes = sorted(hot["lean"]["size"].unique()) if len(hot["lean"]) else []
    for size in sizes or [0]:
        lean_rows = hot["lean"][hot["lean"]["size"] == size] if sizes else []
        samples = int(lean_rows["samples"].sum()) if len(lean_rows) else 0
        table.append(f"{target:30s} {size:>6d} {lean:6.1f} {full:6.1f} "
                     f"{lean / full:5.2f} {str(passes.get('lean')):>10s} "
                     f"{str(passes.get('full')):>10s} {samples:>9d}  "
                     f"lean: {top('lean', size)}; full: {top('full', size)}")
lines = [f"profile stage wall (median of {reps}), lean vs --set full, per variant:",
         f"{'variant':30s} {'n':>6s} {'lean s':>6s} {'full s':>6s} {'ratio':>5s} "
         f"{'passes L':>10s} {'passes F':>10s} {'samples':>9s}  hottest line",
         *table]
Path("logs/hotspots_table.txt").write_text("\n".join(lines) + "\n")
PY
tar czf "$OUT/hotspots.tar.gz" results/profile_hot logs 2>/dev/null
echo "total $(($(date +%s) - T0)) s; $(du -h "$OUT/hotspots.tar.gz" | cut -f1) in \$OUT"
cat logs/hotspots_table.txt
