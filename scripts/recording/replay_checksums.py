"""Print the SHA-256 of a replay's report.md and CSV files, one `digest  path` a line.

Usage: python scripts/recording/replay_checksums.py RESULTS > tests/data/replay_checksums.txt

RESULTS is a replay's results/ folder (`snakemake --cores all` on this recording with
the versions in constraints.txt). The paths are relative to RESULTS; the files are the
English reports' report.md, every CSV under report/ and analysis/. The test that reads
the list (tests/workflow/test_pinned_replay.py) says when to write it again.
"""

import hashlib
import sys
from pathlib import Path


def replay_files(results: Path) -> list[Path]:
    """The files whose bytes the pinned versions must reproduce, sorted."""
    found = list(results.glob("report/*/report.md"))
    found += results.glob("report/**/*.csv")
    found += results.glob("analysis/**/*.csv")
    return sorted(found)


def checksums(results: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file of :func:`replay_files`."""
    return {
        str(p.relative_to(results)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in replay_files(results)
    }


def main() -> None:
    results = Path(sys.argv[1])
    for path, digest in checksums(results).items():
        print(f"{digest}  {path}")


if __name__ == "__main__":
    main()
