"""Probe 2 (GPU machine): replay passes of candidate lean sets; why the FMA ceiling is 90%.

Usage: python scripts/device_probe_cost2.py OUTDIR  (after scripts/device_probe_cost.py's
build of results/build/jacobi2d/v0_naive.cubin)
"""

import json
import subprocess
import sys
import time
from pathlib import Path

from nsightflow import metrics as M
from nsightflow.profile import replay_passes, worker_argv

OUT = Path(sys.argv[1])
OUT.mkdir(parents=True, exist_ok=True)
DROP = {M.SM_THROUGHPUT, M.MEM_THROUGHPUT}
EXTRA_B = [m for m in M.EXTRA_METRICS if m not in DROP]
EXTRA_C = [m for m in EXTRA_B if m != M.SMEM_THROUGHPUT]


def sec(*names: str) -> list[str]:
    return [a for s in names for a in ("--section", s)]


CANDIDATES = {
    "A_ls_occ_wss_extraB": [
        *sec("LaunchStats", "Occupancy", "WarpStateStats"),
        "--metrics",
        ",".join(EXTRA_B),
    ],
    "B_ls_occ_extraB": [
        *sec("LaunchStats", "Occupancy"),
        "--metrics",
        ",".join(EXTRA_B),
    ],
    "C_ls_occ_extraC": [
        *sec("LaunchStats", "Occupancy"),
        "--metrics",
        ",".join(EXTRA_C),
    ],
    "D_sol_ls_occ_extraB": [
        *sec("SpeedOfLight", "LaunchStats", "Occupancy"),
        "--metrics",
        ",".join(EXTRA_B),
    ],
    "E_smem_pct_only": ["--metrics", M.SMEM_THROUGHPUT],
    "lean_now": [*sec(*M.SECTIONS), "--metrics", ",".join(M.EXTRA_METRICS)],
    "full": ["--set", "full"],
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


def ncu(
    opts: list[str],
    n: int,
    label: str,
    kernel: str = "jacobi2d_v0",
    target: list[str] | None = None,
    keep: bool = False,
) -> dict:
    rep = OUT / f"{label}_n{n}.ncu-rep"
    argv = [
        "ncu",
        "--clock-control",
        "none",
        "--kernel-name",
        kernel,
        "--launch-count",
        "1",
        "--target-processes",
        "all",
        *opts,
        "--export",
        str(rep),
        "--force-overwrite",
        *(target or worker_argv(spec(n), OUT / "r.json")),
    ]
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if not keep:
        rep.unlink(missing_ok=True)
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


rows = [ncu(o, 2048, k) for k, o in CANDIDATES.items()]
for k in ("A_ls_occ_wss_extraB", "B_ls_occ_extraB", "full"):
    rows += [ncu(CANDIDATES[k], 8192, k) for _ in range(2)]
FMA = OUT / "fma_once.py"
FMA.write_text(
    "import numpy as np\n"
    "from nsightflow.launch import GpuContext, load_helpers\n"
    "with GpuContext() as gpu:\n"
    "    f = load_helpers(gpu).get_function('fma_peak')\n"
    "    out = gpu.cuda.mem_alloc(132*32*256*4)\n"
    "    for _ in range(3):\n"
    "        f(out, np.int32(4096), np.float32(0.999), np.float32(0.001),"
    " block=(256,1,1), grid=(132*32,1))\n"
    "    gpu.ctx.synchronize()\n"
)
rows.append(
    ncu(
        ["--launch-skip", "2", "--set", "full"],
        0,
        "fma_full",
        "fma_peak",
        [sys.executable, str(FMA)],
        keep=True,
    )
)
(OUT / "passes2.json").write_text(json.dumps(rows, indent=1))
