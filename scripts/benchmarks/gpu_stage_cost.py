"""Benchmark (GPU machine): GPU-job seconds per variant per stage, from Snakemake's jobs.

Runs the pipeline on one family in measure mode (every stage but the PDF, default
config) and reads each job's start and end from Snakemake's metadata
(``.snakemake/metadata``: the start is when Snakemake marked the job's outputs
incomplete, the end the newest output's mtime). A GPU job is one whose shell command
goes through ``gpu-lock`` (every GPU rule does). Per variant it prints the seconds of
each GPU job that belongs to it (``results/<stage>/<family>/<variant>...``), the
family's jobs (the profile) divided by its variants, and the run's one-off jobs
(ceilings, timeline backend) apart. Where a job's record holds its own part timers
(``seconds``: a combined measure job's verify / time / timeline), they are printed
beside it. The CPU jobs' sum and the run's wall time close the table.

Usage (from the project root, on the GPU machine, measure mode):
    python scripts/benchmarks/gpu_stage_cost.py --family vecadd --run --json OUT.json
    python scripts/benchmarks/gpu_stage_cost.py --family vecadd    # read the last run
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

GPU_MARK = "gpu-lock"  # every GPU rule's command starts with the lock wrapper


def read_jobs(metadata: Path) -> list[dict[str, Any]]:
    """One entry per job: rule, start, end, outputs, whether it held a GPU.

    Snakemake keeps one record per output file (the file's path is the record's
    name, URL-safe base64, split into folders of at most 255 characters with an
    ``@`` before each but the last); a job's outputs share its ``job_hash``.
    """
    jobs: dict[tuple[str, Any], dict[str, Any]] = {}
    for path in sorted(p for p in metadata.rglob("*") if p.is_file()):
        parts = path.relative_to(metadata).parts
        name = "".join(p.removeprefix("@") for p in parts)
        try:
            record = json.loads(path.read_text())
            output = base64.urlsafe_b64decode(name).decode()
        except (ValueError, UnicodeDecodeError):
            continue
        if record.get("starttime") is None or record.get("endtime") is None:
            continue
        # a job's outputs share its hash (their start times differ by microseconds)
        key = (record["rule"], record.get("job_hash") or record["starttime"])
        job = jobs.setdefault(
            key,
            {
                "rule": record["rule"],
                "start": float(record["starttime"]),
                "end": float(record["endtime"]),
                "outputs": [],
                "gpu": GPU_MARK in (record.get("shellcmd") or ""),
            },
        )
        job["start"] = min(job["start"], float(record["starttime"]))
        job["end"] = max(job["end"], float(record["endtime"]))
        job["outputs"].append(output)
    return sorted(jobs.values(), key=lambda j: j["start"])


def owner(job: dict[str, Any], family: str) -> str | None:
    """The variant a job belongs to, ``*`` for the family's, None for the run's."""
    for output in job["outputs"]:
        parts = Path(output).parts
        if family not in parts:
            continue
        rest = parts[parts.index(family) + 1 :]
        if not rest:
            return "*"  # the family's folder (profile)
        return rest[0].split(".")[0]
    return None


def part_seconds(job: dict[str, Any]) -> dict[str, float]:
    """The job's own part timers, where its JSON record holds ``seconds``."""
    found: dict[str, float] = {}
    for output in job["outputs"]:
        if output.endswith(".json") and Path(output).is_file():
            try:
                data = json.loads(Path(output).read_text())
            except ValueError:
                continue
            seconds = data.get("seconds") if isinstance(data, dict) else None
            if isinstance(seconds, dict):
                found.update({k: float(v) for k, v in seconds.items()})
    return found


