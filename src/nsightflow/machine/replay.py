"""Replay of one family: every recorded GPU-stage output of its variants, in one job.

For each variant the recording's verify, time, profile, sanitizer and timeline
outputs are copied into ``results/`` (a missing one becomes a ``not_recorded``
record, as in :func:`~nsightflow.machine.recording.replay_file`). Compile resources
are taken from the recording when the variant's source and headers hash to what was
recorded; an edited variant is compiled again where nvcc exists and is flagged
``source_changed`` either way: its measurements are of the recorded source.
"""

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.errors import ManifestError
from nsightflow.family.registry import Family, Variant
from nsightflow.io import read_json, read_recorded, write_json
from nsightflow.machine.recording import replay_file
from nsightflow.tools.nvcc import compile_variant, source_digest


@dataclass(frozen=True)
class ReplayStages:
    """Which optional stages' outputs the run uses (config ``sanitize``/``timeline``)."""

    sanitize: bool = True
    timeline: bool = True
    sweep: frozenset[str] = frozenset()  # the swept variants (config `sweep`)


def variant_outputs(
    results: Path, family: str, variant: str, stages: ReplayStages
) -> list[Path]:
    """The files (and the profile folder) replay writes for one variant."""
    outputs = [
        results / "build" / family / f"{variant}.resources.json",
        results / "verify" / family / f"{variant}.json",
        results / "time" / family / f"{variant}.json",
        results / "profile" / family / variant,
    ]
    if stages.sanitize:
        outputs.append(results / "sanitize" / family / f"{variant}.json")
    if stages.timeline:
        outputs += [
            results / "timeline" / family / f"{variant}.json",
            results / "timeline" / family / f"{variant}.csv",
        ]
    if variant in stages.sweep:
        outputs.append(results / "sweep" / family / f"{variant}.json")
    return outputs


def replay_family(
    source: Path, family: Family, results: Path, stages: ReplayStages, arch: str
) -> list[str]:
    """Replay every variant of ``family``; return the names of edited variants."""
    changed = []
    for variant in family.variants.values():
        ident = (family.name, variant.name)
        outputs = variant_outputs(results, family.name, variant.name, stages)
        resources, *measured = outputs
        sweep = results / "sweep" / family.name / f"{variant.name}.json"
        if sweep in measured:  # first: an edited variant is compiled at its best
            measured.remove(sweep)
            replay_file(source / sweep.relative_to(results), sweep, ident)
            variant = _at_best(variant, sweep)
        if _replay_resources(source, variant, resources, arch):
            changed.append(variant.name)
        for output in measured:
            recorded = source / output.relative_to(results)
            replay_file(recorded, output, ident)
    return changed


def _at_best(variant: Variant, sweep: Path) -> Variant:
    """The variant at the best configuration of its (replayed) sweep record.

    The defaults when the record has no best, or names values the manifest no longer
    declares.
    """
    best = read_json(sweep).get("best")
    try:
        return variant.with_params(best["params"]) if best else variant
    except ManifestError:
        return variant


def _replay_resources(source: Path, variant: Variant, output: Path, arch: str) -> bool:
    """Write the variant's resources record; return whether its source changed."""
    recorded_path = source / "build" / variant.family / f"{variant.name}.resources.json"
    recorded = (
        read_recorded(recorded_path, stage_output=True)
        if recorded_path.is_file()
        else None
    )
    digest = source_digest(variant.source)
    if recorded is not None and recorded.get("source_sha256") == digest:
        replay_file(recorded_path, output)
        return False
    if shutil.which("nvcc") is not None:
        record = compile_variant(
            variant, arch, output.with_name(f"{variant.name}.cubin")
        )
    elif recorded is not None:
        record = {k: v for k, v in recorded.items() if k != "schema_version"}
    else:
        replay_file(recorded_path, output, (variant.family, variant.name))
        return False
    if recorded is not None:
        # the reports are of the recorded source: so are the call sites that map them
        record = {k: v for k, v in record.items() if k != "inlined"}
        if "inlined" in recorded:
            record["inlined"] = recorded["inlined"]
        record = {**record, **_changed_note(recorded_path, recorded)}
    write_json(output, record)
    return recorded is not None


def _changed_note(recorded_path: Path, recorded: dict[str, Any]) -> dict[str, Any]:
    revision = recorded.get("provenance", {}).get("kernels_git") or "?"
    return {
        "source_changed": True,
        "source_changed_note": (
            f"source changed since the recording ({recorded_path}, kernels revision "
            f"{revision}): the measurements are of the recorded source"
        ),
    }
