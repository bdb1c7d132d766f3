"""Replay: rebuild reports from recorded raw outputs instead of measuring.

A recording is a folder laid out like ``results/`` (``build/``, ``verify/``, ``time/``,
``profile/``, ``sanitize/``, ``ceilings.json``) plus ``recording.json`` saying where and when it was
measured. The GPU rules are swapped for rules that copy a recorded file into
``results/`` and stamp it with ``replayed_from``.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from nsightflow import SCHEMA_VERSION
from nsightflow.errors import StageInputError
from nsightflow.machine.provenance import read_json, write_json


def gpu_available() -> tuple[bool, str]:
    """Whether a CUDA GPU and pycuda are usable here, and why not."""
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


def choose_mode(mode: str, source: Path) -> tuple[str, str]:
    """Resolve ``auto`` into ``measure`` or ``replay``; return (mode, explanation).

    Raises:
        StageInputError: the mode (or ``NSIGHTFLOW_MODE``, which overrides it) is not
            one of :data:`MODES`, or replay was asked for without a recording.
    """
    override = checked_mode(os.environ.get("NSIGHTFLOW_MODE", ""), "NSIGHTFLOW_MODE")
    mode = override or checked_mode(mode, "config.yaml: field mode")
    if mode in ("measure", "auto"):
        ok, why = gpu_available()
        if ok:
            return "measure", f"measuring on {why}"
        if mode == "measure":
            # Not raised here: a dry run of the measurement DAG stays possible; the GPU
            # stages themselves fail with the same message.
            return "measure", (
                f"WARNING: config mode: measure, but no usable GPU here: "
                f"{why}. GPU jobs will fail; run `nsightflow doctor` for "
                "what is missing, or set mode: replay"
            )
        reason = f"no usable GPU here ({why})"
    else:
        reason = "config mode: replay"
    info = recording_info(source)
    return "replay", (
        f"{reason}: replaying the measurements recorded in {source} "
        f"({info.get('gpu', '?')}, {info.get('date', '?')})"
    )


MODES = ("auto", "measure", "replay")  # config.schema.yaml: mode


def checked_mode(value: str, where: str) -> str:
    """A mode (``auto``, ``measure``, ``replay``) or "" checked like the config key.

    Raises:
        StageInputError: the value is not one of :data:`MODES`, naming ``where``.
    """
    if value and value not in MODES:
        raise StageInputError(
            f"{where}: {value!r} is not one of {list(MODES)}; "
            + (
                "unset it, or set one of them (it overrides config key mode)"
                if where == "NSIGHTFLOW_MODE"
                else "choose one of them"
            )
        )
    return value


def read_recorded(path: Path, stage_output: bool = False) -> dict[str, Any]:
    """One JSON file of a recording: every recorded JSON is read through here.

    Args:
        path: ``recording.json`` or a recorded stage output.
        stage_output: Also check its ``schema_version`` (a stage wrote it).

    Raises:
        StageInputError: the file is missing, unreadable, not JSON, not an object or
            of another schema version, naming the file and the fix.
    """
    fix = "restore it from a copy of the recording, or record again"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise StageInputError(f"{path}: missing from the recording; {fix}") from exc
    except json.JSONDecodeError as exc:
        raise StageInputError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}); the file is corrupt or truncated: {fix}"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise StageInputError(f"{path}: cannot be read ({exc}); {fix}") from exc
    if not isinstance(data, dict):
        raise StageInputError(
            f"{path}: holds a JSON {type(data).__name__}, not an object; {fix}"
        )
    if stage_output and data.get("schema_version") != SCHEMA_VERSION:
        raise StageInputError(
            f"{path}: field schema_version is {data.get('schema_version')!r}, "
            f"expected {SCHEMA_VERSION}; record it again with this version"
        )
    return data


def recording_info(source: Path) -> dict[str, Any]:
    """``recording.json`` of a recording folder.

    Raises:
        StageInputError: the folder or its ``recording.json`` is missing or corrupt.
    """
    path = source / "recording.json"
    if not path.is_file():
        raise StageInputError(
            f"{path}: missing; config `source` must name a recording folder: the "
            "bundled examples/h200, or one made on a GPU machine with `nsightflow "
            "record --results results --out DIR`"
        )
    return read_recorded(path)


def replay_file(
    recorded: Path, output: Path, ident: tuple[str, str] | None = None
) -> None:
    """Copy one recorded stage output (file or profile folder) into results/.

    A variant the recording does not hold (added after it was made) becomes a
    ``not_recorded`` record, shown in the report, instead of failing the run.
    """
    if not recorded.exists():
        if ident is None:
            raise StageInputError(f"{recorded}: not in the recording; re-record it")
        record = {
            "family": ident[0],
            "variant": ident[1],
            "status": "not_recorded",
            "message": f"{recorded} is not in the recording: measure this variant on "
            "a GPU machine (config mode: measure) and record again",
            "replayed_from": str(recorded),
        }
        if output.suffix == ".json":
            write_json(output, record)
        elif output.suffix == ".csv":
            _empty_table(output)
        else:
            output.mkdir(parents=True, exist_ok=True)
            write_json(output / "profile.json", {**record, "reports": []})
        return
    if recorded.is_dir():
        if output.exists():
            shutil.rmtree(output)
        shutil.copytree(recorded, output)
        meta = output / "profile.json"
        if meta.is_file():
            write_json(meta, _stamp(read_recorded(meta, stage_output=True), recorded))
        return
    if recorded.suffix == ".csv":  # a table: copied as is, its JSON record is stamped
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(recorded, output)
        return
    data = read_recorded(recorded, stage_output=True)
    write_json(output, _stamp(data, recorded))


def _empty_table(output: Path) -> None:
    """The header of a recorded table the recording lacks (the timeline's)."""
    from nsightflow.gpu.timeline import empty_table

    output.parent.mkdir(parents=True, exist_ok=True)
    empty_table().to_csv(output, index=False)


def _stamp(data: dict[str, Any], recorded: Path) -> dict[str, Any]:
    data = {k: v for k, v in data.items() if k != "schema_version"}
    data["replayed_from"] = str(recorded)
    return data


RECORDED = (
    "build/*/*.resources.json",
    "verify/*/*.json",
    "time/*/*.json",
    "profile/*/*/*.ncu-rep",
    "profile/*/*/profile.json",
    "timeline/*/*.json",
    "timeline/*/*.csv",
    "sanitize/*/*.json",
    "ceilings.json",
)


def timeline_info(traced: dict[str, Any], command: str) -> dict[str, Any]:
    """``recording.json``'s ``timeline`` entry: how and where the traces were made."""
    prov = traced.get("provenance", {})
    keys = ("gpu", "driver", "cuda_driver", "date", "kernels_git")
    return {
        **{k: prov.get(k) for k in keys},
        "backend": traced.get("backend"),
        "backend_note": traced.get("backend_note"),
        "command": command,
    }


def record(results: Path, out: Path, command: str, add: bool = False) -> dict[str, Any]:
    """Copy the raw outputs of the GPU stages from ``results`` into a recording folder.

    Writes ``recording.json`` (GPU, driver, CUDA, nvcc, ncu, clock control, date, git
    revision, the command) from the provenance the stages stamped into their files.
    Cubins and derived tables are left out: replay rebuilds them.

    With ``add``, ``out`` is an existing recording that gains these outputs (a
    later run of some families or stages): its ``recording.json`` keeps its own
    account and lists this run under ``additions``, naming every file it replaced.
    """
    if add and not (out / "recording.json").is_file():
        raise StageInputError(f"{out}: not a recording (no recording.json) to add to")
    if not add and out.exists() and any(out.iterdir()):
        raise StageInputError(
            f"{out}: exists and is not empty; recordings are never "
            "overwritten, choose a new folder or remove it yourself"
        )
    files = sorted({p for pattern in RECORDED for p in results.glob(pattern)})
    if not files:
        raise StageInputError(f"{results}: no stage outputs to record")
    replaced = [
        str(p.relative_to(results))
        for p in files
        if (out / p.relative_to(results)).exists()
    ]
    for path in files:
        target = out / path.relative_to(results)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    info = _recording_info(results, command)
    if add:
        main = read_recorded(out / "recording.json")
        folders = sorted({"/".join(f.relative_to(results).parts[:2]) for f in files})
        main.setdefault("additions", []).append(
            {**info, "folders": folders, "files": len(files), "replaced": replaced}
        )
        info = main
    (out / "recording.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def _recording_info(results: Path, command: str) -> dict[str, Any]:
    """Where and how the outputs under ``results`` were measured."""
    stamped = [
        next(iter(sorted(results.glob(f"{stage}/*/*.json"))), None)
        for stage in ("time", "sanitize", "verify", "timeline")
    ]
    first = next((path for path in stamped if path is not None), None)
    prof = next(iter(sorted(results.glob("profile/*/*/profile.json"))), None)
    t = read_json(first).get("provenance", {}) if first else {}
    p = read_json(prof) if prof else {}
    info = {
        "gpu": t.get("gpu"),
        "driver": t.get("driver"),
        "cuda_driver": t.get("cuda_driver"),
        "nvcc": t.get("nvcc"),
        "ncu": p.get("provenance", {}).get("ncu"),
        "clock_control": p.get("settings", {}).get("clock_control"),
        "ncu_set": p.get("settings", {}).get("set"),
        "date": t.get("date"),
        "kernels_git": t.get("kernels_git"),
        "command": command,
        "families": sorted(
            {
                f.parent.name
                for st in ("verify", "sanitize", "timeline")
                for f in results.glob(f"{st}/*/*.json")
            }
        ),
    }
    traced = next(iter(sorted(results.glob("timeline/*/*.json"))), None)
    if traced is not None:
        info["timeline"] = timeline_info(read_json(traced), command)
    return info


def recording_for(info: dict[str, Any], family: str | None) -> dict[str, Any]:
    """The account of the run a family's timings come from.

    The recording's own, or that of the latest addition holding ``time/<family>``.
    """
    base = {k: v for k, v in info.items() if k != "additions"}
    for addition in reversed(info.get("additions", [])):
        if f"time/{family}" in addition.get("folders", []):
            keep = {
                k: v for k, v in addition.items() if k not in ("replaced", "folders")
            }
            return {**base, **keep}
    return base
