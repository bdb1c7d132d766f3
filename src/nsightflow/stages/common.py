"""What several stage modules share: the arguments that name one variant."""

import argparse
from pathlib import Path


def variant_args(p: argparse.ArgumentParser) -> None:
    """Add the arguments that name one variant and its cubin."""
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", required=True)
    p.add_argument("--cubin", type=Path, required=True)
    p.add_argument("--seed", type=int, default=408)
