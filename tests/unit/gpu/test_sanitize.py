"""The sanitize stage on the CPU: parsing, which tools run, time limits, the report.

compute-sanitizer cannot run here, so the stage is driven through a stand-in
executable that prints output in compute-sanitizer's format (the documented layout:
``========= `` prefix, one unindented line per finding, an ERROR SUMMARY). The real
tool runs in tests/gpu/test_faults_gpu.py on the GPU machine.
"""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from cli_run import nsightflow
from nsightflow.family.registry import load_family
from nsightflow.gpu import sanitize as G
from nsightflow.io import write_json
from nsightflow.tools import sanitizer as S
from recorded import analyze as _analyze

ROOT = Path(__file__).resolve().parents[3]

MEMCHECK_OOB = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at axpb_v3+0x80 in /k/v3_oob.cu:6
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f3a00000000 is out of bounds
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f0fe4] in libcuda.so.1
=========
========= Invalid __global__ write of size 4 bytes
=========     at axpb_v3+0x80 in /k/v3_oob.cu:6
=========     by thread (1,0,0) in block (0,0,0)
=========     Address 0x7f3a00000004 is out of bounds
=========
========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to "unspecified \
launch failure" on CUDA API call to cuCtxSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========
========= Target application returned an error
========= ERROR SUMMARY: 1001 errors
========= ERROR SUMMARY: 998 errors were not printed. Use --print-limit option to \
adjust the number of printed errors
"""
CLEAN = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"
RACE = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at k+0x1f0 in /k/v1.cu:20
=========     and Read access at k+0x2a0 in /k/v1.cu:31 [1024 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""
UNSUPPORTED = """\
========= COMPUTE-SANITIZER
========= Error: Device not supported. Please refer to the supported devices.
========= ERROR SUMMARY: 1 error
"""


def test_memcheck_findings_are_counted_and_sorted_by_kind():
    found = S.parse_output(MEMCHECK_OOB)
    assert found["errors"] == 1001  # the summary, not just what was printed
    assert found["device_findings"] == 2 and found["api_findings"] == 1
    assert found["kinds"] == {
        "Invalid __global__ write of size 4 bytes": 2,
        "CUDA API error CUDA_ERROR_LAUNCH_FAILED on cuCtxSynchronize": 1,
    }
    assert found["first"][:3] == [
        "Invalid __global__ write of size 4 bytes",
        "at axpb_v3+0x80 in /k/v3_oob.cu:6",
        "by thread (0,0,0) in block (0,0,0)",
    ]
    assert not any("Host Frame" in line for line in found["first"])
    assert S.tool_status(1, found) == "errors"


def test_clean_race_unsupported_and_silent_runs_are_told_apart():
    assert S.tool_status(0, S.parse_output(CLEAN)) == "clean"
    race = S.parse_output(RACE)
    assert (race["errors"], race["hazards"]) == (1, 1)
    assert race["kinds"] == {"race (error): Write vs Read": 1}
    assert S.tool_status(0, race) == "errors"
    unsupported = S.parse_output(UNSUPPORTED)
    assert unsupported["unsupported"].startswith("Error: Device not supported")
    assert S.tool_status(1, unsupported) == "failed"
    assert S.tool_status(1, S.parse_output("Segmentation fault\n")) == "failed"
    assert S.tool_status(None, S.parse_output("")) == "timeout"


def test_sanitizer_argv_wraps_the_worker_launch():
    target = ["python", "-m", "nsightflow.gpu.worker", "launch", "s.json", "r.json"]
    assert S.sanitizer_argv("racecheck", target) == [
        "compute-sanitizer",
        "--tool",
        "racecheck",
        "--print-limit",
        "20",
        *target,
    ]


def test_the_checked_size_is_small_and_accepted():
    fam = load_family(ROOT / "kernels/jacobi2d")
    assert G.sanitize_size(fam, fam.variants["v0_naive"], 0) == 257
    vec4 = fam.variants["v4_vec4"]  # accepts n % 4 == 0 only
    assert G.sanitize_size(fam, vec4, 0) == 512
    assert G.sanitize_size(fam, vec4, 1000) == 1000
    assert G.sanitize_size(fam, vec4, 257) == 512


# --- the stage, through a stand-in compute-sanitizer --------------------------------

FAKE = """#!{python}
import json, os, sys, time
args = sys.argv[1:]
tool = args[args.index("--tool") + 1]
spec = json.loads(open(args[-2]).read())
with open(os.environ["FAKE_SANITIZER_LOG"], "a") as log:
    log.write(json.dumps({{"tool": tool, "target": args[4:], "spec": spec}}) + "\\n")
