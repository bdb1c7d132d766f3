import shutil
from pathlib import Path

import ncu_report
import pytest

from nsightflow.contracts import METRICS
from nsightflow.errors import ReportParseError
from nsightflow.tools.ncu_parse import (
    parse_files,
    read_ncu_rep,
)
from nsightflow.tools.ncu_report_io import rollup_of, size_from_name, sizes_from_name

V0 = "profile/jacobi2d/v0_naive/n2048+8192.ncu-rep"  # both profiled sizes, one process


def _reports(recording: Path) -> list[Path]:
    found = sorted(recording.glob("profile/*/*/*.ncu-rep"))
    assert len(found) >= 6, "the recording lost its .ncu-rep files"
    return found


def test_every_numeric_value_equals_ncu_report(recording):
    for path in _reports(recording):
        metrics, _ = read_ncu_rep(path)
        rng = ncu_report.load_report(str(path)).range_by_idx(0)
        actions = [rng.action_by_idx(i) for i in range(rng.num_actions())]
        # launches restart at 0 for each size's run (multi-kernel runs have several)
        sizes = list(dict.fromkeys(metrics["size"]))
        per_size = len(actions) // len(sizes)
        # ~380 values per launch with the lean set (3 sections), > 500 with 4 sections
        assert len(metrics) > 300 * len(actions)
        for row in metrics.itertuples():
            action = actions[sizes.index(row.size) * per_size + row.launch]
            assert row.value == action.metric_by_name(row.metric).as_double(), (
                row.metric
            )


@pytest.mark.parametrize("metric", ["gpu__time_duration.sum", "dram__bytes_read.sum"])
def test_key_metrics_of_jacobi_reports(recording, metric):
    for path in recording.glob("profile/jacobi2d/*/*.ncu-rep"):
        metrics, _ = read_ncu_rep(path)
        action = ncu_report.load_report(str(path)).range_by_idx(0).action_by_idx(0)
        row = metrics[metrics["metric"] == metric].iloc[0]
        assert row["value"] == action.metric_by_name(metric).as_double()
        assert row["unit"] == action.metric_by_name(metric).unit()
        assert row["rollup"] == "sum"
        assert row["family"] == "jacobi2d" and row["size"] == sizes_from_name(path)[0]
        assert row["kernel"].startswith("jacobi2d_v")


def test_dram_bytes_are_physically_plausible(recording):
    # one read of A at n = 8192 is 268,435,456 bytes; ncu must see about that
    metrics, _ = read_ncu_rep(recording / V0)
    at_8192 = metrics[metrics["size"] == 8192].set_index("metric")
    value = at_8192.loc["dram__bytes_read.sum", "value"]
    assert 0.95 * 8192**2 * 4 < value < 1.3 * 8192**2 * 4


def test_rule_results_carry_speedups(recording):
    _, rules = read_ncu_rep(recording / V0)
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
    src = recording / V0
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
    shutil.copy(
        recording / "profile/jacobi2d/v2_coarsen2/n2048+8192.ncu-rep",
        tmp_path / "x_n2048+8192.ncu-rep",
    )
    metrics, _ = read_ncu_rep(tmp_path / "x_n2048+8192.ncu-rep")
    assert set(metrics["size"]) == {2048, 8192} and set(metrics["variant"]) == {""}


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

    Built from a recorded two-launch report (Jacobi v0 at 2048 and 8192): "variant a"
    owns the first launch, "variant b" the second, and each parses to its own.
    """
    import json

    family = tmp_path / "profile" / "fam"
    family.mkdir(parents=True)
    shutil.copyfile(recording / V0, family / "fam.0123abcd.ncu-rep")
    for variant, first, size in (("a", 0, 2048), ("b", 1, 8192)):
        (family / variant).mkdir()
        entry = {"size": size, "result": 0, "status": "ok"}
        entry |= {"file": "../fam.0123abcd.ncu-rep", "first_action": first}
        meta = {"schema_version": 1, "family": "fam", "variant": variant}
        meta["status"] = "ok"
        meta["reports"] = [{**entry, "actions": 1}]
        (family / variant / "profile.json").write_text(json.dumps(meta))
    whole, _ = read_ncu_rep(recording / V0)
    for variant, size in (("a", 2048), ("b", 8192)):
        metrics, _ = parse_files([family / variant])
        assert set(metrics["variant"]) == {variant} and set(metrics["size"]) == {size}
        assert set(metrics["launch"]) == {0}
        mine = whole[whole["size"] == size].set_index("metric")["value"]
        assert metrics.set_index("metric")["value"].equals(mine)
