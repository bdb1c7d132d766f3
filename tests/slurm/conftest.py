"""The test cluster: a reachable controller started by scripts/slurm_cluster.sh.

tests/conftest.py skips `slurm` tests where `sinfo` is missing; here they also skip
where no controller answers, or where the controller is not the one-node test cluster
(its job records, jobs.log and tasks.log, sit next to its slurm.conf). The tests never
submit to a real cluster. With NSIGHTFLOW_REQUIRE_SLURM=1 (CI, after starting the
cluster) a missing cluster fails instead of skipping.
"""

import os
import subprocess
from pathlib import Path

import pytest

START = 'eval "$(scripts/slurm_cluster.sh start)"'


def _probe() -> tuple[Path | None, str]:
    conf = Path(os.environ.get("SLURM_CONF", "/run/slurm/conf/slurm.conf"))
    if not conf.is_file():
        return (
            None,
            f"no SLURM configuration at {conf}; start the test cluster: {START}",
        )
    cluster = conf.resolve().parent
    if not (cluster / "jobs.log").is_file():
        return None, f"{conf} is not the test cluster's; start it: {START}"
    try:
        out = subprocess.run(
            ["sinfo", "-h", "-o", "%t"],
            capture_output=True,
            text=True,
            timeout=15,
            check=False,
            env={**os.environ, "SLURM_CONF": str(conf)},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"sinfo failed: {exc}"
    if out.returncode != 0:
        return None, f"no reachable SLURM controller: {out.stderr.strip()[:200]}"
    if not {"idle", "mix", "alloc"} & set(out.stdout.split()):
        return None, f"the test cluster's node is not up: {out.stdout.strip()}"
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
