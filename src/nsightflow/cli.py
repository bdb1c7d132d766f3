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
from collections.abc import Callable

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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with one subcommand per stage."""
    parser = argparse.ArgumentParser(prog="nsightflow", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in STAGES:
        importlib.import_module(f"nsightflow.stages.{name}").register_parser(sub)
    for name, command in sub.choices.items():  # every --help ends with an example
        command.epilog = example_epilog(name)
    return parser


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
    parser = build_parser()
    stages = split_stages(sys.argv[1:] if argv is None else argv)
    if len(stages) > 1 and any(not stage for stage in stages):
        parser.error(f"{THEN} needs a stage on each side")
    for args in [parser.parse_args(stage) for stage in stages]:
        code = run_stage(args)
        if code != 0:
            return code
    return 0


def run_stage(args: argparse.Namespace) -> int:
    """Run one parsed subcommand inside the error boundary."""
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
