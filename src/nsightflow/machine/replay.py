"""Replay: rebuild reports from recorded raw outputs instead of measuring.

A recording is a folder laid out like ``results/`` (``build/``, ``verify/``, ``time/``,
``profile/``, ``sanitize/``, ``sweep/``, ``timeline/``, ``ceilings.json``) plus
``recording.json``. The GPU rules are swapped for one job per family that copies
each variant's recorded outputs into ``results/``, stamped with ``replayed_from``.

A recording is untrusted input: every file is read through :mod:`nsightflow.untrusted`
(inside the recording, no link followed, each record checked against its schema and
against the variant whose place it sits in), and a profile's reports must hold the
kernels the manifest declares for the variant. A file that is refused leaves that
output of the variant ``not_recorded``, its message the one-line refusal naming the
file and the field; a file that is missing (a variant added after the recording)
does the same with the hint to measure it. The other variants replay as recorded.

Compile resources are taken from the recording when the variant's source and
headers hash to what was recorded; an edited variant is compiled again where nvcc
exists and is flagged ``source_changed`` either way: its measurements are of the
recorded source.
"""

import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.contracts.layout import Layout
from nsightflow.errors import ManifestError, ReportParseError, StageInputError
from nsightflow.family.registry import Family, Variant
from nsightflow.io import read_json, write_json
from nsightflow.machine.recording import not_recorded
from nsightflow.outputs import (
    PROFILE_FILES,
    Output,
    check_no_link,
    check_output,
    remove_own,
    write_atomic,
)
from nsightflow.tools.nvcc import compile_variant, source_digest
from nsightflow.untrusted import (
    MissingRecord,
    RecordError,
    Tree,
    check_table,
    identify,
    profile_reports,
    read_record,
)

MAX_TABLE_BYTES = 1 << 30  # a timeline table: 100 MB would be a million activities


@dataclass(frozen=True)
class ReplayStages:
    """Which optional stages' outputs the run uses (config ``sanitize``/``timeline``)."""

    sanitize: bool = True
    timeline: bool = True
    sweep: frozenset[str] = frozenset()  # the swept variants (config `sweep`)


@dataclass
class Replayed:
    """What a family's replay did besides copying.

    Attributes:
        changed: Variants whose source changed since the recording.
        refused: One line per recorded file refused (its output is ``not_recorded``).
    """

    changed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def note(self, refusal: str | None) -> None:
        """Keep a refusal :func:`replay_file` returned."""
        if refusal:
            self.refused.append(refusal)


def variant_outputs(
    results: Path, family: str, variant: str, stages: ReplayStages
) -> list[Path]:
    """The files (and the profile folder) replay writes for one variant."""
    names = ["resources", "verify", "time", "profile"]
    names += ["sanitize"] if stages.sanitize else []
    names += ["timeline_record", "timeline_table"] if stages.timeline else []
    names += ["sweep_record"] if variant in stages.sweep else []
    return [Layout(results).path(name, family, variant) for name in names]


def replay_family(
    source: Path, family: Family, results: Path, stages: ReplayStages, arch: str
) -> Replayed:
    """Replay every variant of ``family`` from the recording ``source``.

    Raises:
        StageInputError: ``source`` is not a folder.
        OutputRefusedError: ``results`` is, lies inside or holds the recording or
            the kernels folder (or a repository), or a folder or file replay
            writes below it is a symbolic link; before anything is written.
    """
    if not source.is_dir():
        raise StageInputError(
            f"replay-family: --source {source}: no such folder; name a recording "
            "(the bundled examples/h200, or one made with `nsightflow record`)"
        )
    out = Output("replay-family", "--results", results, fix=RESULTS_FIX)
    kernels = ("the kernels folder", family.folder.parent)
    check_output(out, [("the recording", source), kernels])
    for variant in family.variants.values():  # all before the first write
        for output in variant_outputs(results, family.name, variant.name, stages):
            check_no_link(results, output, "replay-family: --results")
    done = Replayed()
    for variant in family.variants.values():
        ident = (family.name, variant.name)
        outputs = variant_outputs(results, family.name, variant.name, stages)
        resources, *measured = outputs
        sweep = Layout(results).path("sweep_record", family.name, variant.name)
        if sweep in measured:  # first: an edited variant is compiled at its best
            measured.remove(sweep)
            recorded = source / sweep.relative_to(results)
            done.note(replay_file(recorded, sweep, ident, source))
            variant = _at_best(variant, sweep)
        if _replay_resources(Tree(source), variant, resources, arch, done):
            done.changed.append(variant.name)
        for output in measured:
            recorded = source / output.relative_to(results)
            done.note(replay_file(recorded, output, ident, source, variant.kernels))
    return done


def replay_file(
    recorded: Path,
    output: Path,
    ident: tuple[str, str] | None = None,
    root: Path | None = None,
    kernels: tuple[str, ...] = (),
) -> str | None:
    """Copy one recorded stage output (file or profile folder) into results/.

    Args:
        recorded: The recorded file or profile folder.
        output: Where it goes under ``results/``.
        ident: (family, variant): a missing or refused file becomes a
            ``not_recorded`` record of it instead of an error.
        root: The recording folder (by default: found from the layout).
        kernels: The kernels the manifest declares for the variant; a profile's
            reports must hold no other.

    Returns:
        The refusal, one line, where ``recorded`` was refused; else None.

    Raises:
        StageInputError: without ``ident``, the file is missing or refused.
    """
    tree, rel = _locate(recorded, root)
    _check_target(tree, recorded, output)
    try:
        if not tree.exists(rel):
            raise MissingRecord(recorded, "missing from the recording")
        _replay(tree, rel, output, kernels)
    except MissingRecord:
        if ident is None:
            raise StageInputError(
                f"{recorded}: not in the recording; re-record it"
            ) from None
        message = (
            f"{recorded} is not in the recording: measure this variant on a GPU "
            "machine (config mode: measure) and record again"
        )
        not_recorded(output, ident, message, recorded)
        return None
    except RecordError as exc:
        if ident is None:
            raise
        not_recorded(output, ident, str(exc), recorded)
        return str(exc)
    return None


