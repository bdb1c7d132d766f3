#!/bin/bash
# On the GPU machine: run the default experiment and the faulty test family, record the
# raw outputs as a replayable example, export one raw-CSV fixture, run the GPU tests.
# Usage (device tool, carry [".device"]):
#   source .device/env.sh; NSIGHTFLOW_GIT_REVISION=<rev> bash scripts/device_record.sh
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
rm -rf results logs benchmarks .snakemake
bash scripts/device_run.sh --omit-from render_pdf
python -m nsightflow record --results results --out /tmp/h200 \
    --command "snakemake --cores all; snakemake --cores all --config kernels_dir=tests/data/families"
tar czf "$OUT/h200.tar.gz" -C /tmp h200
mkdir -p /tmp/fixtures
REP=$(ls results/profile/jacobi2d/v1_smem/n*.ncu-rep)  # all profiled sizes, one report
ncu --import "$REP" --csv --page raw > "/tmp/fixtures/v1_smem_$(basename "$REP" .ncu-rep).raw.csv"
cp "$REP" "/tmp/fixtures/v1_smem_$(basename "$REP")"
tar czf "$OUT/fixtures.tar.gz" -C /tmp fixtures
python -m pytest -m "gpu or ncu" tests/gpu -q -p no:cacheprovider 2>&1 | tail -8
