"""The pinned versions (constraints.txt) reproduce the replayed reports byte for byte.

tests/data/replay_checksums.txt holds the SHA-256 of every English report.md and CSV
file a replay of the bundled recording writes, made with the versions constraints.txt
pins. A replay with other versions (a new pandas formats a number differently) or a
change to what the stages write makes this test fail and name the files. Where the
change is meant (a report's text, a new column), write the list again from a replay
made with the pinned versions and commit it with the change:
``python scripts/recording/replay_checksums.py RESULTS > tests/data/replay_checksums.txt``.
"""

import importlib.util
import re
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIST = ROOT / "tests" / "data" / "replay_checksums.txt"
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==(\S+)$")

_spec = importlib.util.spec_from_file_location(
    "replay_checksums", ROOT / "scripts" / "recording" / "replay_checksums.py"
)
assert _spec is not None and _spec.loader is not None
replay_checksums = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay_checksums)

pytestmark = pytest.mark.timeout(1800)  # the session's replay may be its setup


def pinned() -> dict[str, str]:
    """constraints.txt: package -> version."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        found = PIN.match(line.strip())
        if found:
            pins[found.group(1).lower().replace("_", "-")] = found.group(2)
    return pins


def recorded() -> dict[str, str]:
    """tests/data/replay_checksums.txt: path -> digest."""
    rows = [line.split("  ", 1) for line in LIST.read_text().splitlines() if line]
    return {path: digest for digest, path in rows}


def test_the_libraries_that_write_the_reports_are_pinned():
    pins = pinned()
    for name in ("pandas", "numpy", "matplotlib", "xhtml2pdf", "reportlab", "markdown"):
        assert name in pins, f"constraints.txt: {name} has no version"


def test_a_replay_with_the_pinned_versions_writes_the_recorded_bytes(
    every_family_replay,
):
    installed = {
        name: metadata.version(name)
        for name, version in pinned().items()
        if name in ("pandas", "numpy", "matplotlib")
    }
    wanted = {name: pinned()[name] for name in installed}
    assert installed == wanted, (
        f"installed {installed}, constraints.txt pins {wanted}: install with "
        "pip install -c constraints.txt -e '.[dev]'"
    )
    expected = recorded()
    families = {p.parent.name for p in (ROOT / "kernels").glob("*/family.yaml")}
    # every family's report and tables, not a stub
    assert {p.split("/")[1] for p in expected if p.endswith("/report.md")} == families
    got = replay_checksums.checksums(every_family_replay / "results")
    assert sorted(got) == sorted(expected), "the replay writes other files"
    changed = [path for path in expected if got[path] != expected[path]]
    assert not changed, f"{len(changed)} files differ from the pinned replay: {changed}"
