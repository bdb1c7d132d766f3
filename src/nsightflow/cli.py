"""Command line: ``nsightflow <stage> ...``, one subcommand per pipeline stage.

Expected failures (:class:`NsightflowError`) print ``ERROR: ...`` and exit 2; anything
else prints a traceback and says it is a bug.
"""

import argparse
import faulthandler
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from nsightflow.errors import NsightflowError, describe
from nsightflow.machine import provenance
from nsightflow.stages.timeline import add_commands as add_timeline_commands

Handler = Callable[[argparse.Namespace], int]


def _compile(args: argparse.Namespace) -> int:
    from nsightflow.family.registry import find_variant
    from nsightflow.tools.nvcc import compile_variant

    _, variant = find_variant(args.kernels_dir, args.family, args.variant)
    record = compile_variant(variant, args.arch, args.cubin)
    provenance.write_json(args.resources, record)
    print(
        f"{args.family}/{args.variant}: {record['status']} "
        f"{record.get('resources', '')}{record['message'][-2000:]}"
    )
    return 0


def _verify(args: argparse.Namespace) -> int:
    from nsightflow.gpu import driver as stages

    record = stages.verify(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "resources": args.resources},
        args.timeout_s,
        args.seed,
    )
    provenance.write_json(args.out, record)
    print(
        f"{args.family}/{args.variant}: verify {record['status']}: {record['message']}"
    )
    return 0


def _time(args: argparse.Namespace) -> int:
    from nsightflow.gpu import driver as stages
    from nsightflow.gpu.timing import TimingSettings

    settings = TimingSettings(
        args.warmup,
        args.min_reps,
        args.max_reps,
        args.budget_s,
        args.settle_rel,
        args.timeout_s,
        args.cache,
        args.guard,
    )
    record = stages.time(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "verify": args.verify},
        settings,
        args.seed,
    )
    provenance.write_json(args.out, record)
    for row in record.get("rows", []):
        print(
            f"  n={row['size']}: {row.get('time_median_us', float('nan')):.2f} us "
            f"({row.get('reps', 0)} reps)"
        )
    print(f"{args.family}/{args.variant}: time {record['status']} {record['message']}")
    return 0


def _profile(args: argparse.Namespace) -> int:
    from nsightflow.gpu import driver as stages
    from nsightflow.tools.ncu import NcuSettings

    settings = NcuSettings(args.clock_control, args.set, args.timeout_s)
    record = stages.profile(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "verify": args.verify, "out_dir": args.out_dir},
        settings,
        args.seed,
    )
    provenance.write_json(args.out_dir / "profile.json", record)
    print(
        f"{args.family}/{args.variant}: profile {record['status']} {record['message']}"
    )
    return 0


def _sanitize(args: argparse.Namespace) -> int:
    from nsightflow.tools.sanitizer import SanitizeSettings, sanitize

    record = sanitize(
        args.kernels_dir,
        (args.family, args.variant),
        {"cubin": args.cubin, "resources": args.resources},
        SanitizeSettings(args.size, args.timeout_s),
        args.seed,
    )
    provenance.write_json(args.out, record)
    print(
        f"{args.family}/{args.variant}: sanitize {record['status']}: "
        f"{record['message']}"
    )
    return 0


def _ceilings(args: argparse.Namespace) -> int:
    from nsightflow.gpu.ceilings import measure

    record = measure()
    provenance.write_json(
        args.out,
        {**record, "provenance": provenance.collect(None, **provenance.gpu_info())},
    )
    print(
        f"copy {record['copy_gbps']:.0f} GB/s, fp32 {record['fp32_gflops']:.0f} GFLOP/s"
    )
    return 0


def _ceilings_table(args: argparse.Namespace) -> int:
    import pandas as pd

    data = provenance.read_json(args.ceilings)
    columns = ["gpu", "copy_gbps", "fp32_gflops", "vendor_sgemm_gflops"]
    row = {c: data.get(c) for c in columns}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([row], columns=columns).to_csv(args.output, index=False)
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from nsightflow.machine.doctor import checks, exit_status, render

    found = checks()
    print(render(found))
    status = exit_status(found)
    print(
        "full pipeline can run here"
        if status == 0
        else "only replay can run here (config mode: replay, or auto without a GPU)"
    )
    return status


def _gpu_lock(args: argparse.Namespace) -> int:
    from nsightflow.machine.gpulock import run_locked

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    run_locked(command, args.devices, args.lock_dir, args.wait_s)
    return 0  # not reached: run_locked replaces this process


