"""The test cluster: a reachable controller started by tests/slurm/slurm_cluster.sh.

tests/conftest.py skips `slurm` tests where `sinfo` is missing; here they also skip
unless the SLURM executor plugin is importable (`.[slurm]`) and the cluster that
answers is the one-node test cluster: its slurm.conf is the one the script wrote
(ClusterName=nsightflow, job records jobs.log beside it), the controller that answers
under that configuration reports that cluster, and the jobs' own `srun` (which the
plugin starts without SLURM_CONF) finds the same configuration. The tests never submit
to any other cluster. With NSIGHTFLOW_REQUIRE_SLURM=1 (CI, after starting the
cluster and installing `.[slurm]`) a reason to skip fails the tests instead.
"""

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

START = 'eval "$(tests/slurm/slurm_cluster.sh start)"'
PLUGIN = "snakemake_executor_plugin_slurm"
CLUSTER_NAME = "nsightflow"  # ClusterName in the slurm.conf the script writes
WRITTEN_BY = "# Written by tests/slurm/slurm_cluster.sh"
RUN_CONF = Path("/run/slurm/conf")  # where the jobs' srun looks (configless)
ETC_CONF = Path("/etc/slurm/slurm.conf")  # ... after this one


def _answer(argv: list[str], conf: Path) -> tuple[str | None, str]:
    """stdout of a SLURM client command under ``conf``, or None and why not."""
    try:
        out = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=15,
            check=False,
            env={**os.environ, "SLURM_CONF": str(conf)},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"{argv[0]} failed: {exc}"
    if out.returncode != 0:
        return None, f"no reachable SLURM controller: {out.stderr.strip()[:200]}"
    return out.stdout, ""


def _config_value(config: str, key: str) -> str:
    """A value of `scontrol show config` (``Key = value`` lines)."""
    for line in config.splitlines():
        name, _, value = line.partition("=")
        if name.strip() == key:
            return value.strip()
    return ""


def _probe() -> tuple[Path | None, str]:
    """The test cluster's folder, or None and why the SLURM tests cannot run here."""
    if importlib.util.find_spec(PLUGIN) is None:
        return None, (
            f"the SLURM executor plugin ({PLUGIN}) is not installed: "
            "pip install -e '.[slurm]'"
        )
    conf = Path(os.environ.get("SLURM_CONF", RUN_CONF / "slurm.conf"))
    if not conf.is_file():
        return (
            None,
            f"no SLURM configuration at {conf}; start the test cluster: {START}",
        )
    text = conf.read_text(errors="replace")
    cluster = conf.resolve().parent
    if (
        not text.startswith(WRITTEN_BY)
        or f"ClusterName={CLUSTER_NAME}\n" not in text
        or not (cluster / "jobs.log").is_file()
    ):
        return None, (
            f"{conf} is not the test cluster's; the tests submit only to the cluster "
            f"of tests/slurm/slurm_cluster.sh: {START}"
        )
    if ETC_CONF.exists():
        return None, (
            f"{ETC_CONF} exists: the jobs' srun would read that cluster's configuration "
            "first; the test cluster is for machines without one"
        )
    if not (RUN_CONF / "slurm.conf").is_file() or RUN_CONF.resolve() != cluster:
        return None, (
            f"{RUN_CONF} does not point at {cluster}: the jobs' srun would not find "
            f"the test cluster; restart it: {START}"
        )
    config, why = _answer(["scontrol", "show", "config"], conf)
    if config is None:
        return None, why
    answering = _config_value(config, "ClusterName")
    if answering != CLUSTER_NAME:
        return None, (
            f"the controller answering under {conf} runs cluster {answering!r}, not "
            f"the test cluster {CLUSTER_NAME!r}; start it: {START}"
        )
    states, why = _answer(["sinfo", "-h", "-o", "%t"], conf)
    if states is None:
        return None, why
    if not {"idle", "mix", "alloc"} & set(states.split()):
        return None, f"the test cluster's node is not up: {states.strip()}"
    return cluster, ""


@pytest.fixture(scope="session")
def slurm_cluster() -> Path:
    """The test cluster's folder (slurm.conf, job records); skips where none runs."""
    cluster, why = _probe()
    if cluster is None:
        if os.environ.get("NSIGHTFLOW_REQUIRE_SLURM") == "1":
            pytest.fail(f"NSIGHTFLOW_REQUIRE_SLURM=1, but {why}")
        pytest.skip(why)
    return cluster
