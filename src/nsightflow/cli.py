"""Command line: ``nsightflow <stage> ...``, one subcommand per pipeline stage.

Each stage module in :mod:`nsightflow.stages` adds its subcommand
(``register_parser``) and runs it (``run``). :func:`main` is the one error boundary:
expected failures print ``ERROR: ...`` and exit 2; anything else prints a traceback and
says it is a bug.
"""

import argparse
import faulthandler
import importlib
import sys
import traceback
from collections.abc import Callable

from nsightflow.errors import NsightflowError, describe

Handler = Callable[[argparse.Namespace], int]

# The subcommands, in the order of the pipeline (module names under nsightflow.stages).
STAGES = (
    "sweep_compile",
    "sweep",
    "compile",
    "verify",
    "timing",
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
