"""``nsightflow gpu-lock``: run a command on a GPU no other GPU job holds (lock file)."""

import argparse


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``gpu-lock`` to the CLI."""
    p = sub.add_parser(
        "gpu-lock", help="run a command on a GPU no other GPU job holds (lock file)"
    )
    p.add_argument("--devices", nargs="+", default=[], help="device ids to use")
    p.add_argument("--lock-dir", default="", help="default: the temporary folder")
    p.add_argument("--wait-s", type=float, default=0.0, help="0: wait as needed")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow gpu-lock``."""
    from nsightflow.machine.gpulock import run_locked

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    run_locked(command, args.devices, args.lock_dir, args.wait_s)
    return 0  # not reached: run_locked replaces this process
