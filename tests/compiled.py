"""Shared test helper: what nvcc builds for a test kernel, as compiler facts.

On pytest's path (pyproject `pythonpath = ["tests"]`): `from compiled import built`.
The source is compiled as the compile stage does it (nvcc sm_90 -O3 -lineinfo, ptxas
-v) and its SASS read back with nvdisasm; nothing runs on a GPU.
"""

import shutil
import subprocess
from dataclasses import asdict
from pathlib import Path

import pytest

from nsightflow.tools.compiler_facts import CompilerFacts, cubin_sass, facts
from nsightflow.tools.nvcc import parse_ptxas
from nsightflow.tools.nvdisasm import find_nvdisasm

NVDISASM = find_nvdisasm()
NVCC = ("nvcc", "-arch=sm_90", "-cubin", "-O3", "-lineinfo", "-Xptxas", "-v")
needs_toolkit = pytest.mark.skipif(
    shutil.which("nvcc") is None or NVDISASM is None, reason="needs nvcc and nvdisasm"
)


def built(source: Path, tmp_path: Path) -> CompilerFacts:
    """The facts of the one kernel in ``source``."""
    cubin = tmp_path / f"{source.parent.name}_{source.stem}.cubin"
    done = subprocess.run(
        [*NVCC, "-o", str(cubin), str(source)],
        capture_output=True,
        text=True,
        check=True,
    )
    (resources,) = parse_ptxas(done.stdout + done.stderr)
    assert NVDISASM is not None
    (sass,) = cubin_sass(cubin, NVDISASM).values()
    return facts(sass, asdict(resources))
