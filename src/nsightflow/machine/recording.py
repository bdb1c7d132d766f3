"""Replay: rebuild reports from recorded raw outputs instead of measuring.

A recording is a folder laid out like ``results/`` (``build/``, ``verify/``, ``time/``,
``profile/``, ``sanitize/``, ``sweep/``, ``ceilings.json``) plus ``recording.json`` saying where and when it was
measured. The GPU rules are swapped for rules that copy a recorded file into
``results/`` and stamp it with ``replayed_from``.
"""

import json
import os
import shutil
from pathlib import Path
from typing import Any

from nsightflow.errors import StageInputError
from nsightflow.io import read_json, write_json
from nsightflow.io import read_recorded as read_recorded
from nsightflow.io import recording_for as recording_for
from nsightflow.machine.capabilities import gpu_available
from nsightflow.records import Status


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
            "record --results results --out DIR` (scripts/gpu/run.sh, phase record, "
            "runs both), or copied back from a cluster run"
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
            "status": Status.NOT_RECORDED,
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
            data = read_recorded(meta, stage_output=True)
            _copy_shared_reports(data, recorded, output)
            write_json(meta, _stamp(data, recorded))
        return
    if recorded.suffix == ".csv":  # a table: copied as is, its JSON record is stamped
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(recorded, output)
        return
    data = read_recorded(recorded, stage_output=True)
    write_json(output, _stamp(data, recorded))


def _copy_shared_reports(meta: dict[str, Any], recorded: Path, output: Path) -> None:
    """Copy the reports a variant shares with its family (``../<file>``) once."""
    for name in {e.get("file", "") for e in meta.get("reports", [])}:
        if not name.startswith("../"):
            continue
        source, target = recorded / name, output / name
        if not source.is_file():
            raise StageInputError(
                f"{recorded / 'profile.json'}: names {name}, which the recording "
                "lacks; re-record this family"
            )
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def _empty_table(output: Path) -> None:
    """The header of a recorded table the recording lacks (the timeline's)."""
    from nsightflow.tables import TIMELINE

    output.parent.mkdir(parents=True, exist_ok=True)
    TIMELINE.empty().to_csv(output, index=False)


def _stamp(data: dict[str, Any], recorded: Path) -> dict[str, Any]:
    data = {k: v for k, v in data.items() if k != "schema_version"}
    data["replayed_from"] = str(recorded)
    return data


RECORDED = (
    "build/*/*.resources.json",
    "verify/*/*.json",
    "time/*/*.json",
    "profile/*/*.ncu-rep",
    "profile/*/*/*.ncu-rep",
    "profile/*/*/profile.json",
    "timeline/*/*.json",
    "timeline/*/*.csv",
    "sanitize/*/*.json",
    "sweep/*/*.json",
    "ceilings.json",
)


def _stale_profiles(results: Path, out: Path, files: list[Path]) -> list[str]:
    """Remove the recorded reports of the variant folders this addition re-profiles.

    The new ``profile.json`` names only the new run's reports; an older report left
    in the folder would be read by nothing and mislead a reader. Returns their paths
    (the recording's history in git keeps them).
    """
    removed = []
    folders = {f.parent for f in files if f.name == "profile.json"}
    for folder in folders:
        recorded = out / folder.relative_to(results)
        for old in sorted(recorded.glob("*.ncu-rep")):
            if not (folder / old.name).exists():
                old.unlink()
                removed.append(str(old.relative_to(out)))
    return removed


def _unreferenced_reports(out: Path) -> list[str]:
    """Remove shared family reports that no recorded ``profile.json`` names."""
    named = set()
    for meta in out.glob("profile/*/*/profile.json"):
        for entry in read_recorded(meta, stage_output=True).get("reports", []):
            if entry.get("file"):
                named.add(os.path.normpath(meta.parent / entry["file"]))
    removed = []
    for report in sorted(out.glob("profile/*/*.ncu-rep")):
        if os.path.normpath(report) not in named:
            report.unlink()
            removed.append(str(report.relative_to(out)))
    return removed


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
    removed = _stale_profiles(results, out, files) if add else []
    for path in files:
        target = out / path.relative_to(results)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    removed += _unreferenced_reports(out)
    info = _recording_info(results, command)
    if add:
        main = read_recorded(out / "recording.json")
        folders = sorted({"/".join(f.relative_to(results).parts[:2]) for f in files})
        main.setdefault("additions", []).append(
            {
                **info,
                "folders": folders,
                "files": len(files),
                "replaced": replaced,
                "removed": removed,
            }
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
    p = read_json(prof) if prof else {}
    # an addition of profiles alone: the profiles' own provenance names GPU and date
    t = read_json(first).get("provenance", {}) if first else p.get("provenance", {})
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
            | {f.parent.parent.name for f in results.glob("profile/*/*/profile.json")}
        ),
    }
    traced = next(iter(sorted(results.glob("timeline/*/*.json"))), None)
    if traced is not None:
        info["timeline"] = timeline_info(read_json(traced), command)
    return info
