import shutil
from pathlib import Path

import pytest

from nsightflow.contracts import METRICS
from nsightflow.errors import ReportParseError
from nsightflow.tools.ncu_parse import (
    parse_files,
    read_ncu_rep,
)
from nsightflow.tools.ncu_report_io import rollup_of, size_from_name, sizes_from_name
from profiles import actions_of, runs

V0 = "profile/jacobi2d/v0_naive"  # both profiled sizes: 2048 and 8192, one process


def _profiled(recording: Path) -> list[Path]:
    """Variant folders whose profile.json names a report (shared or their own)."""
    found = [
        p.parent
        for p in sorted(recording.glob("profile/*/*/profile.json"))
        if '"file"' in p.read_text()
    ]
    assert len(found) >= 40, "the recording lost its profiled variants"
    return found


def test_every_numeric_value_equals_ncu_report(recording, tmp_path):
    # each variant's part of its family's report (or its own, .xz or not), as its
    # profile.json places it, read value by value through ncu_report
    for folder in _profiled(recording):
        metrics, _ = parse_files([folder])
        launches = {
            r.size: [actions_of(r.path, tmp_path)[a] for a in r.actions]
            for r in runs(folder, tmp_path)
        }
        assert set(metrics["size"]) == set(launches), folder
        # ~380 values per launch with the lean set (3 sections), > 500 with 4 sections
        assert len(metrics) > 300 * sum(map(len, launches.values())), folder
        for row in metrics.itertuples():  # launches restart at 0 for each size's run
            action = launches[row.size][row.launch]
            assert row.value == action.metric_by_name(row.metric).as_double(), (
                folder,
                row.metric,
            )


@pytest.mark.parametrize("metric", ["gpu__time_duration.sum", "dram__bytes_read.sum"])
def test_key_metrics_of_jacobi_reports(recording, metric, tmp_path):
    folders = sorted(
        p.parent for p in recording.glob("profile/jacobi2d/*/profile.json")
    )
    assert len(folders) == 6
    for folder in folders:
        metrics, _ = parse_files([folder])
        first = runs(folder, tmp_path)[0]  # the variant's first launch, at 2048
        action = actions_of(first.path, tmp_path)[first.actions[0]]
        row = metrics[metrics["metric"] == metric].iloc[0]
        assert row["value"] == action.metric_by_name(metric).as_double()
        assert row["unit"] == action.metric_by_name(metric).unit()
        assert row["rollup"] == "sum"
        assert row["family"] == "jacobi2d" and row["size"] == first.size == 2048
        assert row["kernel"].startswith("jacobi2d_v")


def test_dram_bytes_are_physically_plausible(recording):
    # one read of A at n = 8192 is 268,435,456 bytes; ncu must see about that
    metrics, _ = parse_files([recording / V0])
    at_8192 = metrics[metrics["size"] == 8192].set_index("metric")
    value = at_8192.loc["dram__bytes_read.sum", "value"]
    assert 0.95 * 8192**2 * 4 < value < 1.3 * 8192**2 * 4


def test_rule_results_carry_speedups(recording):
    _, rules = parse_files([recording / V0])
    rules = rules[rules["size"] == 8192]
    cpi = rules[(rules["rule"] == "CPIStall") & (rules["type"] == "optimization")]
    assert not cpi.empty
    assert "scoreboard" in cpi.iloc[0]["message"]
    assert 0 < cpi.iloc[0]["speedup_pct"] <= 100


def test_parse_folder_gives_long_table(recording):
    metrics, _ = parse_files([recording / "profile/jacobi2d/v1_smem"])
    assert list(metrics.columns) == list(METRICS.columns)
    assert sorted(metrics["size"].unique()) == [2048, 8192]
    assert (metrics.groupby(["size", "metric"]).size() == 1).all()


def test_rollup_and_size_from_names():
    assert rollup_of("dram__bytes_read.sum") == "sum"
    assert rollup_of("sm__throughput.avg.pct_of_peak_sustained_elapsed") == "avg"
    assert rollup_of("launch__registers_per_thread") == ""
    assert size_from_name(Path("n2048.ncu-rep")) == 2048
    assert size_from_name(Path("v1_smem_n512.csv")) == 512
    assert size_from_name(Path("report.ncu-rep")) is None


