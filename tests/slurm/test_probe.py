"""The SLURM tests run only against the test cluster of
tests/slurm/slurm_cluster.sh with the plugin installed; anywhere else they skip with their
reason. These tests need no SLURM: fake client commands stand in for it."""

import importlib.util
import os
import stat
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _conftest():
    spec = importlib.util.spec_from_file_location(
        "slurm_conftest", HERE / "conftest.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake(bin_dir: Path, name: str, stdout: str, code: int = 0) -> None:
    script = bin_dir / name
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{stdout}\nEOF\nexit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A machine whose SLURM clients are fakes; the test cluster's files in place."""
    probe = _conftest()
    cluster = tmp_path / "nsightflow-slurm"
    cluster.mkdir()
    (cluster / "slurm.conf").write_text(
        f"{probe.WRITTEN_BY}: one node on localhost, for tests only.\n"
        "ClusterName=nsightflow\nSlurmctldHost=localhost(127.0.0.1)\n"
    )
    (cluster / "jobs.log").write_text("")
    run_conf = tmp_path / "run/slurm/conf"
    run_conf.parent.mkdir(parents=True)
    run_conf.symlink_to(cluster)
    monkeypatch.setattr(probe, "RUN_CONF", run_conf)
    monkeypatch.setattr(probe, "ETC_CONF", tmp_path / "etc/slurm/slurm.conf")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake(bin_dir, "scontrol", "ClusterName             = nsightflow")
    _fake(bin_dir, "sinfo", "idle")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SLURM_CONF", str(cluster / "slurm.conf"))
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == probe.PLUGIN else real(name, *a),
    )
    return probe, cluster, bin_dir


def test_the_test_cluster_with_the_plugin_is_used(machine):
    probe, cluster, _ = machine
    assert probe._probe() == (cluster.resolve(), "")


def test_without_the_plugin_the_tests_skip_saying_how_to_install_it(
    machine, monkeypatch
):
    probe, _, _ = machine
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == probe.PLUGIN else real(name, *a),
    )
    cluster, why = probe._probe()
    assert cluster is None and "pip install -e '.[slurm]'" in why


def test_a_foreign_slurm_conf_is_never_used(machine, tmp_path, monkeypatch):
    probe, _, _ = machine
    site = tmp_path / "site"
    site.mkdir()
    (site / "slurm.conf").write_text("ClusterName=hpc\nSlurmctldHost=head01\n")
    (site / "jobs.log").write_text("")  # even with a jobs.log beside it
    monkeypatch.setenv("SLURM_CONF", str(site / "slurm.conf"))
    cluster, why = probe._probe()
    assert cluster is None and "is not the test cluster's" in why


def test_another_controller_answering_is_never_used(machine):
    probe, _, bin_dir = machine
    _fake(bin_dir, "scontrol", "ClusterName             = hpc")
    cluster, why = probe._probe()
    assert cluster is None and "runs cluster 'hpc'" in why


def test_a_site_configuration_the_jobs_would_read_is_never_used(machine):
    probe, _, _ = machine
    probe.ETC_CONF.parent.mkdir(parents=True)
    probe.ETC_CONF.write_text("ClusterName=hpc\n")
    cluster, why = probe._probe()
    assert cluster is None and "srun would read that cluster" in why


def test_no_controller_answering_skips(machine):
    probe, _, bin_dir = machine
    _fake(bin_dir, "scontrol", "slurm_load_ctl_conf error: Unable to contact", code=1)
    cluster, why = probe._probe()
    assert cluster is None and "no reachable SLURM controller" in why
