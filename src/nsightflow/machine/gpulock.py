"""One GPU job per GPU: a lock file per device, held for the life of the job's process.

``nsightflow gpu-lock [--devices ID...] [--lock-dir DIR] -- COMMAND...`` picks a free
device from the candidates, takes its lock (``fcntl.flock`` on
``<lock dir>/<host>-gpu-<id>.lock``), exports ``CUDA_VISIBLE_DEVICES=<id>`` and
``CUDA_DEVICE_ORDER=PCI_BUS_ID`` (so CUDA numbers devices as NVML and nvidia-smi do)
and replaces itself with the command. The lock belongs to the command's process and
goes with it, however it ends. Every GPU rule runs through it (``GPU_LOCK`` in
``workflow/rules/common.smk``), so on a workstation with several GPUs Snakemake may
run ``--resources gpu=<count>`` GPU jobs at once and no two share a device.

Candidates: the configured ids, else the ``CUDA_VISIBLE_DEVICES`` this process was
started with (SLURM sets it to the job's GPUs), else every GPU NVML sees. Under SLURM
the locks live in a folder of their own per job: SLURM already gives each job its
GPUs, so jobs never wait for each other's locks, while the rules of one allocation
(a local Snakemake inside ``salloc``) share its GPUs one at a time.
"""

import fcntl
import os
import re
import socket
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.errors import GpuUnavailableError

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_:/.-]*$")
POLL_S = 0.2


def visible_devices(env: Mapping[str, str]) -> list[str] | None:
    """The entries of ``CUDA_VISIBLE_DEVICES``, or None when it is unset."""
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return None
    return [d.strip() for d in value.split(",") if d.strip()]


def candidates(
    configured: Sequence[str], env: Mapping[str, str], nvml_count: int | None
) -> list[str]:
    """The device ids a GPU job may take, in order of preference (pure).

    Args:
        configured: ``gpus.devices`` of config.yaml (empty: automatic).
        env: The environment the job was started with.
        nvml_count: How many GPUs NVML sees here, None when NVML is unavailable.

    Raises:
        GpuUnavailableError: An id is malformed, or none of the configured ids is
            among the devices SLURM gave this job.
    """
    for device in configured:
        if not _ID.match(device):
            raise GpuUnavailableError(
                f"config.yaml: field gpus.devices (or --devices): {device!r} is not a "
                "device id "
                "(an index such as 0, or a GPU-/MIG- UUID)"
            )
    visible = visible_devices(env)
    if configured:
        if visible is None or "SLURM_JOB_ID" not in env:
            return list(configured)
        # Under SLURM, never take a GPU the job was not given.
        inside = [d for d in configured if d in visible]
        if not inside:
            raise GpuUnavailableError(
                f"config.yaml: field gpus.devices {list(configured)} names none of "
                f"the GPUs SLURM gave this job (CUDA_VISIBLE_DEVICES={','.join(visible)}"
                "): leave gpus.devices empty on a cluster"
            )
        return inside
    if visible is not None:
        if not visible:
            raise GpuUnavailableError(
                "CUDA_VISIBLE_DEVICES is set but empty: this job was given no GPU"
            )
        return visible
    return [str(i) for i in range(nvml_count or 1)]