if os.environ.get("FAKE_SANITIZER_HANG"):
    import subprocess
    child = subprocess.Popen(["sleep", "600"])
    open(os.environ["FAKE_SANITIZER_HANG"], "w").write(str(child.pid))
    time.sleep(600)
sys.stdout.write(open(os.environ["FAKE_SANITIZER_" + tool.upper()]).read())
"""


@pytest.fixture
def fake_sanitizer(tmp_path, monkeypatch):
    folder = tmp_path / "bin"
    folder.mkdir()
    exe = folder / "compute-sanitizer"
    exe.write_text(FAKE.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SANITIZER_LOG", str(tmp_path / "calls.jsonl"))
    for tool, text in (("memcheck", CLEAN), ("racecheck", RACE)):
        (tmp_path / f"{tool}.txt").write_text(text)
        monkeypatch.setenv(
            f"FAKE_SANITIZER_{tool.upper()}", str(tmp_path / f"{tool}.txt")
        )
    return tmp_path


def _stage(recording: Path, tmp_path: Path, variant: str, **settings) -> dict:
    paths = {
        "cubin": tmp_path / f"{variant}.cubin",
        "resources": recording / f"build/jacobi2d/{variant}.resources.json",
    }
    return G.sanitize(
        ROOT / "kernels",
        ("jacobi2d", variant),
        paths,
        G.SanitizeSettings(**settings),
        seed=408,
    )


def _calls(tmp_path: Path) -> list[dict]:
    log = tmp_path / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_racecheck_runs_only_where_shared_memory_is_used(fake_sanitizer, recording):
    plain = _stage(recording, fake_sanitizer, "v0_naive")
    assert plain["status"] == "ok" and plain["shared_bytes"] == 0
    assert [t["status"] for t in plain["tools"]] == ["clean", "not_applicable"]
    smem = _stage(recording, fake_sanitizer, "v1_smem")  # 1360 bytes of tile
    assert smem["shared_bytes"] > 0
    assert [t["status"] for t in smem["tools"]] == ["clean", "errors"]
    assert smem["status"] == "errors" and "race (error)" in smem["message"]
    calls = _calls(fake_sanitizer)
    assert [c["tool"] for c in calls] == ["memcheck", "memcheck", "racecheck"]
    for call in calls:  # the worker's launch task, argv only, at one small size
        assert call["target"][1:4] == ["-m", "nsightflow.gpu.worker", "launch"]
        assert call["spec"]["sizes"] == [257]


def test_a_hanging_launch_is_killed_with_its_process_group(
    fake_sanitizer, recording, monkeypatch
):
    pid_file = fake_sanitizer / "child.pid"
    monkeypatch.setenv("FAKE_SANITIZER_HANG", str(pid_file))
    record = _stage(recording, fake_sanitizer, "v0_naive", timeout_s=3)
    assert record["status"] == "timeout"
    assert "sanitize.timeout_s" in record["tools"][0]["message"]
    child = int(pid_file.read_text())
    proc = subprocess.run(["ps", "-o", "stat=", "-p", str(child)], capture_output=True)
    assert proc.stdout.strip()[:1] in (b"", b"Z"), "the launch outlived its limit"


def test_a_device_the_sanitizer_cannot_check_is_unavailable_not_an_error(
    fake_sanitizer, recording
):
    (fake_sanitizer / "memcheck.txt").write_text(UNSUPPORTED)
    record = _stage(recording, fake_sanitizer, "v1_smem")
    assert record["status"] == "sanitizer_unavailable"
    assert "Device not supported" in record["message"]
    assert [t["tool"] for t in record["tools"]] == ["memcheck"]  # racecheck spared
    assert S.memcheck_error(record) is None


def test_without_compute_sanitizer_the_stage_says_why(tmp_path, recording):
    out = tmp_path / "s.json"
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    proc = nsightflow(
        "sanitize",
        "--family",
        "jacobi2d",
        "--variant",
        "v0_naive",
        "--cubin",
        str(tmp_path / "x.cubin"),
        "--resources",
        str(recording / "build/jacobi2d/v0_naive.resources.json"),
        "--out",
        str(out),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(out.read_text())
    assert record["status"] == "sanitizer_unavailable"
    assert "compute-sanitizer not on PATH" in record["message"]
    assert "sanitize.enabled: false" in record["message"]


# --- analysis and report ------------------------------------------------------------


def _records(tmp_path: Path, recording: Path, bad: str | None) -> list[Path]:
    """Clean sanitizer records for every Jacobi-2D variant, memcheck errors in `bad`."""
    paths = []
    for res in sorted(recording.glob("build/jacobi2d/*.resources.json")):
        variant = res.name.removesuffix(".resources.json")
        memcheck = {"tool": "memcheck", **S.parse_output(CLEAN), "status": "clean"}
        if variant == bad:
            found = S.parse_output(MEMCHECK_OOB)
            memcheck = {
                "tool": "memcheck",
                **found,
                "status": S.tool_status(1, found),
                "message": "memcheck: 1001 error(s)",
            }
        path = tmp_path / "sanitize" / f"{variant}.json"
        write_json(
            path,
            {
                "family": "jacobi2d",
                "variant": variant,
                "status": memcheck["status"].replace("clean", "ok"),
                "message": "",
                "size": 257,
                "tools": [memcheck],
                "provenance": {"compute_sanitizer": "2025.3.0.0"},
            },
        )
        paths.append(path)
    return paths


def _report(tmp_path: Path, recording: Path, sanitize: list[Path]) -> tuple:
    from nsightflow.analysis.analyze import AnalysisInputs, write_analysis
    from nsightflow.diagnosis.build import family_findings
    from nsightflow.report.sections.family import ReportBuilder

    base = _analyze(recording, "jacobi2d", tmp_path)  # without sanitizer records
    inputs = AnalysisInputs(
        ROOT / "kernels/jacobi2d",
        sorted(recording.glob("build/jacobi2d/*.resources.json")),
        sorted(recording.glob("verify/jacobi2d/*.json")),
        sorted(recording.glob("time/jacobi2d/*.json")),
        [p for p in sorted(tmp_path.glob("*.csv")) if ".rules" not in p.name],
        [],
        sorted(recording.glob("profile/jacobi2d/*")),
        recording / "ceilings.json",
        sanitize,
    )
    out = tmp_path / "with_sanitizer"
    write_analysis(inputs, out)
    frame = pd.read_csv(out / "analysis.csv")
    ctx = json.loads((out / "context.json").read_text())
    stalls = pd.read_csv(base / "stalls.csv")
    found = family_findings(frame, stalls, pd.DataFrame(), ctx)
    md = ReportBuilder(frame, stalls, pd.DataFrame(), ctx, findings=found).build()
    return frame, md


def test_a_memcheck_error_marks_the_variant_and_keeps_it_out_of_the_ranking(
    tmp_path, recording
):
    frame, md = _report(tmp_path, recording, _records(tmp_path, recording, "v4_vec4"))
    vec4 = frame[frame["variant"] == "v4_vec4"]
    assert (vec4["status"] == "memcheck_error").all()  # verified ok, fastest, unsafe
    assert vec4["rank"].isna().all() and vec4["speedup_vs_baseline"].isna().all()
    ranked = frame[(frame["size"] == 8192) & (frame["status"] == "ok")]["rank"]
    assert sorted(ranked) == list(range(1, len(ranked) + 1))
    section = md.split("Memory and race checks (compute-sanitizer)", 1)[1]
    assert "compute-sanitizer 2025.3.0.0" in section
    assert "memcheck found errors in `v4_vec4`" in section
    assert "1001 errors" in section
    assert "```text\nInvalid __global__ write of size 4 bytes" in section
    failed = md.split("Variants that failed", 1)[1].split("\n### A.", 1)[0]
    assert "`v4_vec4` | memcheck_error" in failed


def test_clean_variants_stay_ranked_and_the_report_says_so(tmp_path, recording):
    frame, md = _report(tmp_path, recording, _records(tmp_path, recording, None))
    assert set(frame["status"]) == {"ok"}
    checked = frame["variant"].nunique()  # every variant has its clean record here
    assert (
        f"No memcheck or racecheck error in any of the {checked} variants checked."
        in md
    )


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (None, "switched off (`sanitize.enabled: false`"),
        ("sanitizer_unavailable", "did not run on the machine that measured: why"),
        ("not_recorded", "holds no sanitizer results for this family"),
    ],
)
def test_the_report_says_why_the_sanitizer_did_not_run(
    tmp_path, recording, status, said
):
    paths = []
    if status:
        for res in sorted(recording.glob("build/jacobi2d/*.resources.json")):
            variant = res.name.removesuffix(".resources.json")
            path = tmp_path / "sanitize" / f"{variant}.json"
            write_json(
                path,
                {
                    "family": "jacobi2d",
                    "variant": variant,
                    "status": status,
                    "message": "why",
                    "tools": [],
                },
            )
            paths.append(path)
    _, md = _report(tmp_path, recording, paths)
    section = md.split("Memory and race checks (compute-sanitizer)", 1)[1]
    assert said in section.split("\n## ", 1)[0]


def test_replay_copies_sanitizer_records_and_marks_missing_ones(tmp_path):
    from nsightflow.machine.replay import replay_file

    out = tmp_path / "results/sanitize/faulty/v9_new.json"
    replay_file(tmp_path / "rec/sanitize/faulty/v9_new.json", out, ("faulty", "v9_new"))
    assert json.loads(out.read_text())["status"] == "not_recorded"
