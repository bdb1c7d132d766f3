"""Probe (GPU machine): is a large pageable copy-out slow because of first-touch page
faults? Copies 4, 64 and 256 MiB device -> host into a fresh np.empty, a pre-touched
one, the same buffer again and pinned memory; prints GB/s. Run: python scripts/benchmarks/probe_dtoh.py
"""

import time

import numpy as np
import pycuda.autoinit  # noqa: F401
import pycuda.driver as cuda

for mib in (4, 64, 256):
    n = mib * 2**20 // 4
    dev = cuda.mem_alloc(n * 4)
    src = np.random.default_rng(0).random(n, dtype=np.float32)
    cuda.memcpy_htod(dev, src)
    rows = {}
    for name in ("fresh", "touched", "reused", "pinned"):
        if name == "fresh":
            host = np.empty(n, np.float32)
        elif name == "touched":
            host = np.empty(n, np.float32)
            host.fill(0)
        elif name == "pinned":
            host = cuda.pagelocked_empty(n, np.float32)
        cuda.Context.synchronize()
        t = time.perf_counter()
        cuda.memcpy_dtoh(host, dev)
        dt = time.perf_counter() - t
        rows[name] = mib * 2**20 / dt / 1e9  # "reused": the touched buffer, again
    print(
        f"{mib:4d} MiB DtoH GB/s: "
        + ", ".join(f"{k} {v:6.2f}" for k, v in rows.items())
    )
    fresh = np.empty(n, np.float32)
    t = time.perf_counter()
    fresh.fill(0)
    print(
        f"{mib:4d} MiB first touch of np.empty by fill: {(time.perf_counter() - t) * 1e3:.1f} ms"
    )
    dev.free()
