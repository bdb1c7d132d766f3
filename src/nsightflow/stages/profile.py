"""``nsightflow profile``: the variants of a family under ncu, in one process."""

import argparse
from pathlib import Path

from nsightflow.contracts import columns as col
from nsightflow.errors import StageInputError
from nsightflow.io import write_json
from nsightflow.outputs import PROFILE_FILES, Output, check_output, remove_own

OUT_FIX = "give the family's own profile folder, such as results/profile/<family>"


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``profile`` to the CLI."""
    p = sub.add_parser(
        "profile",
        help="one launch per profiled size of each variant under ncu (one process)",
    )
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument("--family", required=True)
    p.add_argument("--variant", nargs="+", required=True, help="variant names")
    p.add_argument(
        "--cubin", type=Path, nargs="+", required=True, help="one per --variant"
    )
    p.add_argument(
        "--verify", type=Path, nargs="+", required=True, help="one per --variant"
    )
    p.add_argument(
        "--out-dir",
        type=Path,
        required=True,
        help="the family's profile folder: <variant>/profile.json and the report",
    )
    p.add_argument("--clock-control", choices=["none", "base"], default="none")
    p.add_argument("--set", choices=["lean", "full"], default="lean")
    p.add_argument("--timeout-s", type=float, default=300, help="per variant")
    p.add_argument("--seed", type=int, default=408)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow profile``."""
    from nsightflow.family.tuned import built_config
    from nsightflow.gpu import driver
    from nsightflow.tools.ncu import NcuSettings

    names = list(args.variant)
    for option in ("cubin", "verify"):
        given = getattr(args, option)
        if len(given) != len(names):
            raise StageInputError(
                f"profile: {len(given)} --{option} paths for {len(names)} --variant "
                f"names; give one --{option} per variant, in the same order"
            )
    variants = {
        name: {"cubin": cubin, "verify": verify}
        for name, cubin, verify in zip(names, args.cubin, args.verify, strict=True)
    }
    settings = NcuSettings(args.clock_control, args.set, args.timeout_s)
    out = Output("profile", "--out-dir", args.out_dir, fix=OUT_FIX)
    check_output(out, [("the kernels folder", args.kernels_dir)])
    for name in names:  # a variant's folder holds this run's outputs only
        remove_own(args.out_dir / name, PROFILE_FILES, "profile: --out-dir")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    records = driver.profile(
        args.kernels_dir, args.family, variants, args.out_dir, settings, args.seed
    )
    for name, record in records.items():
        folder = args.out_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        record[col.CONFIG] = built_config(variants[name]["cubin"])
        write_json(folder / "profile.json", record)
        print(f"{args.family}/{name}: profile {record['status']} {record['message']}")
    return 0
