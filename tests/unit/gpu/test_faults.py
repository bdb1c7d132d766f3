"""The fault matrix on the CPU: each failure is recorded with its fix, and the run goes on.

GPU-side rows (illegal address, a kernel that never ends) run on the H200 through the
faulty family; here the isolation itself is tested with worker self-tests that die and
hang the way such kernels do.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from cli_run import nsightflow
from nsightflow.errors import ManifestError
from nsightflow.family.registry import load_family
from nsightflow.gpu import isolate
from nsightflow.io import write_json
from nsightflow.machine.history import archive
from nsightflow.tools.ncu_parse import parse_files

ROOT = Path(__file__).resolve().parents[3]


def test_a_crashing_worker_is_recorded_not_fatal():
    result = isolate.run_task("selftest-crash", {}, timeout_s=60)
    assert result["status"] == "crashed"
    assert "exited with code -11" in result["message"]  # SIGSEGV


def test_a_hanging_worker_is_killed_at_its_time_limit():
    result = isolate.run_task("selftest-hang", {}, timeout_s=2)
    assert result["status"] == "timeout"
    assert "2 s" in result["message"] and "timeout_s" in result["message"]


def _profile(tmp_path: Path, path_dirs: list[Path]) -> dict:
    verify = tmp_path / "verify.json"
    write_json(
        verify,
        {"family": "jacobi2d", "variant": "v0_naive", "status": "ok", "message": ""},
    )
    env = {**os.environ, "PATH": os.pathsep.join(str(p) for p in path_dirs)}
    out = tmp_path / "profile"
    proc = nsightflow(
        "profile",
        "--kernels-dir",
        str(ROOT / "kernels"),
        "--family",
        "jacobi2d",
        "--variant",
        "v0_naive",
        "--cubin",
        str(tmp_path / "none.cubin"),
        "--verify",
        str(verify),
        "--out-dir",
        str(out),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "v0_naive" / "profile.json").read_text())


def test_ncu_missing_is_data_with_a_fix(tmp_path):
    record = _profile(tmp_path, [Path(sys.executable).parent])
    assert record["status"] == "ncu_unavailable"
    assert "ncu (Nsight Compute CLI) not found on PATH" in record["message"]


@pytest.mark.parametrize(
    ("output", "fix"),
    [
        (
            "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission",
            "NVreg_RestrictProfilingToAdminUsers=0",
        ),
        (
            "==ERROR== Failed to initialize the profiler: LibraryNotLoaded",
            "replay mode",
        ),
    ],
)
def test_counters_not_permitted_is_data_with_a_fix(tmp_path, output, fix):
    fake = tmp_path / "bin"
    fake.mkdir()
    ncu = fake / "ncu"
    ncu.write_text(f"#!/bin/sh\necho '{output}' >&2\nexit 1\n")
    ncu.chmod(ncu.stat().st_mode | stat.S_IEXEC)
    record = _profile(
        tmp_path, [fake, Path(sys.executable).parent, Path("/usr/bin"), Path("/bin")]
    )
    assert record["status"] == "ncu_unavailable"
    assert fix in record["message"]


def test_a_truncated_report_is_shown_not_dropped(recording, tmp_path):
    # a plain folder (no profile.json): each report's size is in its name
    good = recording / "profile/vecadd/v4_triton/n16777216.ncu-rep"  # its own report
    bad = tmp_path / "n4096.ncu-rep"
    bad.write_bytes(good.read_bytes()[:1000])
    shutil.copy(good, tmp_path / good.name)
    metrics, rules = parse_files([tmp_path], keep_going=True)
    assert set(metrics["size"]) == {16777216} and not metrics.empty
    error = rules[rules["rule"] == "ReportUnreadable"]
    assert len(error) == 1 and "n4096.ncu-rep" in error.iloc[0]["message"]


def _family_with(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "jacobi2d"
    shutil.copytree(ROOT / "kernels/jacobi2d", folder)
    data = yaml.safe_load((folder / "family.yaml").read_text())
    edit(data)
    (folder / "family.yaml").write_text(yaml.safe_dump(data))
    return folder


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (
            lambda d: d["variants"]["v0_naive"].update(defines={"N": "1; rm -rf ~"}),
            "variants.v0_naive.defines.N",
        ),
        (
            lambda d: d["variants"]["v0_naive"].update(defines={"A B": 1}),
            "variants.v0_naive.defines",
        ),
        (
            lambda d: d["variants"]["v0_naive"].update(source="../../etc/passwd.cu"),
            "variants.v0_naive.source",
        ),
        (
            lambda d: d["variants"]["v0_naive"].update(kernel="k$(reboot)"),
            "variants.v0_naive.kernel",
        ),
        (
            lambda d: d["variants"].update({"v9_Bad;name": d["variants"]["v0_naive"]}),
            "variants",
        ),
    ],
)
def test_shell_text_in_a_manifest_is_rejected(tmp_path, edit, field):
    with pytest.raises(ManifestError) as info:
        load_family(_family_with(tmp_path, edit))
    assert f"field {field}" in str(info.value)


def test_malformed_config_fails_before_any_job(workdir):
    (workdir / "config.yaml").write_text(
        (workdir / "config.yaml").read_text().replace("arch: sm_90", "arch: 90")
    )
    proc = subprocess.run(
        ["snakemake", "-n", "--cores", "1"],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    text = proc.stdout + proc.stderr
    assert "common.smk" in text and "Error validating config file" in text
    assert "90 is not of type 'string'" in text and "arch" in text
    assert "Job stats" not in text


def test_previous_measurements_are_archived_not_lost(tmp_path):
    results = tmp_path / "results"
    write_json(results / "time/jacobi2d/v0_naive.json", {"variant": "v0_naive"})
    (results / "profile/jacobi2d/v0_naive").mkdir(parents=True)
    (results / "profile/jacobi2d/v0_naive/n2048.ncu-rep").write_bytes(b"measured")
    folder = archive(results)
    assert folder is not None and folder.parent == results / "history"
    assert (
        folder / "profile/jacobi2d/v0_naive/n2048.ncu-rep"
    ).read_bytes() == b"measured"
    assert json.loads((folder / "time/jacobi2d/v0_naive.json").read_text())["variant"]
    assert archive(tmp_path / "empty") is None


@pytest.mark.parametrize(
    ("stage", "upstream_flag", "upstream_status"),
    [("verify", "--resources", "compile_failed"), ("time", "--verify", "wrong")],
)
def test_a_failed_stage_skips_the_next_as_data(
    tmp_path, stage, upstream_flag, upstream_status
):
    upstream = tmp_path / "upstream.json"
    write_json(
        upstream,
        {
            "family": "faulty",
            "variant": "v1_wrong",
            "status": upstream_status,
            "message": "n=1000: wrong",
        },
    )
    out = tmp_path / "out.json"
    proc = nsightflow(
        stage,
        "--kernels-dir",
        str(ROOT / "tests/data/families"),
        "--family",
        "faulty",
        "--variant",
        "v1_wrong",
        "--cubin",
        str(tmp_path / "x.cubin"),
        upstream_flag,
        str(upstream),
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(out.read_text())
    assert record["status"] == upstream_status and record["skipped"] is True
    assert f"{stage} skipped" in record["message"] and "n=1000" in record["message"]


# A stand-in for the H200's nsys (Nsight Compute's bundled one): it captures (a
# .qdstrm) but has no importer, so it never writes the .nsys-rep report. Its message
# and exit code 0 are what that nsys printed on the H200 (docs/measurements/faults.md).
FAKE_NSYS = """#!/bin/sh
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out="$2"; fi
  shift
