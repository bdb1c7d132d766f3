"""Running the CLI in a child process, as a workflow rule does (shared by the tests)."""

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def nsightflow(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """``python -m nsightflow ARGS``: its exit status, stdout and stderr (not checked)."""
    return subprocess.run(
        [sys.executable, "-m", "nsightflow", *args],
        env=None if env is None else dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
