"""Run one GPU task in its own process with a time limit.

A kernel that faults (illegal address) poisons its CUDA context and one that never ends
holds the GPU: running each variant's GPU work in a child process turns both into a
recorded status (``crashed`` / ``timeout``) instead of a lost run.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from nsightflow.errors import GpuUnavailableError
from nsightflow.records import Status

TAIL = 4000  # characters of the child's stderr kept in the record


def run_task(task: str, spec: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """Run ``nsightflow.gpu.worker`` ``task`` on ``spec``; return its result or a failure.

    Returns:
        The worker's JSON result, or ``{"status": Status.CRASHED | "timeout", "message"}``.
    """
    with tempfile.TemporaryDirectory(prefix="nsightflow-") as tmp:
        spec_path = Path(tmp) / "spec.json"
        result_path = Path(tmp) / "result.json"
        spec_path.write_text(json.dumps(spec))
        argv = [
            sys.executable,
            "-m",
            "nsightflow.gpu.worker",
            task,
            str(spec_path),
            str(result_path),
        ]
        try:
            proc = subprocess.run(
                argv, capture_output=True, text=True, timeout=timeout_s, check=False
            )
        except subprocess.TimeoutExpired as exc:
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr
            return {
                "status": Status.TIMEOUT,
                "message": f"{task} did not finish within {timeout_s:g} s (config "
                f"{task}.timeout_s); the process was killed. {(err or '')[-TAIL:]}",
            }
        if result_path.is_file():
            result: dict[str, Any] = json.loads(result_path.read_text())
            if result["status"] == Status.ENVIRONMENT_ERROR:
                raise GpuUnavailableError(result["message"])
            result.setdefault("log", proc.stderr[-TAIL:])
            return result
        return {
            "status": Status.CRASHED,
            "message": f"{task} process exited with code {proc.returncode} and no "
            f"result:\n{proc.stderr[-TAIL:]}",
        }


def run_argv(argv: list[str], timeout_s: float) -> tuple[int | None, str]:
    """Run a tool that starts the worker itself (ncu, compute-sanitizer) with a limit.

    The tool and the processes it starts run in a session of their own, so a kernel
    that never ends is killed with its whole process group at the limit, not left
    spinning on the GPU behind a killed tool.

    Returns:
        The exit code (None when the limit was hit) and stdout + stderr.
    """
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out or ""
    return proc.returncode, out or ""
