"""Sweeps on CPU: invalid configurations as data, the cache, resume after an
interruption, crash and hang handling (a CPU stand-in for the GPU worker), and the
Kernel Tuner strategy path."""

import json
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from nsightflow.family.registry import load_family
from nsightflow.gpu.sweep import driver as S
from nsightflow.gpu.sweep import space as SP
from nsightflow.gpu.sweep.search import SweepCache, search
from nsightflow.io import write_json

ROOT = Path(__file__).resolve().parents[3]
FAMILIES = ROOT / "tests" / "data" / "families"
FAKE = Path(__file__).resolve().parents[1] / "fake_sweep_worker.py"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")


def _variant():
    return load_family(FAMILIES / "sweepy").variants["v0_modes"]


def test_plan_records_constraint_and_thread_limits_as_data():
    entries = {e["id"]: e for e in SP.plan(_variant(), "full")}
    assert len(entries) == 3 * 7
    assert entries["BLOCK128_MODE3"]["status"] == "constraint"
    assert "MODE == 0 or BLOCK == 256" in entries["BLOCK128_MODE3"]["message"]
    assert entries["BLOCK2048_MODE0"]["status"] == "too_many_threads"
    assert "2048 threads" in entries["BLOCK2048_MODE0"]["message"]
    runnable = [i for i, e in entries.items() if e["status"] == "pending"]
    assert runnable == ["BLOCK128_MODE0"] + [f"BLOCK256_MODE{m}" for m in range(7)]


@pytest.mark.parametrize(
    ("record", "status"),
    [
        (
            {
                "status": "compile_failed",
                "message": "ptxas error   : Entry function 'k' uses too much shared "
                "data (0x10400 bytes, 0xc000 max)",
            },
            "too_much_shared_memory",
        ),
        (
            {"status": "compile_failed", "message": "x.cu(3): error: bad"},
            "compile_failed",
        ),
        ({"status": "ok", "resources": {"registers": 80}}, "too_many_registers"),
        ({"status": "ok", "resources": {"registers": 64}}, "ok"),
    ],
)
def test_compile_failures_are_classified(record, status):
    # 1,024 threads: 80 registers need 81,920 of the 65,536 a block may hold
    var = load_family(ROOT / "kernels" / "jacobi2d").variants["v5_strip_vec4"]
    big = var.with_params({"BLOCK_X": 128, "BLOCK_Y": 8})
    assert SP.classify_compile(record, big)[0] == status


@needs_nvcc
def test_compile_all_keeps_every_failure_with_its_reason(tmp_path):
    record = SP.compile_all(_variant(), "full", "sm_90", tmp_path / "build", jobs=2)
    status = {c["id"]: c["status"] for c in record["configs"]}
    assert status["BLOCK256_MODE2"] == "compile_failed"
    assert status["BLOCK256_MODE5"] == "too_much_shared_memory"
    assert status["BLOCK2048_MODE0"] == "too_many_threads"
    assert [status[f"BLOCK256_MODE{m}"] for m in (0, 1, 3, 4, 6)] == ["ok"] * 5
    assert (tmp_path / "build" / "BLOCK128_MODE0.cubin").stat().st_size > 0
    by_id = {c["id"]: c for c in record["configs"]}
    assert "-DMODE=5" in by_id["BLOCK256_MODE5"]["argv"]
    assert "MODE 2 does not compile" in by_id["BLOCK256_MODE2"]["message"]


# --- the cache ------------------------------------------------------------------


def test_cache_keeps_results_per_cubin_and_settings(tmp_path):
    path = tmp_path / "cache.jsonl"
    cache = SweepCache(path, "k1")
    cache.append("A", "sha1", {"status": "ok", "geomean_us": 3.0})
    cache.append("B", "sha1", {"status": "wrong_result"})
    with path.open("a") as fh:
        fh.write('{"key": "k1", "id": "C", "cubin')  # cut short by a kill
    again = SweepCache(path, "k1")
    assert again.get("A", "sha1")["result"]["geomean_us"] == 3.0
    assert again.has("B", "sha1") and not again.has("C", "sha1")
    assert not again.has("A", "sha2")  # the kernel changed: measured again
    assert not SweepCache(path, "k2").has("A", "sha1")  # other sizes or sampling


