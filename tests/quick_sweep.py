"""A quick-space sweep record built from the H200's recorded sweep.

On pytest's path (pyproject `pythonpath = ["tests"]`): `from quick_sweep import
quick_record`. The recording's sweeps are the default experiment's quick space, which
also holds tuned.yaml's point of the variant even where its values are not among the
quick axes (Jacobi-2D v5 on the H200: BLOCK_X 64, ROWS 2, quick axes BLOCK_X [32, 128],
ROWS [4, 8]). Each point of the quick space takes the time the recorded sweep measured
for it, so the record is what a quick sweep on the H200 writes, with the recorded
numbers.
"""

import copy
from pathlib import Path
from typing import Any

from nsightflow.family.registry import load_family
from nsightflow.gpu.sweep import driver as S
from nsightflow.gpu.sweep import space as SP
from nsightflow.gpu.sweep.search import SweepCache
from nsightflow.io import read_json

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "examples" / "h200" / "sweep"


def quick_record(
    family: str, variant: str, cache_dir: Path, kernels: Path = ROOT / "kernels"
) -> dict[str, Any]:
    """The quick-space sweep record of ``variant`` with the recorded sweep's results.

    Args:
        family: a family whose recording holds a sweep of ``variant`` over its quick space.
        variant: the swept variant.
        cache_dir: a folder for the sweep's result cache (``cache.jsonl``).
        kernels: the kernels folder (its tuned.yaml adds its points to the space).
    """
    v = load_family(kernels / family).variants[variant]
    full = read_json(RECORDED / family / f"{variant}.json")
    measured = {c["id"]: c for c in full["configs"]}
    entries = SP.plan(v, "quick")
    cache = SweepCache(cache_dir / "cache.jsonl", "recorded")
    runnable = []
    for entry in entries:
        if entry["status"] != "pending":
            continue
        was = copy.deepcopy(measured[entry["id"]])
        entry.update(
            status=was["status"],
            message=was.get("message", ""),
            resources=was.get("resources", {}),
            cubin=f"{entry['id']}.cubin",
        )
        if was["status"] != "ok":  # a compile-time reason (registers, shared memory)
            continue
        entry["cubin_sha"] = entry["id"]
        runnable.append(entry)
        keep = ("status", "message", "times_us", "timing", "verify_n", "rel_l2_error")
        cache.append(entry["id"], entry["id"], {k: was[k] for k in keep if k in was})
    compiled = {
        "family": family,
        "variant": variant,
        "space": "quick",
        "axes": {a.name: list(a.chosen("quick")) for a in v.params},
        "defaults": v.defaults,
        "configs": entries,
        "compile_wall_s": full.get("compile_wall_s"),
    }
    record = S.assemble(compiled, runnable, cache, tuple(full["sizes"]))
    record.update(
        strategy="exhaustive",
        sweep_wall_s=full.get("sweep_wall_s"),
        resumed=0,
        restarts=0,
        provenance=dict(full["provenance"]),
    )
    return record
