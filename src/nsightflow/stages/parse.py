"""``nsightflow parse``: .ncu-rep / ncu raw CSV -> long metrics table.

One output (``-o FILE``) holds every report given. Several outputs, one per report
argument (``parse A B -o a.csv b.csv --rules ... --source ...``), parse each argument
into its own tables in one process: the workflow's replay parses a family's variants
that way, paying the start-up (pandas, ncu_report's disassembler) once per family.
"""

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from nsightflow.contracts import columns as col
from nsightflow.errors import StageInputError

if TYPE_CHECKING:
    from nsightflow.tools.nvdisasm import CallSite


class Job(NamedTuple):
    """One output set: the reports it reads and the tables it writes."""

    reports: list[Path]
    output: Path
    rules: Path | None
    source: Path | None


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``parse`` to the CLI."""
    p = sub.add_parser("parse", help=".ncu-rep / ncu raw CSV -> long metrics table")
    p.add_argument("reports", type=Path, nargs="+", help="files or folders")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        nargs="+",
        required=True,
        help=".csv or .parquet (pyarrow): one table of every report, or one per "
        "report argument, in their order",
    )
    p.add_argument(
        "--rules",
        type=Path,
        nargs="+",
        help="also write ncu rule results here (as many as --output)",
    )
    p.add_argument(
        "--source",
        type=Path,
        nargs="+",
        help="also write the per-instruction warp samples (with source lines) here "
        "(as many as --output)",
    )
    p.add_argument(
        "--resources",
        type=Path,
        nargs="*",
        default=[],
        help="the variants' compile records: their inlined call sites name the "
        "kernel's line where the report names a CUDA header's",
    )
    p.add_argument("--family", help="family label for reports without profile.json")
    p.add_argument(
        "--metrics",
        nargs="+",
        metavar="NAME",
        help="keep only these metrics (ncu names, or nvprof-era names such as "
        "achieved_occupancy and gld_throughput, mapped to ncu's)",
    )
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="record unreadable reports as errors in the rules table and go on",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing output that is not a table written by parse",
    )
    p.set_defaults(handler=run)


def jobs_of(args: argparse.Namespace) -> list[Job]:
    """The output sets the arguments ask for (one, or one per report argument).

    Raises:
        StageInputError: the counts of outputs and report arguments do not match.
    """
    outputs: list[Path] = args.output
    if len(outputs) not in (1, len(args.reports)):
        raise StageInputError(
            f"parse: {len(outputs)} outputs (-o) for {len(args.reports)} report "
            "arguments; give one output, or one per report argument"
        )
    options = ("rules", "source")  # contracts: literal (the options --rules, --source)
    for name in options:
        given = getattr(args, name)
        if given is not None and len(given) != len(outputs):
            raise StageInputError(
                f"parse: {len(given)} --{name} tables for {len(outputs)} outputs (-o); "
                f"give one --{name} per output"
            )
    groups = [args.reports] if len(outputs) == 1 else [[r] for r in args.reports]
    return [
        Job(
            reports,
            output,
            args.rules[i] if args.rules else None,
            args.source[i] if args.source else None,
        )
        for i, (reports, output) in enumerate(zip(groups, outputs, strict=True))
    ]


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow parse``."""
    from nsightflow.contracts import METRICS, RULES, SOURCE
    from nsightflow.tools import ncu_parse as P
    from nsightflow.tools.tables import check_outputs

    jobs = jobs_of(args)
    outputs = [
        (path, columns)
        for job in jobs
        for path, columns in (
            (job.output, METRICS.columns),
            (job.rules, RULES.columns),
            (job.source, SOURCE.columns),
        )
        if path is not None
    ]
    # before any report is read: never over an input, a foreign file, an unknown format
    reports = P.expand_inputs(args.reports)
    recordings = recordings_of(args.reports)
    check_outputs(outputs, reports, force=args.force, folders=recordings)
    inlined = inlined_sites(args.resources)  # once for the process's every output set
    for job in jobs:
        parse_one(job, args, inlined)
    return 0


def recordings_of(paths: list[Path]) -> list[Path]:
    """The recordings (folders holding ``recording.json``) the reports lie in."""
    found: dict[Path, None] = {}
    for path in paths:
        for folder in (path, *path.resolve().parents):
            if (folder / "recording.json").is_file():
                found[folder] = None
                break
    return list(found)


def inlined_sites(paths: list[Path]) -> "dict[str, list[CallSite]]":
    """Call sites of inlined code per variant, from compile records that hold them."""
    from nsightflow.io import read_json
    from nsightflow.tools.nvdisasm import unpack

    found = {}
    for path in paths:
        record = read_json(path)
        if col.INLINED not in record:
            continue
        try:
            found[str(record.get(col.VARIANT, ""))] = unpack(record[col.INLINED])
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise StageInputError(
                f"{path}: field 'inlined' is malformed ({type(exc).__name__}: {exc}); "
                "re-run the compile stage for this variant, or delete the field"
            ) from None
    return found


def parse_one(
    job: Job,
    args: argparse.Namespace,
    inlined: "dict[str, list[CallSite]] | None" = None,
) -> None:
    """Parse one output set's reports into its tables."""
    from nsightflow.tools import ncu_parse as P

    metrics, rules = P.parse_files(job.reports, keep_going=args.keep_going)
    if args.metrics:
        from nsightflow.tools.ncu_metrics import resolve

        wanted = resolve(args.metrics)  # nvprof-era names accepted
        missing = sorted(set(wanted) - set(metrics[col.METRIC]))
        if missing:
            print(
                f"WARNING: not in these reports: {', '.join(missing)}", file=sys.stderr
            )
        metrics = metrics[metrics[col.METRIC].isin(wanted)]
    for message in rules[rules[col.TYPE] == "error"][col.MESSAGE]:
        print(f"WARNING: {message}", file=sys.stderr)
    if args.family:
        metrics[col.FAMILY] = metrics[col.FAMILY].mask(
            metrics[col.FAMILY] == "", args.family
        )
    P.write_table(metrics, job.output)
    if job.rules:
        P.write_table(rules, job.rules)
    if job.source:  # per-instruction warp samples, for hotspots.csv
        from nsightflow.tools.ncu_source import parse_source_files

        samples, notes = parse_source_files(
            job.reports,
            keep_going=args.keep_going,
            inlined=inlined,
        )
        for note in notes:
            print(f"WARNING: {note}", file=sys.stderr)
        if args.family:
            samples[col.FAMILY] = samples[col.FAMILY].mask(
                samples[col.FAMILY] == "", args.family
            )
        P.write_table(samples, job.source)
    launches = P.count_launches(metrics)
    print(
        f"{len(metrics)} metric values from {launches} "
        f"launch{'' if launches == 1 else 'es'} -> {job.output}"
    )
