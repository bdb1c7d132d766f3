"""Probe (GPU machine): what costs ncu replay passes, and what the FP32 FMA ceiling runs at.

1. ncu replay passes of one Jacobi-2D launch (n = 2048) for the lean set, each of its
   sections alone, each group of the declared metrics alone, and --set full; the wall
   time of the launcher alone (no ncu) at n = 8192, to split the profile stage's time.
2. The FMA ceiling kernel for ~1 s with NVML clock/power/throttle samples every 20 ms,
   and one launch under ncu (SM clock, issue and FMA-pipe utilisation).
Needs results/build/jacobi2d/v0_naive.cubin. Usage: python scripts/device_probe_cost.py OUTDIR
"""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from nsightflow import metrics
from nsightflow.profile import replay_passes, worker_argv

OUT = Path(sys.argv[1])
OUT.mkdir(parents=True, exist_ok=True)
M = metrics
GROUPS = {
    "stalls": [M.stall_metric(r) for r in M.STALL_REASONS],
    "time_dram": [M.TIME, M.DRAM_READ, M.DRAM_WRITE],
    "throughput_pct": [M.SM_THROUGHPUT, M.MEM_THROUGHPUT, M.SMEM_THROUGHPUT],
    "inst_mix": [M.FFMA, M.FADD, M.FMUL, M.SHARED_LD_INST, M.SHARED_ST_INST],
    "smem": [
        M.SMEM_CONFLICTS_LD,
        M.SMEM_CONFLICTS_ST,
        M.SMEM_WAVEFRONTS_LD,
        M.SMEM_WAVEFRONTS_ST,
    ],
    "sectors": [
        M.GLOBAL_LD_SECTORS,
        M.GLOBAL_ST_SECTORS,
        M.GLOBAL_LD_REQUESTS,
        M.L2_SECTORS,
    ],
    "hit_rates": [M.L2_HIT_RATE, M.L1_HIT_RATE],
    "occupancy": [M.ACHIEVED_OCCUPANCY, M.REGISTERS, *M.OCCUPANCY_LIMITS],
    "peaks": [
        M.PEAK_FFMA_PER_CYCLE,
        M.SM_CYCLES_PER_SECOND,
        M.PEAK_DRAM_BYTES_PER_CYCLE,
        M.DRAM_CYCLES_PER_SECOND,
    ],
}


def spec(n: int) -> Path:
    path = OUT / f"spec{n}.json"
    path.write_text(
        json.dumps(
            {
                "kernels_dir": "kernels",
                "family": "jacobi2d",
                "variant": "v0_naive",
                "cubin": "results/build/jacobi2d/v0_naive.cubin",
                "seed": 408,
                "n": n,
            }
        )
    )
    return path


def ncu(opts: list[str], n: int, label: str) -> dict:
    argv = [
        "ncu",
        "--clock-control",
        "none",
        "--kernel-name",
        "jacobi2d_v0",
        "--launch-count",
        "1",
        "--target-processes",
        "all",
        *opts,
        "--export",
        str(OUT / f"{label}_n{n}.ncu-rep"),
        "--force-overwrite",
        *worker_argv(spec(n), OUT / "r.json"),
    ]
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    (OUT / f"{label}_n{n}.ncu-rep").unlink(missing_ok=True)
    row = {
        "label": label,
        "n": n,
        "passes": replay_passes(p.stdout + p.stderr),
        "wall_s": round(wall, 2),
        "rc": p.returncode,
    }
    if p.returncode:
        row["err"] = (p.stdout + p.stderr)[-600:]
    print(row, flush=True)
    return row


rows = []
lean = [a for s in M.SECTIONS for a in ("--section", s)]
rows.append(ncu([*lean, "--metrics", ",".join(M.EXTRA_METRICS)], 2048, "lean"))
rows.append(ncu(["--set", "full"], 2048, "full"))
for s in M.SECTIONS:
    rows.append(ncu(["--section", s], 2048, f"section:{s}"))
rows.append(ncu(["--metrics", ",".join(M.EXTRA_METRICS)], 2048, "extra_only"))
for g, ms in GROUPS.items():
    rows.append(ncu(["--metrics", ",".join(ms)], 2048, f"group:{g}"))
for label, opts in (
    ("lean", [*lean, "--metrics", ",".join(M.EXTRA_METRICS)]),
    ("full", ["--set", "full"]),
):
    rows.append(ncu(opts, 8192, label))
t0 = time.perf_counter()
subprocess.run(worker_argv(spec(8192), OUT / "r.json"), check=True)
rows.append(
    {"label": "launcher_alone", "n": 8192, "wall_s": round(time.perf_counter() - t0, 2)}
)
t0 = time.perf_counter()
subprocess.run(["ncu", "--version"], capture_output=True, check=True)
rows.append({"label": "ncu_version_call", "wall_s": round(time.perf_counter() - t0, 2)})
(OUT / "passes.json").write_text(json.dumps(rows, indent=1))

# 2. FMA ceiling with NVML samples.
from nsightflow.launch import GpuContext, load_helpers  # noqa: E402
from nsightflow.timing import gpu_state  # noqa: E402

samples, stop = [], threading.Event()


def sampler() -> None:
    while not stop.is_set():
        samples.append({"t": time.perf_counter(), **gpu_state()})
        time.sleep(0.02)


with GpuContext() as gpu:
    fma = load_helpers(gpu).get_function("fma_peak")
    sms = gpu.device.get_attribute(gpu.cuda.device_attribute.MULTIPROCESSOR_COUNT)
    blocks, threads, iters = sms * 32, 256, 4096
    out = gpu.cuda.mem_alloc(blocks * threads * 4)
    args = (out, np.int32(iters), np.float32(0.999), np.float32(0.001))
    th = threading.Thread(target=sampler)
    th.start()
    t_end = time.perf_counter() + 1.5
    ms = []
    while time.perf_counter() < t_end:
        a, b = gpu.cuda.Event(), gpu.cuda.Event()
        a.record()
        fma(*args, block=(threads, 1, 1), grid=(blocks, 1))
        b.record()
        b.synchronize()
        ms.append(a.time_till(b))
    stop.set()
    th.join()
    flops = 2 * 8 * iters * blocks * threads
    tail = ms[len(ms) // 2 :]
    clocks = [s.get("sm_clock_mhz") for s in samples[len(samples) // 2 :]]
    res = {
        "median_ms": float(np.median(tail)),
        "tflops": flops / np.median(tail) / 1e9,
        "n_launches": len(ms),
        "sm_clock_mhz_second_half": sorted(set(clocks)),
        "power_w": [s.get("power_w") for s in samples[-5:]],
        "throttle": sorted({s.get("throttle_reasons") for s in samples}),
        "sms": sms,
    }
    print(res, flush=True)
    (OUT / "fma.json").write_text(
        json.dumps({"summary": res, "samples": samples}, default=str)
    )
