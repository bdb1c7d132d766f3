"""The stage-cost benchmark reads job times from Snakemake's metadata records."""

import base64
import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "scripts/benchmarks/gpu_stage_cost.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("gpu_stage_cost", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(folder: Path, output: str, rule: str, start: float, end: float, gpu: bool):
    name = base64.urlsafe_b64encode(output.encode()).decode()
    shell = "python -m nsightflow gpu-lock -- python -m nsightflow x" if gpu else "x"
    record = {"rule": rule, "starttime": start, "endtime": end, "shellcmd": shell}
    record["job_hash"] = hash((rule, start))
    (folder / name).write_text(json.dumps(record))


def test_cost_table_splits_gpu_jobs_by_variant_family_and_run(tmp_path, bench):
    meta = tmp_path / "metadata"
    meta.mkdir()
    _record(meta, "results/verify/fam/v0_a.json", "verify_variant", 10.0, 12.5, True)
    _record(meta, "results/time/fam/v0_a.json", "time_variant", 13.0, 14.0, True)
    _record(meta, "results/verify/fam/v1_b.json", "verify_variant", 20.0, 21.0, True)
    # a job with two outputs is one job: its latest output ends it
    _record(
        meta, "results/timeline/fam/v1_b.json", "timeline_variant", 30.0, 31.0, True
    )
    _record(meta, "results/timeline/fam/v1_b.csv", "timeline_variant", 30.0, 31.5, True)
    _record(meta, "results/profile/fam", "profile_family", 40.0, 44.0, True)
    _record(meta, "results/ceilings.json", "measure_ceilings", 1.0, 6.0, True)
    _record(meta, "results/build/fam/v0_a.cubin", "compile_variant", 0.0, 3.0, False)

    table = bench.cost_table(bench.read_jobs(meta), "fam")

    assert table["per_variant"] == {
        "v0_a": {"verify_variant": 2.5, "time_variant": 1.0},
        "v1_b": {"verify_variant": 1.0, "timeline_variant": 1.5},
    }
    assert table["family_share_per_variant"] == 2.0  # 4 s of profile over 2 variants
    assert table["per_variant_total"] == {"v0_a": 5.5, "v1_b": 4.5}
    assert table["run_jobs"] == {"measure_ceilings": 5.0}
    assert table["cpu_job_seconds"] == 3.0
    assert table["gpu_job_seconds"] == 2.5 + 1.0 + 1.0 + 1.5 + 4.0 + 5.0


def test_long_output_names_split_into_folders_are_joined(tmp_path, bench):
    meta = tmp_path / "metadata"
    output = "results/verify/fam/" + "v0_" + "x" * 300 + ".json"
    name = base64.urlsafe_b64encode(output.encode()).decode()
    head, tail = name[:254], name[254:]
    (meta / f"@{head}").mkdir(parents=True)
    record = {"rule": "verify_variant", "starttime": 1.0, "endtime": 2.0}
    (meta / f"@{head}" / tail).write_text(json.dumps(record))

    jobs = bench.read_jobs(meta)

    assert [j["outputs"] for j in jobs] == [[output]]
    assert jobs[0]["gpu"] is False


def test_part_timers_of_a_job_record_are_read(tmp_path, bench, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = Path("results/verify/fam/v0_a.json")
    out.parent.mkdir(parents=True)
    out.write_text(json.dumps({"status": "ok", "seconds": {"verify": 0.75}}))
    meta = tmp_path / "metadata"
    meta.mkdir()
    _record(meta, str(out), "measure_variant", 1.0, 3.0, True)

    table = bench.cost_table(bench.read_jobs(meta), "fam")

    assert table["parts"] == {"v0_a": {"verify": 0.75}}
