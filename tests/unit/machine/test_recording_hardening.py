"""Replay set-up. Every recording file read through one loader that
names it; hints name what exists; the mode variable validated like the config key;
sizes missing from a recording are `not_recorded` rows in report and summary alike."""

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from nsightflow.cli import build_parser
from nsightflow.errors import StageInputError
from nsightflow.machine.recording import (
    MODES,
    choose_mode,
    read_recorded,
    record,
    recording_info,
)
from nsightflow.machine.replay import replay_file
from nsightflow.report.build import write_report
from recorded import analyze as _analyze

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"gpu": "NVIDIA H200", "date": ', "not valid JSON (line 1, column 32"),
        ("", "not valid JSON (line 1, column 1"),
        ("[1, 2]", "holds a JSON list, not an object"),
        (b"\xff\xfe{", "cannot be read"),
    ],
)
def test_a_corrupt_recording_json_names_the_file(tmp_path, monkeypatch, content, words):
    monkeypatch.delenv("NSIGHTFLOW_MODE", raising=False)
    path = tmp_path / "recording.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(StageInputError) as info:
        choose_mode("replay", tmp_path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and words in message
    assert "restore it from a copy of the recording, or record again" in message


def test_a_corrupt_recorded_stage_output_is_not_recorded_naming_the_file(
    recording, tmp_path
):
    bad = tmp_path / "rec/time/jacobi2d/v0_naive.json"
    bad.parent.mkdir(parents=True)
    text = (recording / "time/jacobi2d/v0_naive.json").read_text()
    bad.write_text(text[: len(text) // 2])  # truncated copy
    out = tmp_path / "out.json"
    refusal = replay_file(bad, out, ("jacobi2d", "v0_naive"))
    assert refusal is not None
    assert re.match(rf"^{re.escape(str(bad))}: not valid JSON", refusal)
    written = json.loads(out.read_text())
    assert written["status"] == "not_recorded" and written["message"] == refusal
    with pytest.raises(StageInputError, match=r"not valid JSON"):
        replay_file(bad, out)  # without a variant to mark: an error


def test_a_corrupt_profile_json_in_a_recorded_folder_names_the_file(
    recording, tmp_path
):
    folder = tmp_path / "rec/profile/jacobi2d/v0_naive"
    shutil.copytree(recording / "profile/jacobi2d/v0_naive", folder)
    (folder / "profile.json").write_text("{")
    out = tmp_path / "out"
    refusal = replay_file(folder, out, ("jacobi2d", "v0_naive"))
    assert refusal and re.search(r"profile\.json: not valid JSON", refusal)
    written = json.loads((out / "profile.json").read_text())
    assert written["status"] == "not_recorded" and written["reports"] == []
    assert not list(out.glob("*.ncu-rep"))


def test_record_add_to_a_corrupt_recording_names_it(recording, tmp_path):
    out = tmp_path / "rec"
    out.mkdir()
    (out / "recording.json").write_text("{oops")
    results = tmp_path / "results"
    shutil.copytree(recording / "time", results / "time")
    with pytest.raises(StageInputError, match=r"rec/recording\.json: not valid JSON"):
        record(results, out, "snakemake", add=True)


def test_the_missing_recording_hint_names_what_exists(tmp_path):
    with pytest.raises(StageInputError) as info:
        recording_info(tmp_path / "nowhere")
    message = str(info.value)
    for path in re.findall(r"\b(?:scripts|examples|src)/[\w./-]+", message):
        assert (ROOT / path.rstrip(".")).exists(), path
    assert "examples/h200" in message
    command = re.search(r"`nsightflow (\w+)([^`]*)`", message)
    assert command, message
    parsed = build_parser().parse_args([command.group(1), *command.group(2).split()])
    assert parsed.out == Path("DIR")


@pytest.mark.parametrize("value", ["bogus", "REPLAY", "measure "])
def test_the_mode_variable_is_validated_like_the_config_key(
    recording, monkeypatch, value
):
    monkeypatch.setenv("NSIGHTFLOW_MODE", value)
    with pytest.raises(StageInputError) as info:
        choose_mode("auto", recording)
    message = str(info.value)
    assert message.startswith(f"NSIGHTFLOW_MODE: {value!r} is not one of")
    assert str(list(MODES)) in message


def test_modes_are_those_of_the_config_schema():
    import yaml

    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    assert tuple(schema["properties"]["mode"]["enum"]) == MODES


def test_a_valid_mode_variable_still_overrides(recording, monkeypatch):
    monkeypatch.setenv("NSIGHTFLOW_MODE", "replay")
    mode, why = choose_mode("measure", recording)
    assert mode == "replay" and str(recording) in why


def test_read_recorded_checks_the_schema_version_of_stage_outputs(tmp_path):
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"schema_version": 0, "variant": "v0"}))
    assert read_recorded(path)["variant"] == "v0"
    with pytest.raises(StageInputError, match="field schema_version: 0, expected 1"):
        read_recorded(path, stage_output=True)


def test_a_size_missing_from_the_recording_is_a_not_recorded_row(recording, tmp_path):
    """The sweep gained n = 16384 after the recording: report and summary say so."""
    partial = tmp_path / "rec"
    for sub in ("build", "verify", "profile"):
        shutil.copytree(recording / sub / "jacobi2d", partial / sub / "jacobi2d")
    shutil.copy(recording / "ceilings.json", partial / "ceilings.json")
    shutil.copy(recording / "recording.json", partial / "recording.json")
    for timing in (recording / "time/jacobi2d").glob("*.json"):
        data = json.loads(timing.read_text())
        data["rows"] = [r for r in data["rows"] if r["size"] != 16384]
        target = partial / "time/jacobi2d" / timing.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(data))
    analysis = _analyze(partial, "jacobi2d", tmp_path)
    out = tmp_path / "report"
    (out / "figures").mkdir(parents=True)
    write_report(analysis, out / "figures", out)
    summary = pd.read_csv(out / "summary.csv")
    missing = summary[summary["size"] == 16384]
    assert len(missing) == summary["variant"].nunique()
    assert set(missing["status"]) == {"not_recorded"}
    assert missing["time_median_us"].isna().all()
    assert set(summary[summary["size"] == 8192]["status"]) == {"ok"}
    md = (out / "report.md").read_text()
    row = next(ln for ln in md.splitlines() if re.match(r"\|\s+16384 \|", ln))
    assert row.count("not recorded") == summary["variant"].nunique()
    row_8192 = next(ln for ln in md.splitlines() if re.match(r"\|\s+8192 \|", ln))
    recorded = json.loads((recording / "time/jacobi2d/v4_vec4.json").read_text())
    median = next(r for r in recorded["rows"] if r["size"] == 8192)["time_median_us"]
    assert f"{median:,.2f}" in row_8192  # the recorded median, still there
