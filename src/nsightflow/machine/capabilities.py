"""What this machine can do: GPU, compute-sanitizer, nsys, CUPTI.

Each probe runs once per process (cached): the workflow asks for the GPU when it is
parsed, ``doctor`` for everything, the stages for what they need, and no probe is
repeated. Nothing here starts GPU work.
"""

import importlib.util
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

# Inherited by the processes this one starts (Snakemake's jobs parse the workflow
# again): the answer of the first probe, "1 <what was found>" or "0 <why not>".
GPU_PROBE_ENV = "NSIGHTFLOW_GPU_PROBE"


@cache
def gpu_available() -> tuple[bool, str]:
    """Whether a CUDA GPU and pycuda are usable here, and why not (probed once)."""
    known = os.environ.get(GPU_PROBE_ENV, "")
    if known[:2] in ("1 ", "0 "):
        return known[0] == "1", known[2:]
    ok, found = _probe_gpu()
    os.environ[GPU_PROBE_ENV] = f"{int(ok)} {found}"
    return ok, found


def _probe_gpu() -> tuple[bool, str]:
    try:
        import pycuda  # noqa: F401
    except ImportError:
        return False, "pycuda is not installed (pip install -e '.[gpu]')"
    if shutil.which("nvidia-smi") is None and not Path("/dev/nvidia0").exists():
        return False, "no NVIDIA driver or device found"
    try:
        out = subprocess.run(
            ["nvidia-smi", "-L"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"nvidia-smi failed: {exc}"
    if out.returncode != 0 or "GPU" not in out.stdout:
        return (
            False,
            f"nvidia-smi lists no GPU: {(out.stdout + out.stderr).strip()[:200]}",
        )
    return True, out.stdout.strip().splitlines()[0]


SANITIZER_FIX = (
    "compute-sanitizer comes with the CUDA toolkit: add its bin/ folder to PATH, "
    "or set sanitize.enabled: false"
)


def sanitizer_available() -> tuple[bool, str]:
    """Whether ``compute-sanitizer`` is on PATH (the sanitize stage's first check).

    Whether it supports the device shows only on a real run; the stage records
    that failure with its message.
    """
    path = shutil.which("compute-sanitizer")
    if path is None:
        return False, "compute-sanitizer not on PATH"
    return True, path


def nsys_can_write_reports() -> tuple[bool, str]:
    """Whether ``nsys`` here can write a ``.nsys-rep`` report, and what was found.

    A tiny ``nsys profile`` of ``true`` is the probe: nsys can be missing, or present
    but unable to import its own capture (it then leaves a ``.qdstrm`` and no
    ``.nsys-rep``, as the Nsight Systems inside Nsight Compute does on the H200 here).
    Timeline stages call this once and carry on without nsys when it says no.

    Returns:
        (True, what it wrote) or (False, why not, with what it left behind).
    """
    nsys = shutil.which("nsys")
    if nsys is None:
        return False, "nsys not on PATH"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "probe"
        argv = [nsys, "profile", "--trace=none", "--sample=none", "-o", str(out)]
        try:
            proc = subprocess.run(
                [*argv, "true"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
                cwd=tmp,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"{nsys} profile failed: {exc}"
        if out.with_suffix(".nsys-rep").is_file():
            return True, f"{nsys} writes .nsys-rep reports"
        leftovers = sorted(p.name for p in Path(tmp).iterdir())
        said = (proc.stdout + proc.stderr).strip().splitlines()
        return False, (
            f"{nsys} profile wrote {', '.join(leftovers) or 'nothing'} but no "
            f".nsys-rep (exit {proc.returncode}"
            + (f": {said[-1][:200]}" if said else "")
            + "): it cannot turn its capture into a report here"
        )


def cupti_check() -> tuple[bool, str]:
    """Whether ``cupti-python`` imports here (it loads libcupti)."""
    if importlib.util.find_spec("cupti") is None:
        return False, "cupti-python is not installed (pip install cupti-python)"
    try:
        from cupti import cupti  # noqa: F401
    except (ImportError, OSError) as exc:
        return False, f"cupti-python does not load: {exc}"
    return True, "cupti-python loads"
