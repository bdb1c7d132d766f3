"""The workflow through SLURM (profiles/slurm/) on the one-node test cluster.

The cluster (tests/slurm/slurm_cluster.sh) has two fake GPUs declared as GRES. Nothing can
measure on them, so the run replays the bundled recording; to still send GPU-asking
jobs through SLURM, the replay twins of the GPU rules get the resources the profile
gives the GPU rules, plus the GPU rules' own `gpu=1`. Whether jobs overlapped is read
from the node's job records (prolog/epilog: start, end, GPU indexes; task prolog:
CUDA_VISIBLE_DEVICES), never from Snakemake's own account.
"""

import itertools
import os
import re
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# GPU rules of measure mode; in replay, the family and ceilings replay jobs stand in
# for them (given the same resources below), so that scheduling can be tested here.
GPU_RULES_MEASURE = (
    "measure_variant",
    "profile_family",
    "sanitize_variant",
    "measure_ceilings",
)
REPLAYED = ("jacobi2d", "sgemm")  # the families these tests replay
GPU_RULES = {f"replay_{f}" for f in REPLAYED} | {"replay_ceilings"}
# GPU rules of measure mode only (the timeline's replay needs no GPU twin here).
TIMELINE_GPU_RULES = {"choose_timeline_backend"}
# The jobs a replay submits besides the GPU twins (workflow/rules/*.smk in replay mode):
# per family, its sweep tables (sweep is on in config.yaml), analysis, report and PDF;
# once, the ceilings' table and the index. A family's replay job parses its profiles
# itself (`--then parse`, replay.smk): replay has no parse job.
PER_FAMILY_CPU_RULES = ("sweep_family", "analyze_family", "report_family", "render_pdf")
ONCE_CPU_RULES = ("tabulate_ceilings", "report_index")
REPORT_FILES = ("report.md", "report.html", "report.pdf", "summary.csv")


@dataclass(frozen=True)
class Job:
    """One SLURM job of a run, as the node recorded it."""

    jobid: int
    rule: str
    start: float
    end: float
    partition: str
    gpus: tuple[str, ...]  # SLURM_JOB_GPUS at allocation
    # CUDA_VISIBLE_DEVICES per job step: "batch" runs the plugin's jobstep Snakemake,
    # "0" the rule itself (the plugin's `srun --gpus=1 ...` for GPU rules)
    visible: tuple[tuple[str, str], ...]

    def rule_sees(self) -> str:
        return dict(self.visible)["0"]

    def overlaps(self, other: "Job") -> bool:
        return self.start < other.end and other.start < self.end


def slurm_profile(workdir: Path, **extra: str) -> None:
    """profiles/slurm/ of the copy, plus the GPU rules' resources on their twins."""
    path = workdir / "profiles/slurm/config.yaml"
    profile = yaml.safe_load(path.read_text())
    resources = profile["set-resources"]["measure_variant"]
    for twin in GPU_RULES:
        profile["set-resources"][twin] = {**resources, "gpu": 1, **extra}
    path.write_text(yaml.safe_dump(profile, sort_keys=False))


