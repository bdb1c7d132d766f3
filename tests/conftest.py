"""Markers that skip visibly where the GPU, ncu or SLURM is missing; shared fixtures."""

import shutil
from pathlib import Path

import pytest

from nsightflow.replay import gpu_available

ROOT = Path(__file__).resolve().parents[1]
RECORDING = ROOT / "examples" / "h200"


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