def test_settings_key_ignores_budget_but_not_sizes():
    a = S.SweepSettings(budget_s=10)
    assert a.key((4096,)) == S.SweepSettings(budget_s=99).key((4096,))
    assert a.key((4096,)) != a.key((8192,))
    assert a.key((4096,)) != S.SweepSettings(min_reps=9).key((4096,))


def _compiled(configs, defaults):
    return {
        "family": "f",
        "variant": "v0_x",
        "space": "full",
        "axes": {"A": [1, 2, 3]},
        "defaults": defaults,
        "configs": configs,
    }


def test_assemble_ranks_by_the_geometric_mean_and_lists_what_did_not_run(tmp_path):
    cache = SweepCache(tmp_path / "c.jsonl", "k")
    cfg = [
        {"id": f"A{a}", "params": {"A": a}, "status": "ok", "cubin_sha": f"s{a}"}
        for a in (1, 2, 3)
    ]
    # A1: 10 and 100 us; A2: 12 and 60 us (geomean 26.8 < 31.6); A3 never ran
    cache.append("A1", "s1", {"status": "ok", "times_us": {"4": 10.0, "8": 100.0}})
    cache.append("A2", "s2", {"status": "ok", "times_us": {"4": 12.0, "8": 60.0}})
    skipped = {"id": "A4", "params": {"A": 4}, "status": "constraint", "message": "c"}
    record = S.assemble(_compiled([*cfg, skipped], {"A": 1}), cfg, cache, (4, 8))
    by_id = {c["id"]: c for c in record["configs"]}
    assert record["best"]["id"] == "A2"
    assert record["best"]["geomean_us"] == pytest.approx((12 * 60) ** 0.5)
    assert by_id["A3"]["status"] == "not_run"
    assert by_id["A4"]["status"] == "constraint"
    assert record["default_id"] == "A1"


# --- the GPU step, with a CPU stand-in for the worker --------------------------------


def _prepared(tmp_path, monkeypatch, space="full"):
    """compile.json and dummy cubins of sweepy's runnable configurations."""
    var = _variant()
    build = tmp_path / "build"
    build.mkdir()
    entries = SP.plan(var, space)
    for e in entries:
        if e["status"] == "pending":
            (build / f"{e['id']}.cubin").write_text(e["id"])
            e.update(status="ok", cubin=f"{e['id']}.cubin", resources={})
    record = {
        "family": "sweepy",
        "variant": "v0_modes",
        "space": space,
        "axes": {a.name: list(a.chosen(space)) for a in var.params},
        "defaults": var.defaults,
        "configs": entries,
    }
    write_json(tmp_path / "compile.json", record)
    monkeypatch.setattr(
        S,
        "_worker_argv",
        lambda spec, result: [sys.executable, str(FAKE), str(spec), str(result)],
    )
    monkeypatch.setenv(
        "PYTHONPATH", f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    )
    return S.SweepPaths(
        tmp_path / "compile.json",
        build,
        tmp_path / "cache.jsonl",
        tmp_path / "out.json",
    )


def _run(paths, **settings):
    defaults = {"config_timeout_s": 2.0, "budget_s": 120.0}
    return S.run(
        FAMILIES,
        ("sweepy", "v0_modes"),
        paths,
        S.SweepSettings(**{**defaults, **settings}),
    )


def test_a_crash_and_a_hang_cost_their_configuration_only(tmp_path, monkeypatch):
    record = _run(_prepared(tmp_path, monkeypatch))
    status = {c["id"]: c["status"] for c in record["configs"]}
    message = {c["id"]: c.get("message", "") for c in record["configs"]}
    assert status["BLOCK256_MODE3"] == "launch_failed"
    assert "died (exit 11)" in message["BLOCK256_MODE3"]
    assert status["BLOCK256_MODE4"] == "launch_failed"
    assert "hung: no result within 2 s" in message["BLOCK256_MODE4"]
    assert status["BLOCK256_MODE1"] == "wrong_result"
    assert status["BLOCK256_MODE6"] == "launch_failed"
    # configurations after the crash and the hang still ran
    assert status["BLOCK256_MODE0"] == "ok" and status["BLOCK128_MODE0"] == "ok"
    assert record["restarts"] == 2
    assert record["best"]["id"] == "BLOCK128_MODE0"  # 12 us against 14
    assert record["default_id"] == "BLOCK256_MODE0"
    assert record["resumed"] == 0