def cost_table(jobs: list[dict[str, Any]], family: str) -> dict[str, Any]:
    """GPU-job seconds per variant per rule, the family's share, the run's one-offs."""
    per_variant: dict[str, dict[str, float]] = defaultdict(dict)
    parts: dict[str, dict[str, float]] = defaultdict(dict)
    family_jobs: dict[str, float] = defaultdict(float)
    run_jobs: dict[str, float] = defaultdict(float)
    cpu = 0.0
    for job in jobs:
        seconds = job["end"] - job["start"]
        if not job["gpu"]:
            cpu += seconds
            continue
        who = owner(job, family)
        if who is None:
            run_jobs[job["rule"]] += seconds
        elif who == "*":
            family_jobs[job["rule"]] += seconds
        else:
            rule = job["rule"]
            per_variant[who][rule] = per_variant[who].get(rule, 0.0) + seconds
            parts[who].update(part_seconds(job))
    variants = sorted(per_variant)
    share = sum(family_jobs.values()) / max(len(variants), 1)
    totals = {v: sum(per_variant[v].values()) + share for v in variants}
    return {
        "family": family,
        "per_variant": {v: dict(per_variant[v]) for v in variants},
        "parts": {v: parts[v] for v in variants if parts[v]},
        "family_jobs": dict(family_jobs),
        "family_share_per_variant": share,
        "run_jobs": dict(run_jobs),
        "per_variant_total": totals,
        "mean_per_variant": sum(totals.values()) / max(len(totals), 1),
        "gpu_job_seconds": sum(j["end"] - j["start"] for j in jobs if j["gpu"]),
        "cpu_job_seconds": cpu,
    }


def print_table(table: dict[str, Any]) -> None:
    """Rules as rows, variants as columns; the family's share and totals below."""
    variants = list(table["per_variant"])
    rules = sorted({r for v in variants for r in table["per_variant"][v]})
    width = max([len(v) for v in variants] + [8])
    print(f"{'GPU job [s]':24s}" + "".join(f"{v:>{width + 1}s}" for v in variants))
    for rule in rules:
        cells = [table["per_variant"][v].get(rule) for v in variants]
        print(
            f"{rule:24s}"
            + "".join(f"{c:>{width + 1}.2f}" if c else " " * (width + 1) for c in cells)
        )
    for name in sorted({k for p in table["parts"].values() for k in p}):
        cells = [table["parts"].get(v, {}).get(name) for v in variants]
        print(
            f"{'  part ' + name:24s}"
            + "".join(f"{c:>{width + 1}.2f}" if c else " " * (width + 1) for c in cells)
        )
    share = table["family_share_per_variant"]
    print(f"{'family share':24s}" + f"{share:>{width + 1}.2f}" * len(variants))
    totals = table["per_variant_total"]
    print(f"{'total':24s}" + "".join(f"{totals[v]:>{width + 1}.2f}" for v in variants))
    print(
        f"family jobs: {_fmt(table['family_jobs'])}; run jobs: {_fmt(table['run_jobs'])}"
    )
    print(
        f"mean GPU-job seconds per variant: {table['mean_per_variant']:.2f}; all GPU "
        f"jobs {table['gpu_job_seconds']:.1f} s, CPU jobs {table['cpu_job_seconds']:.1f} s"
    )
    if "wall_s" in table:
        print(f"wall time of the run: {table['wall_s']:.1f} s")


def _fmt(jobs: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f} s" for k, v in sorted(jobs.items())) or "none"


def run_pipeline(family: str, timeout_s: float, extra: list[str]) -> float:
    """Snakemake on one family in measure mode from a clean state; its wall time."""
    for folder in ("results", ".snakemake"):
        subprocess.run(["rm", "-rf", folder], check=True)
    argv = ["snakemake", "--cores", "all", "--omit-from", "render_pdf"]
    argv += ["--config", "mode=measure", f"families=[{family}]", *extra]
    start = time.perf_counter()
    with open(f"logs_bench_{family}.txt", "w") as log:
        try:
            code: int | str = subprocess.run(
                argv, stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s
            ).returncode
        except subprocess.TimeoutExpired:
            code = f"killed at {timeout_s:g} s (the jobs finished so far are read)"
    wall = time.perf_counter() - start
    print(f"snakemake exit {code} in {wall:.1f} s", flush=True)
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", required=True)
    parser.add_argument("--run", action="store_true", help="run the pipeline first")
    parser.add_argument("--timeout-s", type=float, default=600)
    parser.add_argument("--json", type=Path, help="write the table here")
    parser.add_argument("--config", nargs="*", default=[], help="more key=value")
    args = parser.parse_args()
    wall = run_pipeline(args.family, args.timeout_s, args.config) if args.run else None
    metadata = Path(".snakemake/metadata")
    if not metadata.is_dir():
        print(f"no {metadata}: run with --run", file=sys.stderr)
        return 1
    table = cost_table(read_jobs(metadata), args.family)
    if wall is not None:
        table["wall_s"] = wall
    table["host"] = os.uname().nodename
    print_table(table)
    if args.json:
        args.json.write_text(json.dumps(table, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