def snakemake_slurm(
    workdir: Path, cluster: Path, *targets: str
) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NSIGHTFLOW_MODE"}
    env["SLURM_CONF"] = str(cluster / "slurm.conf")
    proc = subprocess.run(
        [
            "snakemake",
            "--workflow-profile",
            "profiles/slurm",
            "--configfile",
            ".test/config.yaml",
            "--config",
            "mode=replay",
            f"families=[{','.join(REPLAYED)}]",
            # the test cluster has no accounting database: poll with squeue
            "--slurm-status-command",
            "squeue",
            "--slurm-init-seconds-before-status-checks",
            "2",
            "--slurm-no-account",
            *targets,
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    (workdir / "snakemake.out").write_text(proc.stdout + proc.stderr)
    return proc


def submitted(workdir: Path) -> dict[int, str]:
    """SLURM job id -> rule, from the per-job logs the profile keeps."""
    logdir = workdir / "logs/slurm"
    return {
        int(log.stem): log.relative_to(logdir).parts[0].removeprefix("rule_")
        for log in logdir.rglob("*.log")
    }


def node_records(cluster: Path, rules: dict[int, str]) -> list[Job]:
    """The jobs of `rules` as the node's prolog, epilog and task prolog saw them."""
    events: dict[int, dict[str, list[str]]] = {}
    for line in (cluster / "jobs.log").read_text().splitlines():
        kind, jobid, stamp, gpus, partition = line.split()
        if int(jobid) in rules:
            rec = events.setdefault(int(jobid), {})
            rec[kind] = [stamp, gpus.removeprefix("gpus="), partition.split("=")[1]]
    visible: dict[int, dict[str, str]] = {}
    for line in (cluster / "tasks.log").read_text().splitlines():
        _, jobstep, _, devices = line.split()
        jobid, step = jobstep.split(".")
        visible.setdefault(int(jobid), {})[step] = devices.split("=", 1)[1]
    missing = set(rules) - {
        j for j, rec in events.items() if {"start", "end"} <= set(rec)
    }
    assert not missing, f"jobs without start and end records: {sorted(missing)}"
    return [
        Job(
            jobid=jobid,
            rule=rules[jobid],
            start=float(rec["start"][0]),
            end=float(rec["end"][0]),
            partition=rec["start"][2],
            gpus=tuple(g for g in rec["start"][1].split(",") if g),
            visible=tuple(sorted(visible.get(jobid, {}).items())),
        )
        for jobid, rec in sorted(events.items())
    ]


def submitted_and_ended(cluster: Path, jobids: set[int]) -> dict[int, tuple[str, str]]:
    """Job id -> (SubmitTime, EndTime) from SLURM's own completion record."""
    times = {}
    for line in (cluster / "jobcomp.log").read_text().splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if int(fields["JobId"]) in jobids:
            times[int(fields["JobId"])] = (fields["SubmitTime"], fields["EndTime"])
    assert set(times) == jobids, (
        f"jobs without a completion record: {jobids - set(times)}"
    )
    return times


def node_gpus() -> int:
    out = subprocess.run(
        ["sinfo", "-h", "-o", "%G"], capture_output=True, text=True, check=True
    )
    match = re.search(r"gpu:(\d+)", out.stdout)
    assert match, f"the test cluster declares no GPUs: {out.stdout}"
    return int(match.group(1))


@pytest.mark.slurm
def test_replay_through_slurm_one_job_per_gpu(workdir, slurm_cluster, same_as_on_gpu):
    slurm_profile(workdir)
    proc = snakemake_slurm(workdir, slurm_cluster)
    assert proc.returncode == 0, proc.stderr[-3000:]

    # The reports, with the numbers the H200 itself reported.
    report = workdir / "results/report/jacobi2d"
    for name in REPORT_FILES:
        assert (report / name).stat().st_size > 0, name
    same_as_on_gpu(report / "summary.csv", "jacobi2d")
    assert (workdir / "results/report/index.html").is_file()

    # Every job ran through SLURM and kept its log; jobs parsed the Snakefile in the
    # mode given on the command line, not in the profile's (measure) or auto.
    rules = submitted(workdir)
    expected = Counter(GPU_RULES) + Counter(ONCE_CPU_RULES)
    for rule in PER_FAMILY_CPU_RULES:
        expected[rule] = len(REPLAYED)
    assert Counter(rules.values()) == expected
    for log in (workdir / "logs/slurm").rglob("*.log"):
        assert "nsightflow: config mode: replay" in log.read_text(), log

    jobs = node_records(slurm_cluster, rules)
    gpu_jobs = [j for j in jobs if j.rule in GPU_RULES]
    cpu_jobs = [j for j in jobs if j.rule not in GPU_RULES]
    # one replay job per family; ceilings
    assert len(gpu_jobs) == len(REPLAYED) + 1
    # GPU jobs: one GPU each, in the gpu partition, and that GPU is what CUDA sees.
    for job in gpu_jobs:
        assert job.partition == "gpu" and len(job.gpus) == 1, job
        assert dict(job.visible) == {"batch": job.gpus[0], "0": job.gpus[0]}, job
    # CPU jobs: no GPU, nothing visible, in the default partition.
    for job in cpu_jobs:
        assert job.partition == "cpu" and job.gpus == (), job
        assert dict(job.visible) == {"batch": "", "0": ""}, job

    # Never two jobs on one GPU at once ...
    for gpu in {j.gpus[0] for j in gpu_jobs}:
        on_gpu_jobs = sorted(
            (j for j in gpu_jobs if j.gpus[0] == gpu), key=lambda j: j.start
        )
        for a, b in itertools.pairwise(on_gpu_jobs):
            assert b.start >= a.end, f"GPU {gpu}: {a} and {b} overlapped"
    # ... although the node was shared: GPU jobs ran on all GPUs at once, and CPU
    # jobs beside them (so the check above could have failed).
    n_gpus = node_gpus()
    assert {j.gpus[0] for j in gpu_jobs} == {str(i) for i in range(n_gpus)}
    # With two fake GPUs, GPU jobs ran in parallel, each pair on different devices.
    parallel = [
        (a, b)
        for a in gpu_jobs
        for b in gpu_jobs
        if a.jobid < b.jobid and a.overlaps(b)
    ]
    assert parallel, "no two GPU jobs ran at the same time"
    assert all(a.gpus[0] != b.gpus[0] for a, b in parallel)
    # ... and CPU jobs shared the node with other jobs (the family replays are few and
    # short, so which ones a CPU job overlaps is up to the scheduler)
    assert any(a.overlaps(b) for a in cpu_jobs for b in jobs if a is not b)


@pytest.mark.slurm
def test_exclusive_gpu_jobs_have_the_node_to_themselves(workdir, slurm_cluster):
    """The profile's documented option slurm_extra: "'--exclusive'" on GPU rules."""
    slurm_profile(workdir, slurm_extra="'--exclusive'")
    from nsightflow.family.registry import load_family

    # the variants' parsed tables: written by the families' replay jobs (GPU twins)
    # alone, which parse in the same process
    targets = [
        f"results/metrics/{family}/{v}.csv"
        for family in REPLAYED
        for v in load_family(ROOT / "kernels" / family).variants
    ]
    proc = snakemake_slurm(workdir, slurm_cluster, *targets)
    assert proc.returncode == 0, proc.stderr[-3000:]

    rules = submitted(workdir)
    assert Counter(rules.values()) == Counter(f"replay_{f}" for f in REPLAYED)
    jobs = node_records(slurm_cluster, rules)
    gpu_jobs = [j for j in jobs if j.rule in GPU_RULES]
    for gpu_job in gpu_jobs:
        others = [j for j in jobs if j is not gpu_job and j.overlaps(gpu_job)]
        assert not others, f"{gpu_job} shared the node with {others}"
        # --exclusive allocates every GPU of the node; the rule's own step still
        # gets one of them (the plugin's `srun --gpus=1`).
        assert len(gpu_job.gpus) == node_gpus(), gpu_job
        assert gpu_job.rule_sees() in gpu_job.gpus, gpu_job
    # Not vacuous: the replay jobs depend on nothing, so both were queued at once, and
    # with one GPU each they fit on the node side by side (as in the test above); SLURM
    # held one back until the other had ended. SLURM's own times (to the second): it was
    # submitted in an earlier second than the other ended in, and started after it.
    times = submitted_and_ended(slurm_cluster, set(rules))
    held = [
        (a, b)
        for a in gpu_jobs
        for b in gpu_jobs
        if times[b.jobid][0] < times[a.jobid][1] and b.start >= a.end
    ]
    assert held, f"no GPU job waited in the queue for another: {times}"


def test_profile_pins_measure_and_asks_gpus_only_for_gpu_rules(workdir):
    """Dry run with the profile as shipped, on a machine without a GPU."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    env = {k: v for k, v in os.environ.items() if k != "NSIGHTFLOW_MODE"}
    proc = subprocess.run(
        ["snakemake", "-n", "--workflow-profile", "profiles/slurm"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "config mode: measure, but no usable GPU here" in proc.stdout
    # rule name -> the resources line of each of its jobs
    resources: dict[str, set[str]] = {}
    for block in proc.stdout.split("\nrule ")[1:]:
        name = block.split(":", 1)[0]
        line = next(ln for ln in block.splitlines() if "resources:" in ln)
        resources.setdefault(name, set()).add(line)
    measured_on_gpu = set(GPU_RULES_MEASURE) | TIMELINE_GPU_RULES | {"sweep_variant"}
    assert measured_on_gpu <= set(resources)
    for rule, lines in resources.items():
        for line in lines:
            if rule in measured_on_gpu:
                assert "gpu=1" in line and "slurm_partition=gpu" in line, line
            else:
                assert "gpu=" not in line and "slurm_partition" not in line, line