def test_an_interrupted_sweep_resumes_from_its_cache(tmp_path, monkeypatch):
    paths = _prepared(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_SWEEP_DIE_AFTER", "2")  # killed after two results
    first = _run(paths)
    ran = [
        c["id"]
        for c in first["configs"]
        if c["status"] not in ("not_run", "constraint", "too_many_threads")
    ]
    assert len(ran) == 2
    assert any("worker exited 9" in c for c in first["crashes"])
    monkeypatch.delenv("FAKE_SWEEP_DIE_AFTER")
    second = _run(paths, config_timeout_s=2.0)
    assert second["resumed"] == 2
    assert {c["id"] for c in second["configs"] if c["from_cache"]} == set(ran)
    assert not [c for c in second["configs"] if c["status"] == "not_run"]
    third = _run(paths)  # everything cached: no process restarts, same best
    assert third["resumed"] == 8 and third["restarts"] == 0
    assert third["best"] == second["best"]


def test_the_budget_leaves_the_rest_as_not_run(tmp_path, monkeypatch):
    paths = _prepared(tmp_path, monkeypatch, space="quick")
    monkeypatch.setenv("FAKE_SWEEP_SLEEP_S", "0.6")
    record = _run(paths, budget_s=0.5)
    status = [c["status"] for c in record["configs"]]
    assert status.count("not_run") == 1 and status.count("ok") == 1


def test_sigterm_stops_the_worker_with_the_sweep(tmp_path, monkeypatch):
    paths = _prepared(tmp_path, monkeypatch)
    pids = tmp_path / "pids"
    monkeypatch.setenv("FAKE_SWEEP_PIDS", str(pids))
    monkeypatch.setenv("FAKE_SWEEP_SLEEP_S", "5")
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    with pytest.raises(SystemExit):
        _run(paths, config_timeout_s=30.0)
    worker = int(pids.read_text().split()[0])
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)


# --- search strategies ------------------------------------------------------------


def _configs():
    return [
        {"id": f"X{x}_Y{y}", "params": {"X": x, "Y": y}}
        for x in (1, 2, 4, 8)
        for y in (1, 2, 4)
        if x * y <= 16
    ]


def test_exhaustive_search_evaluates_in_order_until_the_budget():
    seen = []

    def evaluate(c):
        if len(seen) == 5:
            return None
        seen.append(c["id"])
        return {"status": "ok", "geomean_us": 1.0}

    assert search("exhaustive", {}, _configs(), evaluate, (0, 1)) == 5
    assert seen == [c["id"] for c in _configs()[:5]]


def test_a_kernel_tuner_strategy_chooses_within_max_configs_and_uses_the_cache():
    pytest.importorskip("kernel_tuner")
    axes = {"X": [1, 2, 4, 8], "Y": [1, 2, 4]}
    seen: list[str] = []

    def evaluate(c):
        seen.append(c["id"])
        return {
            "status": "ok",
            "geomean_us": float(c["params"]["X"] * 10 + c["params"]["Y"]),
        }

    done = search("random_sample", axes, _configs(), evaluate, (5, 7))
    assert done == 5 and len(set(seen)) == 5
    assert set(seen) <= {c["id"] for c in _configs()}  # only runnable configurations


def test_a_kernel_tuner_strategy_can_reach_a_tuned_point_off_the_quick_axes():
    pytest.importorskip("kernel_tuner")
    axes = {"X": [1, 2], "Y": [1]}  # the quick space; tuned.yaml adds X 8
    configs = [
        {"id": f"X{x}_Y1", "params": {"X": x, "Y": 1}, "status": "ok"}
        for x in (1, 2, 8)
    ]
    seen: list[str] = []

    def evaluate(c):
        seen.append(c["id"])
        return {"status": "ok", "geomean_us": 10.0 / c["params"]["X"]}

    assert search("random_sample", axes, configs, evaluate, (0, 1)) == 3
    assert "X8_Y1" in seen


def test_an_unknown_strategy_is_a_clear_error():
    pytest.importorskip("kernel_tuner")
    from nsightflow.gpu.sweep.search import SweepStrategyError

    with pytest.raises(SweepStrategyError, match="'exhaustiv' is not one of Kernel"):
        search("exhaustiv", {"X": [1]}, _configs()[:1], lambda c: None, (0, 1))


def test_best_params_reads_the_record(tmp_path):
    path = tmp_path / "r.json"
    write_json(path, {"best": {"id": "X2_Y1", "params": {"X": 2, "Y": 1}}})
    assert S.best_params(path) == {"X": 2, "Y": 1}
    write_json(path, {"status": "not_recorded"})
    assert S.best_params(path) is None
    assert json.loads(path.read_text())["status"] == "not_recorded"


