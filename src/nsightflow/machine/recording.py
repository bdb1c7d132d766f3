"""Recordings: choosing replay, reading a recording's account, and making one.

A recording is a folder laid out like ``results/`` (``build/``, ``verify/``,
``time/``, ``profile/``, ``sanitize/``, ``sweep/``, ``timeline/``, ``ceilings.json``)
plus ``recording.json`` saying where and when it was measured. ``record``
(:mod:`nsightflow.machine.recorder`, importable from here) makes one from a results
folder without ever deleting measured data. Replay itself is
:mod:`nsightflow.machine.replay`; :func:`not_recorded` is what it writes for a
recorded file that is missing or refused.
"""

import os
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.errors import StageInputError
from nsightflow.io import read_recorded as read_recorded
from nsightflow.io import recording_for as recording_for
from nsightflow.io import write_json
from nsightflow.machine.capabilities import gpu_available
from nsightflow.machine.recorder import record as record
from nsightflow.outputs import PROFILE_FILES, remove_own
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


def not_recorded(
    output: Path, ident: tuple[str, str], message: str, recorded: Path
) -> None:
    """A stage output saying that the recording does not hold it, and why.

    Replay writes it for a recorded file that is missing or refused, so the report
    shows the variant as not recorded (``message``: the reason) instead of failing.
    """
    record = {
        col.FAMILY: ident[0],
        col.VARIANT: ident[1],
        col.STATUS: Status.NOT_RECORDED,
        col.MESSAGE: message,
        col.REPLAYED_FROM: str(recorded),
    }
    if output.suffix == ".json":
        write_json(output, record)
    elif output.suffix == ".csv":
        _empty_table(output)
    else:
        remove_own(output, PROFILE_FILES, "replay")
        output.mkdir(parents=True)
        write_json(output / "profile.json", {**record, "reports": []})


def _empty_table(output: Path) -> None:
    """The header of a recorded table the recording lacks (the timeline's)."""
    from nsightflow.contracts import TIMELINE

    output.parent.mkdir(parents=True, exist_ok=True)
    TIMELINE.write(TIMELINE.empty(), output)
