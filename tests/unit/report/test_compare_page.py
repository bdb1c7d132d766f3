"""The first screen of ``nsightflow compare``'s page: what changed, and why."""

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from nsightflow.analysis import compare as C
from nsightflow.cli import main
from nsightflow.i18n import language
from nsightflow.report.compare_brief import MAX_LINES, change_text, first_screen

PAIRS = ["family", "variant", "size", "ratio", "verdict", "caveats"]
COUNTERS = ["family", "variant", "size", "counter", "a", "b", "kind", "score", "moved"]


def _comparison(pairs, sources=(), statuses=(), counters=(), rules=()):
    return SimpleNamespace(
        pairs=pd.DataFrame(pairs, columns=PAIRS),
        sources=pd.DataFrame(
            sources, columns=["family", "variant", "code", "files", "diff"]
        ),
        statuses=pd.DataFrame(
            statuses, columns=["family", "variant", "status_a", "status_b"]
        ),
        counters=pd.DataFrame(
            counters,
            columns=COUNTERS,
        ).astype({"moved": bool}),
        rules=pd.DataFrame(
            rules, columns=["family", "variant", "size", "rule", "change", "kernel"]
        ),
    )


def test_changes_read_as_a_reader_says_them():
    assert change_text(4.98) == "5.0x slower"
    assert change_text(0.25) == "4.0x faster"
    assert change_text(0.9) == "-10.0%"
    assert change_text(1.032) == "+3.2%"


def test_each_changed_variant_says_how_much_where_and_why_largest_first():
    pairs = [
        ("s", "v3|pad", 1024, 4.0, C.SLOWER, ""),
        ("s", "v3|pad", 4096, 5.0, C.SLOWER, ""),
        ("j", "v1", 4096, 0.9, C.FASTER, "cache"),
        ("j", "v1", 8192, 0.9, C.SAME, ""),
        ("j", "v2", 8192, 1.0, C.SAME, ""),
    ]
    counters = [
        ("s", "v3|pad", 4096, "smem_conflict_pct", 0.66, 83.6, "pp", 0.8, True),
        ("s", "v3|pad", 4096, "inst_executed", 6.66e9, 5.19e9, "rel", 0.2, True),
        ("s", "v3|pad", 4096, "registers", 40, 40, "rel", 0.0, False),
    ]
    c = _comparison(
        pairs,
        sources=[("s", "v3|pad", "changed", "s/v3.cu", "-a\n+b")],
        counters=counters,
        rules=[("s", "v3|pad", 4096, "BankConflicts", "appeared", "k")],
    )
    text = first_screen(c)
    lines = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert text.startswith("## What changed, and why")
    assert "**2 variants changed**; 2 of 5 pairs" in text
    assert lines[0] == (
        "- **`s` `v3|pad`**: 5.0x slower at n = 4096 (SLOWER at 2 of 2 sizes). "
        "Why: the code changed (`s/v3.cu`); at n = 4096 `smem_conflict_pct` "
        "0.66% → 83.6%, `inst_executed` 6.66G → 5.19G; ncu rules appeared: "
        "`BankConflicts`."
    )
    assert lines[1] == (
        "- **`j` `v1`**: -10.0% at n = 8192 (SAME at 1 of 2 sizes). Why: the runs "
        "were not timed alike (L2 flushed in one run only)."
    )


def test_a_change_nothing_recorded_explains_says_so_and_a_broken_variant_leads():
    c = _comparison(
        [("j", "v1", 4096, 0.9, C.FASTER, ""), ("j", "v2", 4096, 2.0, C.SLOWER, "")],
        statuses=[("j", "v0", "ok", "wrong")],
    )
    lines = [ln for ln in first_screen(c).splitlines() if ln.startswith("- ")]
    assert lines[0].startswith("- **`j` `v0`**: status `ok` -> `wrong`.")
    assert "nothing the runs recorded explains it" in lines[2]
    with language("zh"):
        assert "有变化" in first_screen(c)


def test_nothing_changed_is_one_line_and_many_changes_are_cut_short():
    same = _comparison([("j", "v1", 4096, 1.0, C.SAME, "")])
    assert "**Nothing changed**: all 1 pairs" in first_screen(same)
    many = _comparison(
        [("j", f"v{i}", 4096, 2.0, C.SLOWER, "") for i in range(MAX_LINES + 3)]
    )
    text = first_screen(many)
    assert text.count("\n- ") == MAX_LINES + 1
    assert "and 3 more, each in its section below" in text


def test_the_page_opens_with_what_changed_then_the_figure_then_the_tables(
    recording, tmp_path
):
    a = tmp_path / "a"
    for name in ("recording.json", "ceilings.json"):
        a.mkdir(exist_ok=True)
        shutil.copy2(recording / name, a / name)
    shutil.copytree(recording / "time" / "jacobi2d", a / "time" / "jacobi2d")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    path = b / "time/jacobi2d/v1_smem.json"
    record = json.loads(path.read_text())
    for row in record["rows"]:
        # every statistic, so the record stays consistent (quartiles in order)
        for key in ("time_median_us", "time_q1_us", "time_q3_us", "time_min_us"):
            if key in row:
                row[key] *= 2.0
        row["time_max_us"] = max(row.get("time_max_us", 0), row.get("time_q3_us", 0))
        row.pop("samples_ns", None)  # the quartiles decide, as in older recordings
    path.write_text(json.dumps(record))
    out = tmp_path / "cmp"
    assert main(["compare", str(a), str(b), "-o", str(out)]) == 0
    text = (out / "compare.md").read_text()
    brief = text.index("## What changed, and why")
    tables = text.index("## Variants that changed")
    assert brief < text.index("figures/compare.png") < tables
    head = text[brief : text.index("figures/compare.png")]
    assert "`jacobi2d` `v1_smem`**: 2.0x slower at n = 16384" in head
    assert (Path(out) / "compare.html").read_text().count("What changed, and why") >= 1