def _replay(args: argparse.Namespace) -> int:
    from nsightflow.machine.recording import replay_file

    ident = (args.family, args.variant) if args.family and args.variant else None
    replay_file(args.recorded, args.output, ident)
    print(f"replayed {args.recorded} -> {args.output}")
    return 0


def _record(args: argparse.Namespace) -> int:
    from nsightflow.machine.recording import record

    info = record(args.results, args.out, args.command, add=args.add)
    if args.add:
        info = info["additions"][-1]
    print(f"recorded {', '.join(info['families'])} on {info['gpu']} into {args.out}")
    return 0


def _parse(args: argparse.Namespace) -> int:
    from nsightflow.tools import ncu_parse as P
    from nsightflow.tools.ncu_parse import parse_files, write_table
    from nsightflow.tools.tables import check_outputs

    outputs = [(args.output, P.METRIC_COLUMNS), (args.rules, P.RULE_COLUMNS)]
    outputs = [(path, columns) for path, columns in outputs if path is not None]
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
    launches = P.count_launches(metrics)
    print(
        f"{len(metrics)} metric values from {launches} "
        f"launch{'' if launches == 1 else 'es'} -> {args.output}"
    )
    return 0


def _analyze(args: argparse.Namespace) -> int:
    from nsightflow.analysis.analyze import AnalysisInputs, write_analysis

    inputs = AnalysisInputs(
        args.kernels_dir / args.family,
        args.resources,
        args.verify,
        args.timing,
        args.metrics,
        args.rules,
        args.profiles,
        args.ceilings,
        args.sanitize,
    )
    write_analysis(inputs, args.out_dir)
    return 0


def _plot(args: argparse.Namespace) -> int:
    from nsightflow.plot.figures import write_figures

    write_figures(args.analysis_dir, args.out_dir)
    return 0


def _report(args: argparse.Namespace) -> int:
    from nsightflow.report.build import write_report, write_summary

    if args.only == "summary":
        write_summary(args.analysis_dir, args.out_dir)
        return 0
    write_report(
        args.analysis_dir,
        args.figures_dir,
        args.out_dir,
        language=args.language,
        timeline=args.timeline[0] if args.timeline else None,
        summary=args.only is None,
    )
    return 0


def _pdf(args: argparse.Namespace) -> int:
    from nsightflow.report.pdf.build import write_pdf

    write_pdf(
        args.html.read_text(), args.html.parent, args.output, language=args.language
    )
    return 0


def _index(args: argparse.Namespace) -> int:
    from nsightflow.report.build import write_index

    write_index(args.report_dir, args.families, language=args.language)
    return 0


