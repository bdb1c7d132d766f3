"""``nsightflow reference``: a family's inputs and float64 references, once, on the CPU.

Fills the cache the GPU jobs read (:mod:`nsightflow.family.reference_cache`) for every
input and verify size of the family, without a GPU: the workflow runs it while the GPU
works on other jobs, so no GPU job waits for the references.

The index's folder holds the entries, and stale entries are removed from it: the
folder may not be, hold or lie inside the kernels folder or a repository
(:mod:`nsightflow.outputs`), and only folders the cache made are ever removed.
"""

import argparse
import json
from pathlib import Path

from nsightflow.contracts import columns as col


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``reference`` to the CLI."""
    p = sub.add_parser(
        "reference", help="a family's inputs and float64 references, cached (CPU)"
    )
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--seed", type=int, default=408)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument(
        "--timeout-s",
        type=float,
        default=120.0,
        help="stop generate() and reference() after this long (config verify.timeout_s)",
    )
    p.add_argument(
        "--out", type=Path, required=True, help="index (.json); entries beside it"
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow reference``."""
    import time

    from nsightflow.family.reference_cache import prefill_within
    from nsightflow.family.registry import load_family
    from nsightflow.outputs import Output, check_output, write_atomic

    fix = (
        "give an index of its own folder, such as results/reference/<family>/index.json"
    )
    inputs = [("the kernels folder", args.kernels_dir)]
    check_output(Output("reference", "--out", args.out, folder=False, fix=fix), inputs)
    # its folder holds the entries, and stale ones are removed from it
    check_output(
        Output("reference", "--out's folder", args.out.parent, fix=fix), inputs
    )
    family = load_family(args.kernels_dir / args.family)
    sizes = sorted(set(family.sizes) | set(family.verify_sizes))
    start = time.perf_counter()
    entries = prefill_within(
        args.timeout_s, args.out.parent, family, args.seed, sizes, args.threads
    )
    wall = time.perf_counter() - start
    index = {col.FAMILY: family.name, "seed": args.seed, "entries": entries}
    write_atomic(args.out, (json.dumps(index, indent=1) + "\n").encode())
    made = sum(1 for e in entries if e["seconds"])
    print(
        f"{family.name}: {len(entries)} inputs and references ({made} made, the rest "
        f"cached) in {wall:.1f} s"
    )
    return 0