done
: > "$out.qdstrm"
{rep}
echo "Unable to retrieve the importer version: skipping importation of the QDSTRM file."
exit {code}
"""


def _fake_nsys(tmp_path: Path, writes_report: bool, code: int = 0) -> Path:
    folder = tmp_path / "nsys-bin"
    folder.mkdir()
    nsys = folder / "nsys"
    rep = ': > "$out.nsys-rep"' if writes_report else ""
    nsys.write_text(FAKE_NSYS.format(rep=rep, code=code))
    nsys.chmod(nsys.stat().st_mode | stat.S_IEXEC)
    return folder


@pytest.mark.parametrize("code", [0, 1])
def test_nsys_that_cannot_write_reports_is_unusable(tmp_path, monkeypatch, code):
    from nsightflow.machine import doctor

    monkeypatch.setenv("PATH", f"{_fake_nsys(tmp_path, False, code)}:/usr/bin:/bin")
    ok, why = doctor.nsys_can_write_reports()
    assert not ok
    assert "probe.qdstrm" in why and "no .nsys-rep" in why
    assert "skipping importation of the QDSTRM file" in why


def test_nsys_missing_or_working_is_told_apart(tmp_path, monkeypatch):
    from nsightflow.machine import doctor

    monkeypatch.setenv("PATH", str(tmp_path))  # nothing there
    assert doctor.nsys_can_write_reports() == (False, "nsys not on PATH")
    monkeypatch.setenv("PATH", f"{_fake_nsys(tmp_path, True)}:/usr/bin:/bin")
    ok, why = doctor.nsys_can_write_reports()
    assert ok and "writes .nsys-rep" in why


def test_doctor_prints_the_unusable_nsys_with_its_fix(tmp_path):
    env = {**os.environ, "PATH": f"{_fake_nsys(tmp_path, False)}:{os.environ['PATH']}"}
    proc = nsightflow("doctor", env=env)
    line = next(ln for ln in proc.stdout.splitlines() if "nsys (timeline)" in ln)
    assert line.startswith("[MISS]") and "no .nsys-rep" in line
    assert "QdstrmImporter" in proc.stdout


def test_two_runs_racing_for_one_gpu_are_caught_and_shown(recording, tmp_path):
    """The guard's records (another process on the GPU) reach the report: a size it
    refused stays out of the ranking, a size it flagged is marked. (Two runs on one
    machine never measure at once at all: tests/unit/machine/test_gpulock.py.)"""
    from nsightflow.report.build import write_report
    from recorded import analyze as _analyze

    rec = tmp_path / "rec"
    shutil.copytree(recording, rec)
    path = rec / "time/jacobi2d/v2_coarsen2.json"
    data = json.loads(path.read_text())
    for row in data["rows"]:
        if row["size"] == 512:
            row.clear()
            row.update(size=512, status="gpu_busy", other_processes=[4242])
        if row["size"] == 8192:
            row["gpu_after"]["other_processes"] = [4242]
    path.write_text(json.dumps(data))
    analysis = _analyze(rec, "jacobi2d", tmp_path)
    frame = pd.read_csv(analysis / "analysis.csv")
    v2 = frame[frame["variant"] == "v2_coarsen2"].set_index("size")
    assert v2.loc[512, "status"] == "gpu_busy" and pd.isna(v2.loc[512, "rank"])
    assert bool(v2.loc[8192, "shared_gpu"]) and v2.loc[8192, "status"] == "ok"
    write_report(analysis, tmp_path / "figures", tmp_path / "report")
    md = (tmp_path / "report/report.md").read_text()
    assert "`v2_coarsen2` at n = 8192: measured on a shared GPU" in md