def _variant_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", required=True)
    p.add_argument("--cubin", type=Path, required=True)
    p.add_argument("--seed", type=int, default=408)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one subcommand per stage."""
    parser = argparse.ArgumentParser(prog="nsightflow", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="nvcc one variant to a cubin + resources JSON")
    _variant_args(p)
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--resources", type=Path, required=True)
    p.set_defaults(handler=_compile)

    p = sub.add_parser("verify", help="check one variant against the numpy reference")
    _variant_args(p)
    p.add_argument("--resources", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--timeout-s", type=float, default=120)
    p.set_defaults(handler=_verify)

    p = sub.add_parser("time", help="CUDA-event timing over the size sweep")
    _variant_args(p)
    p.add_argument("--verify", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--min-reps", type=int, default=30)
    p.add_argument("--max-reps", type=int, default=2000)
    p.add_argument("--budget-s", type=float, default=1.0)
    p.add_argument("--settle-rel", type=float, default=0.005)
    p.add_argument("--cache", choices=["auto", "hot", "cold"], default="auto")
    p.add_argument(
        "--guard",
        choices=["flag", "wait", "refuse"],
        default="flag",
        help="when other processes use the GPU: time and flag, wait, or refuse",
    )
    p.add_argument("--timeout-s", type=float, default=300)
    p.set_defaults(handler=_time)

    p = sub.add_parser("profile", help="one launch per profiled size under ncu")
    _variant_args(p)
    p.add_argument("--verify", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument("--clock-control", choices=["none", "base"], default="none")
    p.add_argument("--set", choices=["lean", "full"], default="lean")
    p.add_argument("--timeout-s", type=float, default=300)
    p.set_defaults(handler=_profile)

    p = sub.add_parser(
        "sanitize", help="compute-sanitizer memcheck / racecheck on one launch"
    )
    _variant_args(p)
    p.add_argument("--resources", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--size", type=int, default=0, help="0: smallest verify size")
    p.add_argument("--timeout-s", type=float, default=300)
    p.set_defaults(handler=_sanitize)

    p = sub.add_parser("ceilings", help="measure copy bandwidth and FP32 FMA rate")
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(handler=_ceilings)

    p = sub.add_parser("ceilings-table", help="ceilings JSON -> ceilings.csv")
    p.add_argument("ceilings", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.set_defaults(handler=_ceilings_table)

    p = sub.add_parser("doctor", help="what this machine can do, with fixes")
    p.set_defaults(handler=_doctor)

    p = sub.add_parser(
        "gpu-lock", help="run a command on a GPU no other GPU job holds (lock file)"
    )
    p.add_argument("--devices", nargs="+", default=[], help="device ids to use")
    p.add_argument("--lock-dir", default="", help="default: the temporary folder")
    p.add_argument("--wait-s", type=float, default=0.0, help="0: wait as needed")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    p.set_defaults(handler=_gpu_lock)

    p = sub.add_parser("replay", help="copy one recorded stage output into results/")
    p.add_argument("recorded", type=Path)
    p.add_argument("output", type=Path)
    p.add_argument("--family", help="with --variant: record a missing file as data")
    p.add_argument("--variant")
    p.set_defaults(handler=_replay)

    p = sub.add_parser(
        "record", help="results/ GPU-stage outputs -> a recording folder"
    )
    p.add_argument("--results", type=Path, default=Path("results"))
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--command", default="snakemake --cores all")
    p.add_argument(
        "--add",
        action="store_true",
        help="add to the existing recording --out (listed under additions)",
    )
    p.set_defaults(handler=_record)

    p = sub.add_parser("parse", help=".ncu-rep / ncu raw CSV -> long metrics table")
    p.add_argument("reports", type=Path, nargs="+", help="files or folders")
    p.add_argument(
        "-o", "--output", type=Path, required=True, help=".csv or .parquet (pyarrow)"
    )
    p.add_argument("--rules", type=Path, help="also write ncu rule results here")
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
    p.set_defaults(handler=_parse)

    p = sub.add_parser("analyze", help="derive the family's analysis tables")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    for name in (
        "resources",
        "verify",
        "timing",
        "metrics",
        "rules",
        "profiles",
        "sanitize",
    ):
        p.add_argument(f"--{name}", type=Path, nargs="*", default=[])
    p.add_argument("--ceilings", type=Path)
    p.add_argument("--out-dir", type=Path, required=True)
    p.set_defaults(handler=_analyze)

    p = sub.add_parser("plot", help="figures from the analysis tables")
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.set_defaults(handler=_plot)

    p = sub.add_parser(
        "report", help="report.md / report.html (report.zh.* in Chinese) / summary.csv"
    )
    p.add_argument("--analysis-dir", type=Path, required=True)
    p.add_argument("--figures-dir", type=Path, required=True)
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument(
        "--language",
        choices=["en", "zh"],
        default="en",
        help="language of the report's text (default: en)",
    )
    p.add_argument(
        "--timeline",
        type=Path,
        nargs="*",
        default=[],
        help="the family's timeline_summary.csv: adds the timeline section",
    )
    p.add_argument(
        "--only",
        choices=["report", "summary"],
        help="write only report[.LANG].md/.html, or only summary.csv (default: both)",
    )
    p.set_defaults(handler=_report)
    p = sub.add_parser("pdf", help="report.html -> report.pdf (A4)")
    p.add_argument("html", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument(
        "--language",
        choices=["en", "zh"],
        help="zh embeds a CJK font (fonts-wqy-microhei); default: the page's <html lang>",
    )
    p.set_defaults(handler=_pdf)

    p = sub.add_parser("index", help="index.md / index.html over all families")
    p.add_argument("--report-dir", type=Path, default=Path("results/report"))
    p.add_argument("--families", nargs="+", required=True)
    p.add_argument(
        "--language",
        choices=["en", "zh"],
        default="en",
        help="link the reports in this language (index.zh.html for zh)",
    )
    p.set_defaults(handler=_index)
    add_timeline_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; map errors to exit codes."""
    faulthandler.enable()  # a crash inside a native module (ncu_report) names its frame
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except NsightflowError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:  # an input the user named, or an earlier stage's
        print(
            f"ERROR: {exc.filename}: no such file or folder; check the path, or run "
            "the stage that writes it first",
            file=sys.stderr,
        )
        return 2
    except Exception as exc:
        if (message := describe(exc)) is not None:  # the machine's fault, not ours
            print(f"ERROR: {message}", file=sys.stderr)
            return 2
        traceback.print_exc()
        print(
            "This is a bug in nsightflow; please report it with the traceback above.",
            file=sys.stderr,
        )
        return 3
