"""docs/compare.md's real comparison quotes what `nsightflow compare` finds.

Its section "A real comparison" runs `nsightflow compare` on the H200 recording of
commit a382fd9 against the bundled one. This runs the same command (the old
recording out of git, as the page does) and checks each count the section quotes
against the line the command prints and the compare.csv it writes, so a new
recording or a change to the verdicts cannot leave the page behind.
"""

import io
import re
import subprocess
import tarfile
from pathlib import Path

import pandas as pd
import pytest

from cli_run import nsightflow

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "compare.md"
OLD = "a382fd9"  # the recording of 2026-11-29, as the page names it
NAMES = {"jacobi2d": "Jacobi-2D", "sgemm": "SGEMM", "spmv": "SpMV", "scan": "Scan"}
PRINTED = re.compile(
    r"compared (\d+) pairs: (\d+) SAME, (\d+) FASTER, (\d+) SLOWER, (\d+) UNCERTAIN"
)


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame]:
    """What the page's command prints, and its compare.csv."""
    tmp = tmp_path_factory.mktemp("compare_doc")
    archive = subprocess.run(
        ["git", "archive", OLD, "examples/h200"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp, filter="data")
    proc = nsightflow(
        "compare", str(tmp / "examples/h200"), "examples/h200", "-o", str(tmp / "cmp")
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, pd.read_csv(tmp / "cmp" / "compare.csv")


@pytest.fixture(scope="module")
def section() -> str:
    """The page's section, on one line (its sentences wrap anywhere)."""
    body = PAGE.read_text().split("## A real comparison", 1)[1].split("\n## ", 1)[0]
    return " ".join(body.split())


def _variants(rows: pd.DataFrame) -> str:
    """``Fam `v1`; Other `v2`, `v3` `` in family order, as the page lists them."""
    named = rows.drop_duplicates(["family", "variant"]).groupby("family")["variant"]
    return "; ".join(
        f"{NAMES[family]} " + ", ".join(f"`{v}`" for v in variants)
        for family, variants in named
    )


def test_the_page_runs_the_command_run_here(section):
    assert f"git archive {OLD} examples/h200 | tar -x -C /tmp" in section
    assert "nsightflow compare /tmp/examples/h200 examples/h200" in section


def test_the_verdict_counts_are_the_printed_ones(compared, section):
    printed, pairs = compared
    found = PRINTED.search(printed)
    assert found, printed
    total, same, faster, slower, uncertain = map(int, found.groups())
    counts = pairs["verdict"].value_counts()
    assert (total, same, faster, slower) == (
        len(pairs),
        counts.get("SAME", 0),
        counts.get("FASTER", 0),
        counts.get("SLOWER", 0),
    )
    quoted = f"{total} pairs: {same} SAME, {faster} FASTER, {slower} SLOWER, "
    assert f"{quoted}{uncertain} UNCERTAIN" in section


def test_the_l2_flush_explains_every_slower_pair(compared, section):
    _, pairs = compared
    flushed = pairs[pairs["caveats"].fillna("").str.contains("cache")]
    assert set(flushed["family"]) == {"jacobi2d", "sgemm"}
    slower = pairs[pairs["verdict"] == "SLOWER"]
    assert slower.index.isin(flushed.index).all()
    assert (
        f'the {len(flushed)} pairs marked "L2 flushed in one run only" are '
        "Jacobi-2D and SGEMM sizes, and all "
        f"{len(slower)} SLOWER pairs are among them"
    ) in section


def test_every_faster_pair_is_of_a_changed_kernel(compared, section):
    _, pairs = compared
    faster = pairs[pairs["verdict"] == "FASTER"]
    assert set(faster["code"]) == {"changed"}
    assert (
        f"The {len(faster)} FASTER pairs are all of variants whose code changed "
        f"between the recordings ({_variants(faster)})"
    ) in section


def test_unchanged_code_timed_alike_drifts_as_the_page_says(compared, section):
    _, pairs = compared
    alike = pairs[
        (pairs["median_a_us"] > 20)
        & (pairs["median_b_us"] > 20)
        & pairs["caveats"].isna()
        & (pairs["code"] == "same")
    ]
    change = alike["change_pct"].abs()
    n_same = (alike["verdict"] == "SAME").sum()
    assert (
        f"Of the {len(alike)} pairs above 20 us timed alike whose code is the same in "
        f"both runs, {n_same} are SAME (median |change| {change.median():.1f}%, "
        f"largest {change.max():.1f}%)"
    ) in section
    unsure = alike[alike["verdict"] == "UNCERTAIN"]
    assert len(unsure) + n_same == len(alike)
    # the page names them in one phrase: one family, one size
    assert len(unsure) == 2 and unsure["family"].nunique() == 1, unsure
    assert unsure["size"].nunique() == 1, unsure
    a, b = unsure.itertuples()
    assert (
        f"the 2 UNCERTAIN ones ({NAMES[a.family]} `{a.variant}` and `{b.variant}` at "
        f"n = {a.size}: {a.change_pct:.1f}% and {b.change_pct:.1f}%)"
    ) in section


def test_the_scan_refactor_is_same_at_every_size(compared, section):
    _, pairs = compared
    v2 = pairs[
        (pairs["family"] == "scan") & (pairs["variant"] == "v2_reduce_then_scan")
    ]
    assert set(v2["code"]) == {"changed"} and set(v2["verdict"]) == {"SAME"}
    assert f"SAME at all {len(v2)} sizes" in section
