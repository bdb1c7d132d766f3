"""``nsightflow compare`` of tampered runs: a fault matrix.

Run B is a copy of the bundled recording's jacobi2d timings with one file tampered
with. The command succeeds; the tampered pairs are INVALID, each named with the file
and field on stdout and on the page, and the counts on stdout are the page's.
"""

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from nsightflow.cli import main

FAMILY = "jacobi2d"
V0 = "v0_naive"


@pytest.fixture
def runs(recording, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for run in (a, b):
        shutil.copytree(recording / "time" / FAMILY, run / "time" / FAMILY)
        shutil.copy(recording / "recording.json", run)
    return a, b


def _compare(a: Path, b: Path, out: Path, capfd, *extra: str) -> tuple[int, str, str]:
    argv = ["compare", str(a), str(b), "-o", str(out), "--no-counters"]
    code = main([*argv, "--families", FAMILY, *extra])
    got = capfd.readouterr()
    return code, got.out, got.err


def _rows(change):
    def tamper(path: Path) -> None:
        data = json.loads(path.read_text())
        change(data["rows"])
        path.write_text(json.dumps(data))

    return tamper


def _whole(change):
    def tamper(path: Path) -> None:
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))

    return tamper


def _text(text):
    return lambda path: path.write_text(text)


def _relabel(path: Path) -> None:
    shutil.copy(path.with_name("v1_smem.json"), path)


def _link(path: Path) -> None:
    path.unlink()
    path.symlink_to("/etc/passwd")


# tampering of B's v0 record -> (INVALID pairs expected, field named)
CASES = {
    "nan_median": (_rows(lambda r: r[1].update(time_median_us=float("nan"))), 1),
    "negative_samples": (_rows(lambda r: r[1].update(samples_ns="-200 3")), 1),
    "negative_median": (_rows(lambda r: r[1].update(time_median_us=-2.0)), 1),
    "huge_median": (_rows(lambda r: r[1].update(time_median_us=1e308)), 1),
    "zero_samples": (_rows(lambda r: r[1].update(samples_ns="0 0 0")), 1),
    "duplicate_size": (_rows(lambda r: r.append(dict(r[0]))), 1),
    "no_size": (_rows(lambda r: r[0].pop("size")), 1),
    "string_size": (_rows(lambda r: r[0].update(size="2048")), 1),
    "rows_oops": (_whole(lambda d: d.update(rows="oops")), 6),
    "rows_null": (_whole(lambda d: d.update(rows=None)), 6),
    "rows_strings": (_whole(lambda d: d.update(rows=["a"])), 1),
    "list": (_text("[]"), 6),
    "null": (_text("null"), 6),
    "object": (_text("{}"), 6),
    "string": (_text('"x"'), 6),
    "zeros": (_text("0"), 6),
    "truncated": (_text('{"rows": [{"size": 20'), 6),
    "relabelled": (_relabel, 6),
    "link": (_link, 6),
}


def _page_counts(page: str) -> dict[str, int]:
    found = dict.fromkeys(["SAME", "FASTER", "SLOWER", "UNCERTAIN", "INVALID"], 0)
    line = re.search(
        r"\*\*(\d+) SAME, (\d+) FASTER, (\d+) SLOWER, (\d+) UNCERTAIN", page
    )
    if line:
        found.update(zip(list(found)[:4], map(int, line.groups()), strict=True))
    invalid = re.search(r"\*\*(\d+) pairs INVALID\*\*", page)
    found["INVALID"] = int(invalid.group(1)) if invalid else 0
    return found


def _stdout_counts(out: str) -> dict[str, int]:
    line = next(ln for ln in out.splitlines() if ln.startswith("compared "))
    return {v: int(n) for n, v in re.findall(r"(\d+) ([A-Z]+)", line)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_tampered_timing_is_an_invalid_pair_named_alike_everywhere(
    runs, tmp_path, capfd, case
):
    a, b = runs
    tamper, expected = CASES[case]
    tamper(b / "time" / FAMILY / f"{V0}.json")
    code, out, err = _compare(a, b, tmp_path / "cmp", capfd)
    assert code == 0, err
    assert "Traceback" not in err and "This is a bug" not in err
    named = [ln for ln in out.splitlines() if ln.startswith(f"INVALID {FAMILY}/{V0} ")]
    assert len(named) == expected, out
    assert all(str(b / "time" / FAMILY / f"{V0}.json") in ln for ln in named)
    page = (tmp_path / "cmp/compare.md").read_text()
    counts = _stdout_counts(out)
    assert counts["INVALID"] == expected
    assert counts == _page_counts(page)
    assert "## Pairs that cannot be compared" in page
    table = pd.read_csv(tmp_path / "cmp/compare.csv")
    assert (table["verdict"] == "INVALID").sum() == expected
    assert table[table["verdict"] != "INVALID"]["ratio"].gt(0).all()
    statuses = page.split("## ", 3)  # the variant is not also a status change
    assert f"`{V0}`: `ok` -> `absent`" not in "".join(statuses)


def test_untampered_runs_have_no_invalid_pair(runs, tmp_path, capfd):
    code, out, _ = _compare(*runs, tmp_path / "cmp", capfd)
    assert code == 0 and not [ln for ln in out.splitlines() if ln.startswith("INVALID")]
    counts = _stdout_counts(out)
    assert counts["INVALID"] == 0 and counts["SAME"] == sum(counts.values())
    assert counts == _page_counts((tmp_path / "cmp/compare.md").read_text())


def test_an_invalid_pair_fails_a_gate(runs, tmp_path, capfd):
    a, b = runs
    CASES["nan_median"][0](b / "time" / FAMILY / f"{V0}.json")
    code, _, _ = _compare(a, b, tmp_path / "cmp", capfd, "--fail-on", "slower")
    assert code == 1


@pytest.mark.parametrize("value", ["5", "0", "1", "-0.5", "nan", "high", "150%"])
def test_the_confidence_level_is_validated(runs, tmp_path, capfd, value):
    with pytest.raises(SystemExit) as exit_info:
        _compare(*runs, tmp_path / "cmp", capfd, "--confidence", value)
    assert exit_info.value.code == 2
    err = capfd.readouterr().err
    assert "--confidence" in err and "between 0 and 1" in err
    assert "Traceback" not in err


def test_a_confidence_in_percent_is_read(runs, tmp_path, capfd):
    code, _, err = _compare(*runs, tmp_path / "cmp", capfd, "--confidence", "90%")
    assert code == 0, err
    assert "intervals at 90%" in (tmp_path / "cmp/compare.md").read_text()


@pytest.mark.parametrize("where", ["a", "a/sub", "b/time", "b"])
def test_compare_never_writes_into_its_inputs(runs, tmp_path, capfd, where):
    a, b = runs
    (b / "recording.json").unlink()  # b: a results folder, a: a recording
    before = sorted(p for p in tmp_path.rglob("*"))
    code, _, err = _compare(a, b, tmp_path / where, capfd)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith("ERROR: compare: -o ") and " the input" in line
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_compare_writes_beside_a_results_folder_s_own_outputs(runs, tmp_path, capfd):
    a, b = runs
    (b / "recording.json").unlink()
    code, _, err = _compare(a, b, b / "compare", capfd)
    assert code == 0, err