def test_truncated_report_is_a_clear_error(recording, tmp_path):
    src = runs(recording / V0, tmp_path)[0].path  # the jacobi2d family's report
    bad = tmp_path / "n2048+8192.ncu-rep"
    bad.write_bytes(src.read_bytes()[: src.stat().st_size // 3])
    with pytest.raises(ReportParseError, match=r"n2048\+8192\.ncu-rep"):
        read_ncu_rep(bad)


def test_empty_or_missing_report(tmp_path):
    (tmp_path / "n1.ncu-rep").write_bytes(b"")
    with pytest.raises(ReportParseError, match="missing or empty"):
        read_ncu_rep(tmp_path / "n1.ncu-rep")
    with pytest.raises(ReportParseError, match="no such file"):
        parse_files([tmp_path / "nope.ncu-rep"])


def test_copied_report_without_meta_still_parses(recording, tmp_path):
    # a variant's own report (Triton vecadd, profiled alone), its size in its name
    shutil.copy(
        recording / "profile/vecadd/v4_triton/n16777216.ncu-rep",
        tmp_path / "x_n16777216.ncu-rep",
    )
    metrics, _ = read_ncu_rep(tmp_path / "x_n16777216.ncu-rep")
    assert set(metrics["size"]) == {16777216} and set(metrics["variant"]) == {""}
    assert set(metrics["family"]) == {""} and not metrics.empty


CSV_FIXTURE = Path(__file__).resolve().parents[2] / "data" / "ncu" / "h200"


def test_raw_csv_matches_the_report_it_was_exported_from():
    # v1_smem_n2048.raw.csv = ncu --import v1_smem_n2048.ncu-rep --csv --page raw (H200)
    from nsightflow.tools.ncu_parse import read_ncu_csv

    csv = read_ncu_csv(CSV_FIXTURE / "v1_smem_n2048.raw.csv").set_index("metric")
    rep, _ = read_ncu_rep(CSV_FIXTURE / "v1_smem_n2048.ncu-rep")
    rep = rep.set_index("metric")
    assert set(csv["size"]) == {2048}
    common = csv.index.intersection(rep.index)
    assert len(common) > 900
    assert (csv.loc[common, "unit"] == rep.loc[common, "unit"]).all()
    for metric in (
        "gpu__time_duration.sum",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "launch__registers_per_thread",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    ):
        # the CSV prints 6-8 significant digits
        assert csv.loc[metric, "value"] == pytest.approx(
            rep.loc[metric, "value"], rel=1e-6
        )


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        (16.896, "us", (16896.0, "ns")),
        (16.781824, "Mbyte", (16781824.0, "byte")),
        (1.5, "Tbyte/s", (1.5e12, "byte/s")),
        (2.0, "sector/us", (2e6, "sector/s")),
        (3.0, "%/Kbyte", (3e-3, "%/byte")),
        (1.98, "Ghz", (1.98e9, "hz")),
        (7.0, "register/thread", (7.0, "register/thread")),
    ],
)
def test_display_units_become_base_units(value, unit, expected):
    from nsightflow.tools.ncu_parse import to_base_unit

    got = to_base_unit(value, unit)
    assert got[1] == expected[1] and got[0] == pytest.approx(expected[0])


def test_sizes_of_a_multi_size_report_come_from_its_name(tmp_path):
    from nsightflow.tools.ncu_report_io import (
        launches_per_size,
        report_labels,
    )

    assert sizes_from_name(Path("n2048+8192.ncu-rep")) == [2048, 8192]
    assert sizes_from_name(Path("n2048.ncu-rep")) == []
    assert report_labels(tmp_path / "n1024+4096.ncu-rep")[1] == [1024, 4096]
    assert report_labels(tmp_path / "n1024.ncu-rep")[1] == [1024]
    assert launches_per_size(Path("r"), [1024, 4096], 4) == 2
    with pytest.raises(ReportParseError, match="cannot be split over its 2 sizes"):
        launches_per_size(Path("n1024+4096.ncu-rep"), [1024, 4096], 3)


def test_a_variant_reads_only_its_part_of_a_shared_family_report(recording, tmp_path):
    """A family's variants share one report; each profile.json names its launches.

    Built from the recorded Jacobi family report, whose profile.json files place
    v1_smem at its launches 2 (2048) and 3 (8192): "variant a" owns launch 2,
    "variant b" launch 3, and each parses to ncu_report's values of its own launch.
    """
    import json

    v1 = runs(recording / "profile/jacobi2d/v1_smem", tmp_path)
    assert [(r.size, r.actions) for r in v1] == [(2048, (2,)), (8192, (3,))]
    actions = actions_of(v1[0].path, tmp_path)
    family = tmp_path / "profile" / "fam"
    family.mkdir(parents=True)
    shutil.copyfile(v1[0].path, family / "fam.0123abcd.ncu-rep")
    for variant, first, size in (("a", 2, 2048), ("b", 3, 8192)):
        (family / variant).mkdir()
        entry = {"size": size, "result": 0, "status": "ok"}
        entry |= {"file": "../fam.0123abcd.ncu-rep", "first_action": first}
        meta = {"schema_version": 1, "family": "fam", "variant": variant}
        meta["status"] = "ok"
        meta["reports"] = [{**entry, "actions": 1}]
        (family / variant / "profile.json").write_text(json.dumps(meta))
    for variant, first, size in (("a", 2, 2048), ("b", 3, 8192)):
        metrics, _ = parse_files([family / variant])
        assert set(metrics["variant"]) == {variant} and set(metrics["size"]) == {size}
        assert set(metrics["launch"]) == {0} and len(metrics) > 300
        assert set(metrics["kernel"]) == {actions[first].name()}
        for row in metrics.itertuples():
            value = actions[first].metric_by_name(row.metric).as_double()
            assert row.value == value, row.metric


def test_each_recorded_variant_s_part_holds_only_its_own_kernels(recording, tmp_path):
    """Each profile.json places its variant on launches of the variant's own kernels.

    A part shifted by one (a launch counted but never made) would read a neighbour's
    launches: spmv's v4_csr_thread_skewed would then show spmv_csr_warp's metrics.
    """
    from nsightflow.family.registry import load_family

    kernels = Path(__file__).resolve().parents[3] / "kernels"
    for folder in _profiled(recording):
        if not (kernels / folder.parent.name / "family.yaml").is_file():
            continue  # the test families (faulty) live under tests/data
        family = load_family(kernels / folder.parent.name)
        declared = family.variants[folder.name].kernels
        if not declared:  # a Python launcher's kernels are the library's own
            continue
        for run in runs(folder, tmp_path):
            actions = actions_of(run.path, tmp_path)
            made = [actions[a].name() for a in run.actions]
            assert made and set(made) <= set(declared), (folder, made, declared)
