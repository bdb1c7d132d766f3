"""``nsightflow doctor``: what this machine can do, with fixes."""

import argparse


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``doctor`` to the CLI."""
    p = sub.add_parser("doctor", help="what this machine can do, with fixes")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow doctor``."""
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
