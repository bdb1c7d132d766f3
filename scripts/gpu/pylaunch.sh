#!/bin/bash
# On the GPU machine: the Python launcher variants through every GPU stage, recorded.
#   1. vecadd v4_triton, reduction v5_cupy_sum and sgemm v8_torch_matmul: compile,
#      verify, time, profile (each alone under ncu) and sanitize with the stage CLIs
#      and config.yaml's defaults; recorded into $OUT/pylaunch.tar.gz for
#      `nsightflow record --add`.
#   2. a second run for `nsightflow compare`: the vecadd CUDA ladder (v0..v3) timed
#      again (the recording's verify records copied in, as scripts/gpu/compare.sh
#      does), recorded into $OUT/rerun.tar.gz.
#   3. tests/gpu/test_pylaunch_gpu.py.
# The frameworks live in /opt/torch/.venv (torch 2.11, triton 3.6); its site-packages
# go after the project's on PYTHONPATH, else that venv's python runs everything.
# Usage (device tool, carry [".device"]):
#   source .device/env.sh; export NSIGHTFLOW_GIT_REVISION=<rev>; bash scripts/gpu/pylaunch.sh
set -u
OUT=${OUT:-/tmp/out}
STOP_S=${STOP_S:-450}
mkdir -p "$OUT" logs
export PATH=/usr/local/cuda/bin:$PATH NSIGHTFLOW_MODE=measure
T0=$(date +%s)
left() { echo $((STOP_S - $(date +%s) + T0)); }
say() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$OUT/phases.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader

cat > /tmp/probe.py <<'PY'
import cupy, pandas, pycuda.driver, torch, triton, triton.language as tl, yaml


@triton.jit
def _one(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.full((16,), 1.0, tl.float32))


x = torch.zeros(16, device="cuda")
_one[(1,)](x)
assert float(x.sum()) == 16.0
print("torch", torch.__version__, "triton", triton.__version__, "cupy", cupy.__version__)
PY
VENV=/opt/torch/.venv
if ! python /tmp/probe.py 2> logs/probe1.txt; then
    export PYTHONPATH="$PYTHONPATH:$VENV/lib/python3.12/site-packages"
    if ! python /tmp/probe.py 2> logs/probe2.txt; then
        mkdir -p /tmp/venvbin && ln -sf "$VENV/bin/python" /tmp/venvbin/python
        ln -sf "$VENV/bin/python" /tmp/venvbin/python3
        export PATH="/tmp/venvbin:$PATH"
        python /tmp/probe.py 2> logs/probe3.txt || tail -3 logs/probe*.txt
    fi
fi
say "python: $(command -v python), PYTHONPATH=$PYTHONPATH"

K=kernels
stages() { # stages FAMILY VARIANT: compile, verify, time, sanitize (as the rules do)
    local f=$1 v=$2 c=(--kernels-dir $K --family "$1" --variant "$2")
    c+=(--cubin "results/build/$f/$v.cubin")
    mkdir -p "results/build/$f" "results/verify/$f" "results/time/$f" "results/sanitize/$f"
    python -m nsightflow compile "${c[@]}" --resources "results/build/$f/$v.resources.json"
    timeout "$(left)" python -m nsightflow verify "${c[@]}" \
        --resources "results/build/$f/$v.resources.json" --out "results/verify/$f/$v.json"
    timeout "$(left)" python -m nsightflow time "${c[@]}" --verify "results/verify/$f/$v.json" \
        --out "results/time/$f/$v.json"
}
rm -rf results
for fv in vecadd/v4_triton reduction/v5_cupy_sum sgemm/v8_torch_matmul; do
    stages "${fv%/*}" "${fv#*/}" >> logs/stages.txt 2>&1
    say "$fv: verify $(python -c "import json;print(json.load(open('results/verify/$fv.json'))['status'])")"
done
for fv in vecadd/v4_triton reduction/v5_cupy_sum sgemm/v8_torch_matmul; do
    f=${fv%/*} v=${fv#*/}
    timeout "$(left)" python -m nsightflow profile --kernels-dir $K --family "$f" --variant "$v" \
        --cubin "results/build/$fv.cubin" --verify "results/verify/$fv.json" \
        --out-dir "results/profile/$f" >> logs/profile.txt 2>&1
    say "$fv: profile exit $?"
done
for fv in vecadd/v4_triton reduction/v5_cupy_sum sgemm/v8_torch_matmul; do
    f=${fv%/*} v=${fv#*/}
    timeout "$(left)" python -m nsightflow sanitize --kernels-dir $K --family "$f" --variant "$v" \
        --cubin "results/build/$fv.cubin" --resources "results/build/$fv.resources.json" \
        --out "results/sanitize/$fv.json" --timeout-s 90 >> logs/sanitize.txt 2>&1
    say "$fv: sanitize exit $?"
done
python -m nsightflow record --results results --out /tmp/pylaunch --command \
    "bash scripts/gpu/pylaunch.sh (stage CLIs with config.yaml's defaults; each launcher profiled alone; sanitize.timeout_s 90)"
tar czf "$OUT/pylaunch.tar.gz" -C /tmp pylaunch

# a second run of the vecadd ladder's timing, for `nsightflow compare`
mkdir -p results_rr/verify/vecadd results_rr/time/vecadd results_rr/build/vecadd
for v in v0_one_per_thread v1_grid_stride v2_coarsened v3_float4; do
    c=(--kernels-dir $K --family vecadd --variant $v --cubin results_rr/build/vecadd/$v.cubin)
    python -m nsightflow compile "${c[@]}" --resources results_rr/build/vecadd/$v.resources.json \
        >> logs/rerun.txt 2>&1
    cp examples/h200/verify/vecadd/$v.json results_rr/verify/vecadd/
    timeout "$(left)" python -m nsightflow time "${c[@]}" --verify results_rr/verify/vecadd/$v.json \
        --out results_rr/time/vecadd/$v.json >> logs/rerun.txt 2>&1
done
python -m nsightflow record --results results_rr --out /tmp/rerun --command \
    "bash scripts/gpu/pylaunch.sh, second part: the time stage of vecadd v0..v3 again (config.yaml's timing defaults), verify records copied from examples/h200"
tar czf "$OUT/rerun.tar.gz" -C /tmp rerun
say "recorded"

timeout "$(left)" python -m pytest -q -p no:cacheprovider tests/gpu/test_pylaunch_gpu.py \
    > logs/tests.txt 2>&1
say "tests: exit $?"
tar czf "$OUT/logs.tar.gz" logs
tail -5 logs/tests.txt
python - <<'PY'
import glob, json
for p in sorted(glob.glob("results*/time/*/*.json")):
    d = json.load(open(p))
    rows = [r for r in d.get("rows", []) if r.get("status") == "ok"]
    text = " ".join(f"{r['size']}:{r['time_median_us']:.2f}" for r in rows)
    print(f"time {d['family']:9s} {d['variant']:18s} {d['status']:7s} {text}")
for p in sorted(glob.glob("results/profile/*/*/profile.json")):
    d = json.load(open(p))
    print(f"prof {d['family']:9s} {d['variant']:18s} {d['status']:7s}",
          [(r.get("size"), r.get("kernels_profiled"), r.get("passes")) for r in d["reports"]])
for p in sorted(glob.glob("results/sanitize/*/*.json")):
    d = json.load(open(p))
    print(f"sani {d['family']:9s} {d['variant']:18s} {d['status']:7s} {d['message'][:90]}")
PY
