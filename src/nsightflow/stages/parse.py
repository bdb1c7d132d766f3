"""``nsightflow parse``: .ncu-rep / ncu raw CSV -> long metrics table."""

import argparse
import sys
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``parse`` to the CLI."""
    p = sub.add_parser("parse", help=".ncu-rep / ncu raw CSV -> long metrics table")
    p.add_argument("reports", type=Path, nargs="+", help="files or folders")
    p.add_argument(
        "-o", "--output", type=Path, required=True, help=".csv or .parquet (pyarrow)"
    )
    p.add_argument("--rules", type=Path, help="also write ncu rule results here")
    p.add_argument(
        "--source",
        type=Path,
        help="also write the per-instruction warp samples (with source lines) here",
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


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow parse``."""
    from nsightflow.tools import ncu_parse as P
    from nsightflow.tools.ncu_parse import parse_files, write_table
    from nsightflow.tools.ncu_source import SOURCE_COLUMNS
    from nsightflow.tools.tables import check_outputs

    outputs = [
        (args.output, P.METRIC_COLUMNS),
        (args.rules, P.RULE_COLUMNS),
        (args.source, SOURCE_COLUMNS),
    ]
    outputs = [(path, columns) for path, columns in outputs if path is not None]
    # before any report is read: never over an input, a foreign file, an unknown format
    check_outputs(outputs, P.expand_inputs(args.reports), force=args.force)
    metrics, rules = parse_files(args.reports, keep_going=args.keep_going)
    if args.metrics:
        from nsightflow.tools.ncu_metrics import resolve

        wanted = resolve(args.metrics)  # nvprof-era names accepted
        missing = sorted(set(wanted) - set(metrics["metric"]))
        if missing:
            print(
                f"WARNING: not in these reports: {', '.join(missing)}", file=sys.stderr
            )
        metrics = metrics[metrics["metric"].isin(wanted)]
    for message in rules[rules["type"] == "error"]["message"]:
        print(f"WARNING: {message}", file=sys.stderr)
    if args.family:
        metrics["family"] = metrics["family"].mask(metrics["family"] == "", args.family)
    write_table(metrics, args.output)
    if args.rules:
        write_table(rules, args.rules)
    if args.source:  # per-instruction warp samples (issue 22)
        from nsightflow.tools.ncu_source import parse_source_files

        samples, notes = parse_source_files(args.reports, keep_going=args.keep_going)
        for note in notes:
            print(f"WARNING: {note}", file=sys.stderr)
        if args.family:
            samples["family"] = samples["family"].mask(
                samples["family"] == "", args.family
            )
        write_table(samples, args.source)
    launches = P.count_launches(metrics)
    print(
        f"{len(metrics)} metric values from {launches} "
        f"launch{'' if launches == 1 else 'es'} -> {args.output}"
    )
    return 0
