"""`parse -o` never overwrites a measurement, picks the format from
the extension and says which package a format needs."""

import hashlib
import importlib.util
import shutil
from pathlib import Path

import pytest

from nsightflow import cli
from nsightflow.contracts import METRICS, RULES

FAMILY = "profile/jacobi2d"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def folder(recording, tmp_path) -> Path:
    """A copy of Jacobi v0's profile: its folder and the family report it names
    (v0's part: 2 launches, 2048 and 8192)."""
    family = tmp_path / "jacobi2d"
    (family / "v0_naive").mkdir(parents=True)
    shutil.copy(recording / FAMILY / "v0_naive/profile.json", family / "v0_naive")
    for shared in (recording / FAMILY).glob("jacobi2d.*.ncu-rep"):
        shutil.copy(shared, family)
    return family / "v0_naive"


@pytest.fixture
def report(folder) -> Path:
    """The shared family report the copied profile.json names: a measurement."""
    (found,) = folder.parent.glob("jacobi2d.*.ncu-rep")
    return found


def _parse(capfd, *args: object) -> tuple[int, str, str]:
    code = cli.main(["parse", *map(str, args)])
    out = capfd.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_the_output_is_never_an_input(folder, report, capfd, force):
    before = _digest(report)
    code, _, err = _parse(capfd, folder, "-o", report, *force)
    assert code == 2 and err.startswith("ERROR: ")
    assert f"{report}: is one of the reports being parsed" in err
    assert _digest(report) == before


def test_the_rules_output_is_never_an_input_of_a_folder(folder, report, capfd):
    before = _digest(report)
    out = folder / "m.csv"
    code, _, err = _parse(capfd, folder, "-o", out, "--rules", report)
    assert code == 2 and "is one of the reports being parsed" in err
    assert _digest(report) == before and not out.exists()


def test_a_raw_csv_input_is_not_overwritten_either(report, tmp_path, capfd):
    raw = tmp_path / "v0_n2048.csv"
    raw.write_text(
        '"ID","Kernel Name","gpu__time_duration.sum"\n"","","ns"\n"0","k","1"\n'
    )
    before = _digest(raw)
    code, _, err = _parse(capfd, raw, "-o", raw, "--force")
    assert code == 2 and "is one of the reports" in err and _digest(raw) == before


@pytest.mark.parametrize("name", ["out.txt", "out.xlsx", "out", "out.ncu-rep"])
def test_an_unknown_format_is_refused_before_anything_is_read(
    folder, tmp_path, capfd, name
):
    code, _, err = _parse(capfd, folder, "-o", tmp_path / name)
    assert code == 2
    assert "unknown table format" in err and ".csv or .parquet" in err
    assert not (tmp_path / name).exists()


def test_an_existing_file_that_is_not_our_table_needs_force(folder, tmp_path, capfd):
    notes = tmp_path / "notes.csv"
    notes.write_text("my,own,numbers\n1,2,3\n")
    code, _, err = _parse(capfd, folder, "-o", notes)
    assert code == 2 and "not a table written by nsightflow parse" in err
    assert "--force" in err and notes.read_text() == "my,own,numbers\n1,2,3\n"
    code, _, err = _parse(capfd, folder, "-o", notes, "--force")
    assert code == 0, err
    assert notes.read_text().splitlines()[0] == ",".join(METRICS.columns)


def test_our_own_tables_are_replaced_without_force(folder, tmp_path, capfd):
    out, rules = tmp_path / "m.csv", tmp_path / "r.csv"
    assert _parse(capfd, folder, "-o", out, "--rules", rules)[0] == 0
    assert rules.read_text().splitlines()[0] == ",".join(RULES.columns)
    code, _, err = _parse(capfd, folder, "-o", out, "--rules", rules)
    assert code == 0, err


def test_one_file_for_both_tables_is_refused(folder, tmp_path, capfd):
    out = tmp_path / "m.csv"
    code, _, err = _parse(capfd, folder, "-o", out, "--rules", out)
    assert code == 2 and "given for two tables" in err


def test_parquet_without_pyarrow_names_the_package(
    folder, tmp_path, capfd, monkeypatch
):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pyarrow" else real(name, *a),
    )
    code, _, err = _parse(capfd, folder, "-o", tmp_path / "m.parquet")
    assert code == 2 and "bug" not in err
    assert "needs the pyarrow package: pip install pyarrow" in err
    assert not (tmp_path / "m.parquet").exists()


def test_the_count_is_of_launches_not_launch_numbers(folder, tmp_path, capfd):
    # one report, two sizes, one launch each: launch numbers are 0 and 0
    code, out, err = _parse(capfd, folder, "-o", tmp_path / "m.csv")
    assert code == 0, err
    assert "from 2 launches ->" in out


def _variant_copy(recording, tmp_path: Path, variant: str) -> Path:
    """A variant's profile folder copied with the family report it names a part of."""
    folder = tmp_path / "profile/jacobi2d" / variant
    shutil.copytree(recording / FAMILY / variant, folder)
    for shared in (recording / FAMILY).glob("jacobi2d.*.ncu-rep"):
        shutil.copy(shared, folder.parent)
    return folder


def test_one_output_set_per_report_argument(recording, tmp_path, capfd):
    """The replay's per-family parse: each folder into its own three tables, the
    same bytes as parsing that folder alone."""
    import pandas as pd

    variants = ("v0_naive", "v1_smem")
    folders = [_variant_copy(recording, tmp_path, v) for v in variants]
    outs = {
        kind: [tmp_path / f"{v}{suffix}" for v in variants]
        for kind, suffix in (
            ("-o", ".csv"),
            ("--rules", ".rules.csv"),
            ("--source", ".source.csv"),
        )
    }
    args = [a for kind, paths in outs.items() for a in (kind, *paths)]
    code, out, err = _parse(capfd, *folders, *args, "--family", "jacobi2d")
    assert code == 0, err
    assert out.count(" metric values from ") == 2
    for i, variant in enumerate(variants):
        for kind in outs:
            table = pd.read_csv(outs[kind][i])
            assert len(table) > 0 and set(table["variant"]) == {variant}, kind
        alone = tmp_path / "alone"
        alone.mkdir(exist_ok=True)
        single = [
            alone / f"{variant}{s}" for s in (".csv", ".rules.csv", ".source.csv")
        ]
        code, _, err = _parse(
            capfd,
            folders[i],
            *("-o", single[0], "--rules", single[1], "--source", single[2]),
            *("--family", "jacobi2d"),
        )
        assert code == 0, err
        for kind, path in zip(outs, single, strict=True):
            assert outs[kind][i].read_bytes() == path.read_bytes(), (variant, kind)


@pytest.mark.parametrize(
    ("outputs", "rules", "message"),
    [
        (3, 0, "3 outputs (-o) for 2 report arguments"),
        (2, 1, "1 --rules tables for 2 outputs (-o)"),
    ],
)
def test_output_counts_that_do_not_match_are_refused(
    recording, tmp_path, capfd, outputs, rules, message
):
    folders = [_variant_copy(recording, tmp_path, v) for v in ("v0_naive", "v1_smem")]
    out = [tmp_path / f"m{i}.csv" for i in range(outputs)]
    rule_args = ["--rules", *(tmp_path / f"r{i}.csv" for i in range(rules))]
    code, _, err = _parse(capfd, *folders, "-o", *out, *(rule_args if rules else []))
    assert code == 2 and err.startswith("ERROR: parse: ") and message in err, err
    assert not any(tmp_path.glob("*.csv"))
