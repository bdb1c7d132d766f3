"""Folders built once per test run, shared by pytest-xdist's worker processes."""

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def built_once(
    factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """A folder ``build`` fills once per test run, however many workers ask for it.

    With pytest-xdist every worker process has its own session, so a session fixture
    would be built once per worker; the folder lies beside the workers' own temporary
    folders instead, and the first worker to ask builds it under a lock while the
    others wait (a replay runs Snakemake on both cores: the wait costs no CPU). A
    build that failed leaves no marker: the next worker to ask builds it again.
    """
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, shared by its workers
    folder, done = root / name, root / f"{name}.built"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder
