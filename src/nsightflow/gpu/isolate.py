"""Run one GPU task in its own process with a time limit.

A kernel that faults (illegal address) poisons its CUDA context and one that never ends
holds the GPU: running each variant's GPU work in a child process turns both into a
recorded status (``crashed`` / ``timeout``) instead of a lost run.
"""

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
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
                col.STATUS: Status.TIMEOUT,
                col.MESSAGE: f"{task} did not finish within {timeout_s:g} s (config "
                f"{task}.timeout_s); the process was killed. {(err or '')[-TAIL:]}",
            }
        if result_path.is_file():
            result: dict[str, Any] = json.loads(result_path.read_text())
            if result[col.STATUS] == Status.ENVIRONMENT_ERROR:
                raise GpuUnavailableError(result[col.MESSAGE])
            result.setdefault("log", proc.stderr[-TAIL:])
            return result
        return {
            col.STATUS: Status.CRASHED,
            col.MESSAGE: f"{task} process exited with code {proc.returncode} and no "
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


def run_phases(
    task: str, spec: dict[str, Any], limits: dict[str, float]
) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
    """Run a phased worker task (``measure``); each phase gets its own time limit.

    The worker says ``ready`` and then each phase's name on a pipe as it finishes
    (:mod:`nsightflow.gpu.worker`); a phase's limit counts from the end of the one
    before (the first's from the start, so start-up counts against it).

    Args:
        task: the worker task.
        spec: its spec.
        limits: seconds per phase, in the order the worker runs them.

    Returns:
        The result of each phase that finished and of the one that crashed or timed
        out (``crashed`` / ``timeout``; the phases after it are absent: the caller may
        run them in a fresh process), and the seconds each took (``start``: until
        the worker was ready).

    Raises:
        GpuUnavailableError: the worker found a problem of the machine, not the variant.
    """
    with tempfile.TemporaryDirectory(prefix="nsightflow-") as tmp:
        spec_path, result = Path(tmp) / "spec.json", Path(tmp) / "result.json"
        spec_path.write_text(json.dumps(spec))
        read_fd, write_fd = os.pipe()
        argv = [sys.executable, "-m", "nsightflow.gpu.worker", task, str(spec_path)]
        with (Path(tmp) / "log.txt").open("w+") as log:
            proc = subprocess.Popen(
                [*argv, str(result), str(write_fd)],
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd,),
                start_new_session=True,
            )
            os.close(write_fd)
            finished, seconds, failure = _follow(proc, read_fd, limits)
            proc.wait()
            log.seek(0)
            tail = log.read()[-TAIL:]
        results = {
            phase: json.loads(Path(f"{result}.{phase}").read_text())
            for phase in finished
        }
        final = json.loads(result.read_text()) if result.is_file() else {}
    if final.get(col.STATUS) == Status.ENVIRONMENT_ERROR:
        raise GpuUnavailableError(final[col.MESSAGE])
    if failure is not None and not (failure[1] == "eof" and final):
        # EOF with a final result: the worker chose to stop (a failed verification)
        phase, status = failure
        results[phase] = _failed(task, phase, status, limits[phase], proc, tail)
    for value in results.values():
        value.setdefault("log", tail)
    return results, seconds


def _follow(
    proc: subprocess.Popen[Any], fd: int, limits: dict[str, float]
) -> tuple[list[str], dict[str, float], tuple[str, str] | None]:
    """Read the worker's phase names until it ends (EOF) or a phase's limit passes.

    Returns the phases finished, their seconds, and (phase, ``timeout`` or ``eof``)
    when the worker stopped before the last phase.
    """
    finished: list[str] = []
    seconds: dict[str, float] = {}
    buffer, mark = b"", time.monotonic()
    start = mark  # of the phase in progress's limit; start-up counts against the first
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while len(finished) < len(limits):
            current = next(p for p in limits if p not in finished)
            left = limits[current] - (time.monotonic() - start)
            ready, _, _ = select.select([pipe], [], [], max(left, 0.0))
            if not ready:
                os.killpg(proc.pid, signal.SIGKILL)
                return finished, seconds, (current, Status.TIMEOUT)
            chunk = pipe.read(4096)
            if not chunk:
                return finished, seconds, (current, "eof")
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                now = time.monotonic()
                name = "start" if line == b"ready" else line.decode()
                seconds[name], mark = round(now - mark, 3), now
                if name != "start":
                    finished.append(name)
                    start = now
        return finished, seconds, None


def _failed(
    task: str,
    phase: str,
    status: str,
    limit: float,
    proc: subprocess.Popen[Any],
    tail: str,
) -> dict[str, Any]:
    if status == Status.TIMEOUT:
        return {
            col.STATUS: Status.TIMEOUT,
            col.MESSAGE: f"{phase} did not finish within {limit:g} s (config "
            f"{phase}.timeout_s); the process was killed. {tail}",
        }
    return {
        col.STATUS: Status.CRASHED,
        col.MESSAGE: f"{task} process exited with code {proc.returncode} during "
        f"{phase} and left no result:\n{tail}",
    }
