"""Keep every measurement: archive raw outputs before a run may overwrite them.

Snakemake deletes a job's outputs before re-running it. In measure mode the workflow
calls :func:`archive` at start, which hard-links (or copies) the raw GPU-stage outputs
under ``results/history/<time>/`` so a re-measurement never loses the previous one.
"""

import datetime as dt
import os
import shutil
from pathlib import Path

RAW = ("verify", "time", "profile", "timeline", "sanitize", "ceilings.json")


def archive(results: Path) -> Path | None:
    """Archive the raw outputs under ``results``; return the archive folder or None."""
    present = [results / name for name in RAW if (results / name).exists()]
    if not present:
        return None
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    target = results / "history" / stamp
    for path in present:
        if path.is_dir():
            shutil.copytree(path, target / path.name, copy_function=_link_or_copy)
        else:
            target.mkdir(parents=True, exist_ok=True)
            _link_or_copy(str(path), str(target / path.name))
    return target


def _link_or_copy(src: str, dst: str) -> str:
    try:
        os.link(src, dst)  # the same bytes, no extra space
    except OSError:
        shutil.copy2(src, dst)
    return dst
