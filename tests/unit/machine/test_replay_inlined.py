"""Replay of an edited variant keeps the recorded call sites: they map the recorded reports."""

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from nsightflow.family.registry import load_family
from nsightflow.machine.replay import ReplayStages, replay_family

KERNELS = Path(__file__).resolve().parents[3] / "kernels"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_an_edited_variant_keeps_the_recorded_inlined_table(recording, tmp_path):
    kernels = tmp_path / "kernels"
    shutil.copytree(KERNELS / "histogram", kernels / "histogram")
    source = kernels / "histogram" / "v0_global_atomic.cu"
    source.write_text("// edited: every line one lower\n" + source.read_text())
    family = load_family(kernels / "histogram")
    only = {"v0_global_atomic": family.variants["v0_global_atomic"]}
    family = dataclasses.replace(family, variants=only)
    results = tmp_path / "results"
    done = replay_family(
        recording, family, results, ReplayStages(False, False), "sm_90"
    )
    assert done.changed == ["v0_global_atomic"] and done.refused == []
    written = json.loads(
        (results / "build/histogram/v0_global_atomic.resources.json").read_text()
    )
    recorded = json.loads(
        (recording / "build/histogram/v0_global_atomic.resources.json").read_text()
    )
    assert written["source_changed"]
    assert written["inlined"] == recorded["inlined"]
    # the recorded call site is line 13, of the source the reports measured
    assert [s[5] for s in recorded["inlined"]["sites"] if s[1] == "REDG"] == [13]
