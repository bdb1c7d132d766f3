"""``nsightflow measure``: verify, time and timeline of one variant in one GPU worker.

Writes the same files as ``nsightflow verify``, ``time`` and ``timeline`` would (see
:mod:`nsightflow.gpu.measure` for why one job and what stays as it was).
"""

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nsightflow.contracts import columns as col
from nsightflow.io import write_json
from nsightflow.stages.common import variant_args
from nsightflow.stages.timing import print_rows, timing_args, timing_fields

if TYPE_CHECKING:
    from nsightflow.gpu.measure import TracePhase


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``measure`` to the CLI."""
    p = sub.add_parser(
        "measure", help="verify, time and timeline of one variant in one GPU worker"
    )
    variant_args(p)
    p.add_argument("--resources", type=Path, required=True)
    p.add_argument("--verify-out", type=Path, required=True)
    p.add_argument("--time-out", type=Path, required=True)
    p.add_argument("--verify-timeout-s", type=float, default=120)
    p.add_argument("--time-timeout-s", type=float, default=300)
    p.add_argument("--threads", type=int, default=4, help="CPU threads of the checks")
    p.add_argument(
        "--reference-cache",
        type=Path,
        help="folder of the family's inputs and references (`nsightflow reference`)",
    )
    timing_args(p)
    t = p.add_argument_group("timeline (left out: the timeline is switched off)")
    t.add_argument("--timeline-record", type=Path, help="record (.json)")
    t.add_argument("--timeline-table", type=Path, help="timeline table (.csv)")
    t.add_argument("--backend-choice", type=Path, help="`nsightflow timeline-backend`")
    t.add_argument("--timeline-backend", choices=["auto", "cupti", "nsys"])
    t.add_argument("--timeline-sizes", type=int, nargs="*", default=[])
    t.add_argument("--timeline-timeout-s", type=float, default=300)
    p.set_defaults(handler=run, timeline_backend="auto")


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow measure``."""
    from nsightflow.gpu.measure import MeasureSettings, TracePhase, measure

    line = None
    paths = {"cubin": args.cubin, "resources": args.resources}
    if args.timeline_record is not None:
        line = TracePhase(
            tuple(args.timeline_sizes), args.timeline_backend, args.timeline_timeout_s
        )
        paths[col.BACKEND] = args.backend_choice
    settings = MeasureSettings(
        args.verify_timeout_s,
        timing_fields(args, args.time_timeout_s),
        line,
        args.threads,
        args.reference_cache,
    )
    ident = (args.family, args.variant)
    records = measure(args.kernels_dir, ident, paths, settings, args.seed)
    verify = records["verify"]
    write_json(args.verify_out, verify)
    print(
        f"{args.family}/{args.variant}: verify {verify['status']}: {verify['message']}"
    )
    from nsightflow.family.tuned import built_config

    records["time"][col.CONFIG] = built_config(args.cubin)  # which configuration, why
    write_json(args.time_out, records["time"])
    print_rows(records["time"])
    if line is not None:
        _timeline(args, records, line, ident)
    return 0


def _timeline(
    args: argparse.Namespace,
    records: dict[str, dict[str, Any]],
    line: "TracePhase",
    ident: tuple[str, str],
) -> None:
    """Write the in-process trace, or trace in a process of its own (nsys, empty)."""
    from nsightflow.gpu.timeline.driver import (
        TimelineSettings,
        record_variant,
        write_outputs,
    )

    record = records.get("timeline")
    if record is None:
        paths = {"cubin": args.cubin, "verify": args.verify_out}
        paths[col.BACKEND] = args.backend_choice
        alone = TimelineSettings(line.sizes, line.backend, line.timeout_s)  # type: ignore[arg-type]
        record = record_variant(args.kernels_dir, ident, paths, alone, args.seed)
    write_outputs(record, args.timeline_record, args.timeline_table)
    print(
        f"{args.family}/{args.variant}: timeline {record['status']} "
        f"({record.get('backend')}) {record['message']}"
    )
