"""``nsightflow timeline-backend``: choose the timeline backend this machine can run."""

import argparse
from pathlib import Path

from nsightflow.io import write_json
from nsightflow.tools import provenance


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``timeline-backend`` to the CLI."""
    p = sub.add_parser(
        "timeline-backend", help="choose the timeline backend this machine can run"
    )
    p.add_argument("--backend", choices=["auto", "cupti", "nsys"], default="auto")
    p.add_argument("--out", type=Path, required=True)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow timeline-backend``."""
    from nsightflow.gpu.timeline.driver import choose_backend, probe_capabilities

    choice = choose_backend(args.backend, probe_capabilities())
    write_json(args.out, {**choice.__dict__, "provenance": provenance.collect()})
    print(f"nsightflow timeline: {choice.message}")
    return 0
