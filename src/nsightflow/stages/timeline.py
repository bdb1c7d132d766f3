"""The timeline's subcommands, registered by :mod:`nsightflow.cli`.

``timeline-backend`` (choose nsys or CUPTI once per run), ``timeline`` (trace one
variant), ``timeline-analyze`` (the family's tables) and ``timeline-plot`` (its figure).
"""

import argparse
from pathlib import Path

from nsightflow.machine import provenance


def _backend(args: argparse.Namespace) -> int:
    from nsightflow.gpu.timeline import choose_backend, probe_capabilities

    choice = choose_backend(args.backend, probe_capabilities())
    provenance.write_json(
        args.out, {**choice.__dict__, "provenance": provenance.collect()}
    )
    print(f"nsightflow timeline: {choice.message}")
    return 0


def _timeline(args: argparse.Namespace) -> int:
    from nsightflow.gpu.timeline import TimelineSettings, record_variant, write_outputs

    settings = TimelineSettings(tuple(args.sizes), args.backend, args.timeout_s)
    record = record_variant(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "verify": args.verify, "backend": args.backend_choice},
        settings,
        args.seed,
    )
    write_outputs(record, args.out, args.table)
    print(
        f"{args.family}/{args.variant}: timeline {record['status']} "
        f"({record.get('backend')}) {record['message']}"
    )
    return 0


def _analyze(args: argparse.Namespace) -> int:
    from nsightflow.analysis.timeline import write_analysis

    write_analysis(args.records, args.tables, args.out_dir)
    return 0


def _plot(args: argparse.Namespace) -> int:
    from nsightflow.plot.timeline import write_figure

    write_figure(args.analysis_dir, args.out, args.family)
    return 0


def add_commands(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Register the timeline subcommands on the CLI's subparsers."""
    p = sub.add_parser(
        "timeline-backend", help="choose the timeline backend this machine can run"
    )
    p.add_argument("--backend", choices=["auto", "cupti", "nsys"], default="auto")
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(handler=_backend)

    p = sub.add_parser("timeline", help="trace copies and kernel of one variant")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", required=True)
    p.add_argument("--cubin", type=Path, required=True)
    p.add_argument("--seed", type=int, default=408)
    p.add_argument("--verify", type=Path, required=True)
    p.add_argument(
        "--backend-choice",
        type=Path,
        required=True,
        help="the JSON written by `nsightflow timeline-backend`",
    )
    p.add_argument("--backend", choices=["auto", "cupti", "nsys"], default="auto")
    p.add_argument(
        "--sizes", type=int, nargs="*", default=[], help="default: profiled sizes"
    )
    p.add_argument("--timeout-s", type=float, default=300)
    p.add_argument("--out", type=Path, required=True, help="record (.json)")
    p.add_argument("--table", type=Path, required=True, help="timeline table (.csv)")
    p.set_defaults(handler=_timeline)

    p = sub.add_parser("timeline-analyze", help="a family's timeline tables")
    p.add_argument("--records", type=Path, nargs="+", required=True)
    p.add_argument("--tables", type=Path, nargs="+", required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.set_defaults(handler=_analyze)

    p = sub.add_parser("timeline-plot", help="a family's timeline figure")
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--family", required=True)
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(handler=_plot)
