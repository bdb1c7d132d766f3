"""Command line: ``nsightflow <stage> ...``, one subcommand per pipeline stage.

Each stage module in :mod:`nsightflow.stages` adds its subcommand
(``register_parser``) and runs it (``run``). :func:`main` is the one error boundary:
expected failures print ``ERROR: ...`` and exit 2; anything else prints a traceback and
says it is a bug.

``nsightflow A ... --then B ...`` runs stage A, then, if it succeeded, stage B, in one
process: a workflow rule whose second stage reads only the first's outputs saves a
Python start-up and the imports both share (pandas, matplotlib).
"""

import argparse
import faulthandler
import importlib
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nsightflow.errors import NsightflowError, describe
from nsightflow.examples import example_epilog

Handler = Callable[[argparse.Namespace], int]

# The subcommands, in the order of the pipeline (module names under nsightflow.stages).
STAGES = (
    "sweep_compile",
    "sweep",
    "compile",
    "reference",
    "verify",
    "timing",
    "measure",
    "profile",
    "sanitize",
    "ceilings",
    "ceilings_table",
    "timeline_backend",
    "timeline",
    "parse",
    "analyze",
    "timeline_analyze",
    "plot",
    "timeline_plot",
    "sweep_analyze",
    "sweep_plot",
    "report",
    "pdf",
    "index",
    "compare",
    "record",
    "replay",
    "replay_family",
    "doctor",
    "gpu_lock",
)


# What `nsightflow --help` says above the subcommands: plain text (the module's
# docstring is for the API reference and carries its markup).
DESCRIPTION = (
    "nsightflow: one subcommand per pipeline stage, each also run by a rule of the "
    "Snakemake workflow. `nsightflow A ... --then B ...` runs stage A, then, if it "
    "succeeded, stage B, in one process. Failures the input explains print "
    "'ERROR: ...' and exit 2. `nsightflow doctor` says what this machine can run."
)


def version() -> str:
    """The installed package's version (``0.1.0``), or ``unknown`` where none is."""
    from importlib import metadata

    try:
        return metadata.version("nsightflow")
    except metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: the version read when asked for, not at every start-up.

    ``importlib.metadata`` scans the installed distributions (~45 ms of CPU); each
    of a replay's ~38 processes paid it for a flag none of them is given.
    """

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any) -> None:
        print(f"nsightflow {version()}")  # on stdout, as argparse's own action
        parser.exit()


def build_parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with one subcommand per stage.

    Args:
        commands: Only these subcommands (their stage modules alone are imported),
            for a command line that names its stages; None: every stage. A name no
            stage module matches gets the whole parser (its error lists them all).
    """
    modules = _stage_modules(commands)
    parser = argparse.ArgumentParser(prog="nsightflow", description=DESCRIPTION)
    parser.add_argument(
        "--version",
        action=_VersionAction,
        help="show program's version number and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in modules:
        importlib.import_module(f"nsightflow.stages.{name}").register_parser(sub)
    if commands is not None and not set(commands) <= set(sub.choices):
        return build_parser()  # a module registers another name: all of them
    for name, command in sub.choices.items():  # every --help ends with an example
        command.epilog = example_epilog(name)
        command.set_defaults(subcommand=name)  # record's --command sets args.command
    return parser


def _stage_modules(commands: Sequence[str] | None) -> Sequence[str]:
    """The stage modules that register ``commands`` (all where one is not a stage).

    Each stage process imported all 29 stage modules and built every subcommand's
    parser (~70 ms of CPU, a replay's 38 processes ~3 s); a stage's module is its
    command's name with ``_`` for ``-``.
    """
    if commands is None:
        return STAGES
    modules = [command.replace("-", "_") for command in commands]
    return list(dict.fromkeys(modules)) if set(modules) <= set(STAGES) else STAGES


THEN = "--then"  # separates the stages of one process (module docstring)


def split_stages(argv: list[str]) -> list[list[str]]:
    """The argument lists of the stages ``argv`` chains with ``--then``."""
    stages: list[list[str]] = [[]]
    for arg in argv:
        if arg == THEN:
            stages.append([])
        else:
            stages[-1].append(arg)
    return stages


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand, or several chained with ``--then``; map errors to codes.

    Every stage's arguments are checked before the first runs; a failing stage stops
    the chain with its exit status.
    """
    faulthandler.enable()  # a crash inside a native module (ncu_report) names its frame
    stages = split_stages(sys.argv[1:] if argv is None else argv)
    named = [stage[0] for stage in stages if stage]
    parser = build_parser(named if len(named) == len(stages) else None)
    if len(stages) > 1 and any(not stage for stage in stages):
        parser.error(f"{THEN} needs a stage on each side")
    try:
        for args in [parser.parse_args(stage) for stage in stages]:
            code = run_stage(args)
            if code != 0:
                return code
        return 0
    finally:
        log_cpu([stage[0] for stage in stages if stage])


# Where set, each process appends its stages and CPU seconds to this file (what
# scripts/benchmarks/bench_replay.py sums per stage): `stages<TAB>user<TAB>system`.
CPU_LOG_ENV = "NSIGHTFLOW_CPU_LOG"


def log_cpu(names: list[str]) -> None:
    """Append this process's CPU time to the file NSIGHTFLOW_CPU_LOG names, if any."""
    import os

    path = os.environ.get(CPU_LOG_ENV)
    if not path:
        return
    times = os.times()
    with open(path, "a", encoding="utf-8") as log:
        log.write(f"{'+'.join(names)}\t{times.user:.3f}\t{times.system:.3f}\n")


OUTPUTS = ("out", "out_dir", "output")  # the options stages write to
# Stages that check their outputs themselves, with what they read and clean.
SELF_CHECKED = ("record", "replay", "replay-family", "compare", "parse", "reference")


def check_outputs(args: argparse.Namespace) -> None:
    """Every stage's outputs, before it runs (:func:`nsightflow.outputs.check_output`).

    An output may not be one of the stage's input paths, be or hold a repository,
    lie inside ``.git``, or be, lie inside or (a folder) hold the kernels folder
    (``--kernels-dir``, else ``kernels``: a stage without the option may not write
    into the project's kernels either). Stages that read or
    clean more check themselves (:data:`SELF_CHECKED`).

    Raises:
        OutputRefusedError: naming the stage, the option and the fix.
    """
    from nsightflow.outputs import Output, check_output

    stage = args.subcommand
    if stage in SELF_CHECKED:
        return
    given = {k: v for k, v in vars(args).items() if k not in ("handler", "subcommand")}
    paths = {
        k: [v] if isinstance(v, Path) else [p for p in v if isinstance(p, Path)]
        for k, v in given.items()
        if isinstance(v, Path | list)
    }
    inputs = [
        (f"the input --{k.replace('_', '-')}", p)
        for k, ps in paths.items()
        if k not in OUTPUTS
        for p in ps
    ]
    # the stage's --kernels-dir, else the project's (every stage's default)
    kernels = given.get("kernels_dir")
    kernels = kernels if isinstance(kernels, Path) else Path("kernels")
    for name in OUTPUTS:
        for path in paths.get(name, []):
            option = f"--{name.replace('_', '-')}"
            out = Output(stage, option, path, folder=name == "out_dir")
            read = [i for i in inputs if _same(i[1], path)]
            read.append(("the kernels folder", kernels))
            check_output(out, read)


def _same(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one path (resolved): only that is refused here."""
    return bool(a.resolve() == b.resolve())


def run_stage(args: argparse.Namespace) -> int:
    """Run one parsed subcommand inside the error boundary."""
    handler: Handler = args.handler
    try:
        check_outputs(args)
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
