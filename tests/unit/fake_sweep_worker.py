"""A CPU stand-in for nsightflow.gpu.sweep.worker (same protocol: SPEC RESULT).

It evaluates the spec's configurations through the real cache and search, and plays
the sweepy family's MODE parameter the way the GPU would: 0 ok (time grows with
BLOCK), 1 wrong, 3 dies like a kernel fault (no result), 4 hangs, 6 a launch error.
FAKE_SWEEP_PIDS names a file that gets this process's pid; FAKE_SWEEP_DIE_AFTER=k
makes the process die (as if killed) once k configurations are in the cache;
FAKE_SWEEP_SLEEP_S delays each configuration.
"""

import json
import os
import sys
import time
from pathlib import Path

from nsightflow.gpu.sweep.search import SweepCache, search


def result_of(params: dict[str, int]) -> dict[str, object]:
    mode = params.get("MODE", 0)
    if mode == 1:
        return {"status": "wrong_result", "message": "n=1000: relative L2 error 0.5"}
    if mode == 3:
        os._exit(11)  # no result, like a process killed by an illegal address
    if mode == 4:
        time.sleep(3600)
    if mode == 6:
        return {"status": "launch_failed", "message": "n=1000: invalid argument"}
    t = 10.0 + params.get("BLOCK", 256) / 64
    return {"status": "ok", "message": "", "times_us": {"1048576": t}, "geomean_us": t}


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    if os.environ.get("FAKE_SWEEP_PIDS"):
        with open(os.environ["FAKE_SWEEP_PIDS"], "a") as fh:
            fh.write(f"{os.getpid()}\n")
    cache = SweepCache(Path(spec["cache"]), spec["key"])
    die_after = int(os.environ.get("FAKE_SWEEP_DIE_AFTER", "0"))
    sleep_s = float(os.environ.get("FAKE_SWEEP_SLEEP_S", "0"))
    inflight = Path(spec["inflight"])

    def evaluate(config: dict) -> dict | None:
        hit = cache.get(config["id"], config["cubin_sha"])
        if hit is not None:
            return dict(hit["result"])
        if time.time() > spec["deadline"]:
            return None
        if die_after and len(cache._entries) >= die_after:
            os._exit(9)  # killed between configurations
        inflight.write_text(
            json.dumps(
                {
                    "id": config["id"],
                    "cubin_sha": config["cubin_sha"],
                    "started": time.time(),
                }
            )
        )
        time.sleep(sleep_s)
        result = {**result_of(config["params"]), "evaluated": True, "wall_s": 0.01}
        cache.append(config["id"], config["cubin_sha"], result)
        inflight.unlink(missing_ok=True)
        return result

    s = spec["settings"]
    axes: dict[str, list[int]] = {}
    for c in spec["configs"]:
        for k, v in c["params"].items():
            if v not in axes.setdefault(k, []):
                axes[k].append(v)
    done = search(
        s["strategy"], axes, spec["configs"], evaluate, (s["max_configs"], s["seed"])
    )
    Path(sys.argv[2]).write_text(json.dumps({"status": "ok", "evaluated": done}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