RESULTS_FIX = "choose a results folder outside the recording, such as results/"


def _check_target(tree: Tree, recorded: Path, output: Path) -> None:
    """The output is neither the recorded file nor inside (or around) the recording."""
    folder = not output.suffix
    out = Output("replay", "OUTPUT", output, folder=folder, fix=RESULTS_FIX)
    check_output(out, [("the recorded file", recorded), ("the recording", tree.root)])


def _locate(recorded: Path, root: Path | None) -> tuple[Tree, PurePosixPath]:
    """The recording holding ``recorded``, and the path inside it."""
    if root is None:
        where = identify(recorded)
        profile = recorded.parent.parent.name == "profile" and not recorded.suffix
        deep = profile or (where is not None and where.family is not None)
        root = recorded.parents[2] if deep else recorded.parent
    return Tree(root), PurePosixPath(recorded.relative_to(root).as_posix())


def _replay(
    tree: Tree, rel: PurePosixPath, output: Path, kernels: tuple[str, ...]
) -> None:
    where = identify(rel)
    if where is None and rel.parts[0] == "profile" and len(rel.parts) == 3:
        _replay_profile(tree, rel, output, kernels)
    elif where is not None and where.kind == "timeline_table":
        raw = tree.read_bytes(rel, MAX_TABLE_BYTES)
        check_table(raw, tree.path(rel), where)
        write_atomic(output, raw)
    else:
        data = read_record(tree, rel)
        write_json(output, _stamp(data, tree.path(rel)))


def _replay_profile(
    tree: Tree, rel: PurePosixPath, output: Path, kernels: tuple[str, ...]
) -> None:
    """A variant's profile folder and the family reports it names, all checked first."""
    meta, reports = profile_reports(tree, rel)
    names = tree.entries(rel)
    for name in names:  # a link, a FIFO or a folder inside is refused, not skipped
        tree.check(rel / name)
    if kernels:
        _check_kernels(tree, meta, reports, kernels)
    remove_own(output, lambda n: PROFILE_FILES(n) or n in names, "replay")
    for name in names:
        if name != "profile.json":
            tree.copy(rel / name, output / name)
    for report in reports:
        target = output.parent / report.name
        if report.parent != rel and not target.is_file():  # shared: copied once
            tree.copy(report, target)
    write_json(output / "profile.json", _stamp(meta, tree.path(rel)))


def _check_kernels(
    tree: Tree,
    meta: dict[str, Any],
    reports: dict[PurePosixPath, list[dict[str, Any]]],
    kernels: tuple[str, ...],
) -> None:
    """Each report part holds launches of the variant's own kernels only.

    An unreadable report is left to parse, which shows it (``ReportUnreadable``).

    Raises:
        RecordError: a launch of another kernel: the report is another variant's.
    """
    from nsightflow.tools.ncu_report_io import part_kernels
    from nsightflow.tools.profile_layout import parts_from

    for part in parts_from(meta, {tree.path(r): e for r, e in reports.items()}):
        try:
            found = part_kernels(part)
        except ReportParseError:
            continue
        stray = sorted(set(found) - set(kernels))
        if stray:
            raise RecordError(
                part.path,
                f"holds launches of {', '.join(stray)}, not of the kernels "
                f"{meta['family']}/{meta['variant']} launches in its family.yaml "
                f"({', '.join(kernels)}): it is another variant's report",
                fix="put the variant's own report back, or record again",
            )


def _stamp(data: dict[str, Any], recorded: Path) -> dict[str, Any]:
    data = {k: v for k, v in data.items() if k != "schema_version"}
    data[col.REPLAYED_FROM] = str(recorded)
    return data


def _at_best(variant: Variant, sweep: Path) -> Variant:
    """The variant at the best configuration of its (replayed) sweep record.

    The defaults when the record has no best, or names values the manifest no longer
    declares.
    """
    best = read_json(sweep).get("best")
    try:
        return variant.with_params(best[col.PARAMS]) if best else variant
    except ManifestError:
        return variant


def _replay_resources(
    tree: Tree, variant: Variant, output: Path, arch: str, done: Replayed
) -> bool:
    """Write the variant's resources record; return whether its source changed."""
    rel = PurePosixPath("build", variant.family, f"{variant.name}.resources.json")
    recorded_path = tree.path(rel)
    ident = (variant.family, variant.name)
    try:
        recorded: dict[str, Any] | None = read_record(tree, rel)
    except MissingRecord:
        recorded = None
    except RecordError as exc:
        done.note(str(exc))
        if shutil.which("nvcc") is None:
            not_recorded(output, ident, str(exc), recorded_path)
            return False
        recorded = None
    digest = source_digest(variant.source)
    if recorded is not None and recorded.get("source_sha256") == digest:
        write_json(output, _stamp(recorded, recorded_path))
        return False
    if shutil.which("nvcc") is not None:
        record = compile_variant(
            variant, arch, output.with_name(f"{variant.name}.cubin")
        )
    elif recorded is not None:
        record = {k: v for k, v in recorded.items() if k != "schema_version"}
    else:
        replay_file(recorded_path, output, ident, tree.root)
        return False
    if recorded is not None:
        # the reports are of the recorded source: so are the call sites that map them
        record = {k: v for k, v in record.items() if k != "inlined"}
        if col.INLINED in recorded:
            record[col.INLINED] = recorded[col.INLINED]
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
