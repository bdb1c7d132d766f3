"""``nsightflow replay-family``: a family's recorded GPU-stage outputs into results/."""

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nsightflow.family.registry import Family
    from nsightflow.machine.replay import ReplayStages


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``replay-family`` to the CLI."""
    p = sub.add_parser(
        "replay-family", help="copy one family's recorded outputs into results/"
    )
    p.add_argument("--source", type=Path, required=True, help="the recording folder")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--results", type=Path, default=Path("results"))
    p.add_argument("--arch", default="sm_90", help="for variants edited since")
    p.add_argument("--no-sanitize", action="store_true")
    p.add_argument("--no-timeline", action="store_true")
    p.add_argument(
        "--sweep",
        nargs="*",
        default=[],
        metavar="VARIANT",
        help="swept variants: replay their sweep records too",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow replay-family``."""
    from nsightflow.family.registry import load_family
    from nsightflow.machine.replay import ReplayStages

    stages = ReplayStages(
        sanitize=not args.no_sanitize,
        timeline=not args.no_timeline,
        sweep=frozenset(args.sweep),
    )
    family = load_family(args.kernels_dir / args.family)
    replay(args.source, family, args.results, stages, args.arch)
    return 0


def replay(
    source: Path, family: "Family", results: Path, stages: "ReplayStages", arch: str
) -> None:
    """Replay one family's recorded outputs, saying what was refused or rebuilt."""
    from nsightflow.machine.replay import replay_family

    done = replay_family(source, family, results, stages, arch)
    print(f"replayed {family.name} ({len(family.variants)} variants) from {source}")
    for refusal in done.refused:  # each output is not_recorded, its message this line
        print(f"WARNING: {refusal}", file=sys.stderr)
    for name in done.changed:
        print(
            f"WARNING: {family.name}/{name}: source changed since the recording; "
            "compiled again, measurements are of the recorded source"
        )
