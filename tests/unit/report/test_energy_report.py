"""Energy per launch from the time records to summary.csv, the figure and the report.

The recording holds energy per launch (NVML's counter, read by the time stage): its
summary and report carry the recorded joules. Time records without energy (a copy of
the recording with the energy fields taken out) say "not recorded". The other energy
values written here are made up for the test (300 W times the recorded medians),
never presented as measured.
"""

import json
import shutil

import pandas as pd
import pytest

from nsightflow.plot.energy import write_energy_figure
from nsightflow.report.sections.family import ReportBuilder
from nsightflow.report.summary import summary_frame
from recorded import analyze

WATTS = 300.0  # made up


def _report(analysis_dir):
    frames = [pd.read_csv(analysis_dir / f"{n}.csv") for n in ("analysis", "stalls")]
    ctx = json.loads((analysis_dir / "context.json").read_text())
    return ReportBuilder(*frames, pd.DataFrame(), ctx)


def _copy(recording, tmp_path, edit):
    """The recording's jacobi2d with ``edit`` applied to each row of its time records."""
    copy = tmp_path / "rec"
    for part in ("build", "verify", "time", "profile"):
        shutil.copytree(recording / part / "jacobi2d", copy / part / "jacobi2d")
    shutil.copy(recording / "ceilings.json", copy / "ceilings.json")
    for path in (copy / "time/jacobi2d").glob("*.json"):
        record = json.loads(path.read_text())
        for row in record["rows"]:
            if "time_median_us" in row:
                edit(row)
        path.write_text(json.dumps(record))
    return analyze(copy, "jacobi2d", tmp_path)


def test_the_recorded_energy_reaches_the_summary_and_the_report(recording, tmp_path):
    out = analyze(recording, "jacobi2d", tmp_path)
    analysis = pd.read_csv(out / "analysis.csv")
    summary = summary_frame(analysis).set_index(["variant", "size"])
    record = json.loads((recording / "time/jacobi2d/v0_naive.json").read_text())
    (row,) = [r for r in record["rows"] if r["size"] == 8192]
    joules = row["energy_j_per_launch"]  # 0.148 J at 556 W on the H200
    assert summary.loc[("v0_naive", 8192), "energy_j_per_launch"] == pytest.approx(
        joules
    )
    assert summary.loc[("v0_naive", 8192), "energy_power_w"] == pytest.approx(
        row["energy_power_w"]
    )
    assert summary["energy_j_per_launch"].notna().all()
    ctx = json.loads((out / "context.json").read_text())
    paths = write_energy_figure(analysis, ctx, tmp_path / "figures")
    assert sorted(p.name for p in paths) == ["energy.png", "energy.svg"]
    section = _report(out).energy()
    assert section.startswith("## Energy per launch")
    assert "Not recorded" not in section and "figures/energy.png" in section
    order = [ln.split("`")[1] for ln in section.splitlines() if ln.startswith("| `")]
    assert order == list(dict.fromkeys(analysis["variant"]))


def _drop_energy(row):
    for key in [k for k in row if k.startswith("energy")]:
        del row[key]


def test_time_records_without_energy_say_so(recording, tmp_path):
    out = _copy(recording, tmp_path, _drop_energy)
    analysis = pd.read_csv(out / "analysis.csv")
    summary = summary_frame(analysis)
    for column in ("energy_j_per_launch", "gflop_per_j", "gb_per_j", "energy_power_w"):
        assert summary[column].isna().all()
    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "energy.png").write_bytes(b"stale")  # from an earlier measured run
    ctx = json.loads((out / "context.json").read_text())
    assert write_energy_figure(analysis, ctx, figures) == []
    assert not (figures / "energy.png").exists()
    section = _report(out).energy()
    assert section.startswith("## Energy per launch")
    assert "Not recorded: the time records hold no energy" in section
    assert "figures/energy.png" not in section


def _made_up_energy(row):
    row["energy_j_per_launch"] = WATTS * row["time_median_us"] * 1e-6
    row["energy_power_w"] = WATTS
    row["energy_busy"] = 0.5 if row["size"] == 512 else 1.0


@pytest.fixture
def with_energy(recording, tmp_path):
    """The recording's jacobi2d with made-up energy in its time records."""
    return _copy(recording, tmp_path, _made_up_energy)


def test_energy_reaches_the_summary_as_joules_and_work_per_joule(with_energy):
    analysis = pd.read_csv(with_energy / "analysis.csv")
    summary = summary_frame(analysis).set_index(["variant", "size"])
    row = summary.loc[("v0_naive", 8192)]
    joules = WATTS * row["time_median_us"] * 1e-6
    assert row["energy_j_per_launch"] == pytest.approx(joules)
    # jacobi2d: 5 (n - 2)^2 ideal FLOPs and 2 * 4 n^2 ideal bytes per launch
    assert row["gflop_per_j"] == pytest.approx(5 * 8190**2 / joules / 1e9)
    assert row["gb_per_j"] == pytest.approx(8 * 8192**2 / joules / 1e9)
    assert list(summary.columns)[-4:] == [
        "energy_j_per_launch",
        "gflop_per_j",
        "gb_per_j",
        "energy_power_w",
    ]


def test_the_figure_and_section_show_time_against_energy(with_energy, tmp_path):
    analysis = pd.read_csv(with_energy / "analysis.csv")
    ctx = json.loads((with_energy / "context.json").read_text())
    paths = write_energy_figure(analysis, ctx, tmp_path / "figures")
    assert sorted(p.name for p in paths) == ["energy.png", "energy.svg"]
    svg = (tmp_path / "figures/energy.svg").read_text()
    assert "<title>v0_naive, n = 8192: " in svg and "at 300 W</title>" in svg
    section = _report(with_energy).energy()
    assert "![median time against energy per launch" in section
    assert "figures/energy.png" in section
    table = [ln for ln in section.splitlines() if ln.startswith("| `v0_naive`")]
    assert len(table) == 1 and "| 16384 " in table[0]  # the largest size
    assert "per launch below 0.9: `v0_naive` n = 512, `v1_smem` n = 512" in section
    assert "not a busy fraction" not in section  # no ratio above 1 here
    order = [ln.split("`")[1] for ln in section.splitlines() if ln.startswith("| `")]
    assert order == list(dict.fromkeys(analysis["variant"]))  # the manifest's order