# --- the real worker, on a CPU stand-in for pycuda -----------------------------------

FAKE_PYCUDA = Path(__file__).resolve().parents[1] / "fake_pycuda"
FAKE_BIN = Path(__file__).resolve().parents[1] / "fake_bin"


def test_the_worker_verifies_times_and_survives_faults_on_a_fake_gpu(
    tmp_path, monkeypatch
):
    paths = _prepared(tmp_path, monkeypatch)
    monkeypatch.undo()  # the real worker, not the stand-in
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(FAKE_PYCUDA), str(ROOT / "src")])
    )
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}")
    record = _run(paths, config_timeout_s=5.0)
    by_id = {c["id"]: c for c in record["configs"]}
    status = {i: c["status"] for i, c in by_id.items()}
    assert status["BLOCK256_MODE1"] == "wrong_result"
    assert "n=1000: relative L2 error" in by_id["BLOCK256_MODE1"]["message"]
    assert status["BLOCK256_MODE3"] == "launch_failed"
    assert "illegal memory access" in by_id["BLOCK256_MODE3"]["message"]
    assert status["BLOCK256_MODE4"] == "launch_failed"
    assert "hung" in by_id["BLOCK256_MODE4"]["message"]
    assert status["BLOCK256_MODE6"] == "launch_failed"
    assert "invalid argument" in by_id["BLOCK256_MODE6"]["message"]
    # the fake clock: a launch takes 10 + BLOCK / 64 us
    assert by_id["BLOCK128_MODE0"]["times_us"] == {"1048576": pytest.approx(12.0)}
    assert by_id["BLOCK256_MODE0"]["times_us"] == {"1048576": pytest.approx(14.0)}
    assert by_id["BLOCK256_MODE0"]["verify_n"] == 1000
    assert record["best"]["id"] == "BLOCK128_MODE0"
    assert record["restarts"] == 2  # after the illegal address and after the hang


@needs_nvcc
def test_compile_builds_the_best_configuration_of_a_sweep(tmp_path):
    from nsightflow.cli import main

    record = tmp_path / "sweep.json"
    best = {"BLOCK_X": 128, "BLOCK_Y": 2, "ROWS": 16}
    write_json(record, {"best": {"id": "x", "params": best}})
    out = tmp_path / "v5.resources.json"
    argv = ["compile", "--family", "jacobi2d", "--variant", "v5_strip_vec4"]
    argv += [
        "--kernels-dir",
        str(ROOT / "kernels"),
        "--cubin",
        str(tmp_path / "v5.cubin"),
    ]
    assert main([*argv, "--resources", str(out), "--sweep", str(record)]) == 0
    built = json.loads(out.read_text())
    assert built["status"] == "ok" and built["params"] == best
    assert "-DROWS=16" in built["argv"] and "-DBLOCK_X=128" in built["argv"]
    # a sweep without a best (not recorded, nothing valid): the defaults
    write_json(record, {"status": "not_recorded"})
    assert main([*argv, "--resources", str(out), "--sweep", str(record)]) == 0
    assert json.loads(out.read_text())["params"]["ROWS"] == 8


def test_a_recording_keeps_the_sweep_records_only(recording, tmp_path):
    from nsightflow.machine.recording import record

    results = tmp_path / "results"
    shutil.copytree(recording / "time" / "faulty", results / "time" / "faulty")
    sweep = results / "sweep" / "sweepy"
    (sweep / "v0_modes" / "build").mkdir(parents=True)
    write_json(
        sweep / "v0_modes.json",
        {"family": "sweepy", "variant": "v0_modes", "best": None, "status": "ok"},
    )
    write_json(sweep / "v0_modes" / "compile.json", {"configs": []})
    (sweep / "v0_modes" / "cache.jsonl").write_text("{}\n")
    (sweep / "v0_modes" / "build" / "BLOCK256_MODE0.cubin").write_bytes(b"\0")
    record(results, tmp_path / "rec", "test")
    kept = sorted(
        str(p.relative_to(tmp_path / "rec")) for p in (tmp_path / "rec").rglob("*")
    )
    assert "sweep/sweepy/v0_modes.json" in kept
    assert not [k for k in kept if k.startswith("sweep/sweepy/v0_modes/")]
