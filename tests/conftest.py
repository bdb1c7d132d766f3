"""Markers that skip visibly where the GPU, ncu or SLURM is missing; shared fixtures."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nsightflow.machine.recording import gpu_available

ROOT = Path(__file__).resolve().parents[1]
RECORDING = ROOT / "examples" / "h200"
ON_GPU = ROOT / "tests" / "data" / "h200_gpu_reports"
# summary.csv columns that are shares of a ceiling (the rest comes from the raw files)
CEILING_SHARES = {"pct_of_copy_bw": "copy_gbps", "pct_of_fp32_peak": "fp32_gflops"}


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    gpu_ok, gpu_why = gpu_available()
    reasons = {
        "gpu": None if gpu_ok else f"no usable GPU: {gpu_why}",
        "ncu": None if shutil.which("ncu") and gpu_ok else "ncu or GPU missing",
        "slurm": None if shutil.which("sinfo") else "no SLURM (sinfo not on PATH)",
    }
    for item in items:
        for marker, reason in reasons.items():
            if reason and marker in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def recording() -> Path:
    """The bundled H200 recording; a missing recording fails, never skips."""
    assert (RECORDING / "recording.json").is_file(), f"{RECORDING} is missing"
    return RECORDING


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A copy of the workflow, kernels and recording: runs never touch the checkout."""
    for name in ("Snakefile", "config.yaml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    for name in ("workflow", "kernels", "profiles", "examples", ".test"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "tests" / "data" / "families", tmp_path / "families")
    return tmp_path


def _assert_same_as_on_gpu(replayed: Path, family: str) -> None:
    """A replayed summary.csv against the one the H200 wrote for ``family``.

    Every column computed from the raw files is identical to the byte. The shares of
    a ceiling follow the ceilings: the H200 run used ``ceilings.json`` stored beside its
    summary, replay uses the recording's, so those columns scale by the ratio.
    """
    ours = pd.read_csv(replayed, dtype=str, keep_default_na=False)
    gpu = pd.read_csv(ON_GPU / family / "summary.csv", dtype=str, keep_default_na=False)
    assert list(ours.columns) == list(gpu.columns), family
    raw = [c for c in gpu.columns if c not in CEILING_SHARES]
    pd.testing.assert_frame_equal(ours[raw], gpu[raw], obj=f"{family} summary.csv")
    used = json.loads((ON_GPU / family / "ceilings.json").read_text())
    recorded = json.loads((RECORDING / "ceilings.json").read_text())
    for column, ceiling in CEILING_SHARES.items():
        filled = gpu[column] != ""
        assert (filled == (ours[column] != "")).all(), (family, column)
        ratio = ours[column][filled].astype(float) / gpu[column][filled].astype(float)
        expected = used[ceiling] / recorded[ceiling]
        assert np.allclose(ratio, expected, rtol=1e-9), (family, column)


@pytest.fixture
def same_as_on_gpu():
    """Checks a replayed summary.csv against the H200's own (see the function)."""
    return _assert_same_as_on_gpu
