"""Renaming a column is one edit: contracts/columns.py, and nothing else.

A copy of the package with one column renamed in columns.py analyzes the bundled
vecadd recording (tables, then findings) and writes its summary: the summary carries
the new name with the values the old name had, the diagnosis finds the same findings,
and no module spells the old name.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_column_literals import modules, spelled

ROOT = Path(__file__).resolve().parents[3]
OLD, NEW = "speedup_vs_previous", "speedup_vs_prior"
# Run in a fresh interpreter on the package at sys.argv[1]: analyze vecadd, write
# the summary through its Table, read it back, print its columns and the speedups.
ROUND_TRIP = """
import json, sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from recorded import analyze
from nsightflow.contracts import ANALYSIS, FINDINGS, SUMMARY, columns as col
from nsightflow.report.summary import summary_frame
out = Path(sys.argv[3])
analysis = analyze(Path(sys.argv[4]), "vecadd", out)
summary = summary_frame(ANALYSIS.read(analysis / ANALYSIS.name))
SUMMARY.write(summary, out / SUMMARY.name)
back = SUMMARY.read(out / SUMMARY.name)
speedups = back[col.SPEEDUP_VS_PREVIOUS].round(9).fillna(-1).tolist()
rows = FINDINGS.read(analysis / FINDINGS.name).values.tolist()
findings = [[str(c) for c in row] for row in rows]
import nsightflow
print(json.dumps({"columns": list(back.columns), "speedups": speedups,
                  "findings": findings, "package": nsightflow.__file__}))
"""


def _round_trip(src: Path, out: Path, recording: Path) -> dict:
    out.mkdir()
    argv = [sys.executable, "-c", ROUND_TRIP, str(src), str(ROOT / "tests")]
    done = subprocess.run(
        [*argv, str(out), str(recording)],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def renamed(tmp_path: Path) -> Path:
    """A copy of src/ with OLD renamed to NEW in contracts/columns.py only."""
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    columns = src / "nsightflow" / "contracts" / "columns.py"
    text = columns.read_text()
    assert text.count(f'"{OLD}"') == 1
    columns.write_text(text.replace(f'"{OLD}"', f'"{NEW}"'))
    return src


def test_a_renamed_column_is_written_and_read_under_its_new_name(
    renamed, tmp_path, recording
):
    before = _round_trip(ROOT / "src", tmp_path / "before", recording)
    after = _round_trip(renamed, tmp_path / "after", recording)
    assert after["package"].startswith(str(renamed))
    assert OLD in before["columns"] and NEW not in before["columns"]
    expected = [NEW if c == OLD else c for c in before["columns"]]
    assert after["columns"] == expected
    assert after["speedups"] == before["speedups"]
    assert any(s != -1 for s in after["speedups"])  # vecadd has a step to measure
    # the diagnosis reads the renamed column too: the same findings, under its name
    assert after["findings"] == [
        [cell.replace(OLD, NEW) for cell in row] for row in before["findings"]
    ]
    assert before["findings"]


def test_no_module_of_the_renamed_copy_spells_a_column(renamed):
    package = renamed / "nsightflow"
    found = [line for path in modules(package) for line in spelled(path, package)]
    assert not found, found
    # the old name is gone from every module but as words of a docstring or comment
    spelled_old = [p.name for p in package.rglob("*.py") if f'"{OLD}"' in p.read_text()]
    assert not spelled_old, spelled_old