def nvml_count() -> int | None:
    """How many GPUs NVML sees, or None without NVML."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return None
    try:
        return int(pynvml.nvmlDeviceGetCount())
    finally:
        pynvml.nvmlShutdown()


def nvml_handle(pynvml: Any) -> Any:
    """NVML handle of the GPU this process was given (its first visible device).

    A UUID is looked up as such; an index is NVML's index, which is CUDA's once
    ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` (set by :func:`run_locked`); without
    ``CUDA_VISIBLE_DEVICES``, device 0.
    """
    first = (visible_devices(os.environ) or ["0"])[0]
    if first.startswith(("GPU-", "MIG-")):
        return pynvml.nvmlDeviceGetHandleByUUID(first)
    return pynvml.nvmlDeviceGetHandleByIndex(int(first) if first.isdigit() else 0)


def gpu_info() -> dict[str, Any]:
    """GPU name, driver and CUDA driver version from NVML, or empty when absent."""
    try:
        import pynvml
    except ImportError:
        return {}
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return {}
    try:
        handle = nvml_handle(pynvml)  # the GPU this job was given
        cuda = pynvml.nvmlSystemGetCudaDriverVersion_v2()
        return {
            col.GPU: pynvml.nvmlDeviceGetName(handle),
            "driver": pynvml.nvmlSystemGetDriverVersion(),
            "cuda_driver": f"{cuda // 1000}.{cuda % 1000 // 10}",
        }
    finally:
        pynvml.nvmlShutdown()


def lock_dir(configured: str, env: Mapping[str, str]) -> Path:
    """Folder of the lock files: configured or the machine's temporary folder.

    Under SLURM a sub-folder per job (see the module docstring).
    """
    base = Path(configured) if configured else Path(tempfile.gettempdir())
    folder = base / "nsightflow-gpu-locks"
    if "SLURM_JOB_ID" in env and visible_devices(env) is not None:
        folder = folder / f"slurm-job-{env['SLURM_JOB_ID']}"
    return folder


def lock_path(folder: Path, device: str) -> Path:
    """The lock file of one device; the host name keeps a shared folder safe."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", device)
    return folder / f"{socket.gethostname()}-gpu-{safe}.lock"


def _open_lock(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    for folder in (path.parent, path.parent.parent):
        # Several users share one machine's GPUs: let everyone add lock files to
        # the folders this module names (sticky, like /tmp).
        if folder.name.startswith(("nsightflow-gpu-locks", "slurm-job-")):
            try:
                folder.chmod(0o1777)
            except PermissionError:
                pass  # made by another user, who opened it up already
    # Read-only is enough for flock, so a lock file another user made still opens.
    return os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)


def acquire(
    devices: Sequence[str], folder: Path, wait_s: float = 0.0
) -> tuple[str, int]:
    """Lock the first free device; wait (polling) while all are taken.

    Args:
        devices: Candidate ids, in order of preference.
        folder: Folder of the lock files.
        wait_s: Give up after this many seconds; 0 waits for as long as it takes.

    Returns:
        The device and the open file descriptor that holds its lock.

    Raises:
        GpuUnavailableError: ``wait_s`` passed with every device still taken.
    """
    start = time.monotonic()
    said = False
    while True:
        for device in devices:
            fd = _open_lock(lock_path(folder, device))
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return device, fd
        waited = time.monotonic() - start
        if wait_s and waited > wait_s:
            raise GpuUnavailableError(
                f"every GPU of {list(devices)} stayed busy for {wait_s:g} s "
                f"(locks in {folder})"
            )
        if not said:
            print(
                f"gpu-lock: GPUs {','.join(devices)} all busy; waiting",
                file=sys.stderr,
                flush=True,
            )
            said = True
        time.sleep(POLL_S)


def run_locked(
    argv: Sequence[str],
    configured: Sequence[str],
    configured_dir: str,
    wait_s: float = 0.0,
) -> None:
    """Take a device's lock and replace this process with ``argv`` on that device.

    Raises:
        GpuUnavailableError: No device could be locked (see :func:`acquire`).
    """
    if not argv:
        raise GpuUnavailableError("gpu-lock: no command given after --")
    env = dict(os.environ)
    if env.get("NSIGHTFLOW_GPU_LOCK"):  # started by a locked job: it holds a GPU
        os.execvpe(argv[0], list(argv), env)
    devices = candidates(configured, env, None if configured else nvml_count())
    folder = lock_dir(configured_dir, env)
    start = time.monotonic()
    device, fd = acquire(devices, folder, wait_s)
    print(
        f"gpu-lock: GPU {device} of {','.join(devices)} "
        f"(waited {time.monotonic() - start:.1f} s; lock {lock_path(folder, device)})",
        file=sys.stderr,
        flush=True,
    )
    os.set_inheritable(fd, True)  # the lock lives as long as the command
    env["CUDA_VISIBLE_DEVICES"] = device
    env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
    env["NSIGHTFLOW_GPU_LOCK"] = str(lock_path(folder, device))
    os.execvpe(argv[0], list(argv), env)


def lock_command(gpus: Mapping[str, Any]) -> list[str]:
    """The wrapper's argv prefix for config.yaml's ``gpus`` section (pure).

    Rules put it before their command (``{params.lock} python -m nsightflow ...``).
    """
    argv = ["python", "-m", "nsightflow", "gpu-lock"]
    devices = [str(d) for d in gpus.get("devices", [])]
    if devices:
        argv += ["--devices", *devices]
    if gpus.get("lock_dir"):
        argv += ["--lock-dir", str(gpus["lock_dir"])]
    return [*argv, "--"]
