"""Print each family's primary findings (baseline and steps) after a GPU run.

Usage: python scripts/gpu/primaries.py FAMILY... (reads results/analysis/<family>/).
"""

import sys

import pandas as pd

COLUMNS = ("variant", "step_of", "size", "regime", "rule", "share_of_change", "line")


def main(families: list[str]) -> None:
    pd.set_option("display.width", 200)
    for family in families:
        try:
            found = pd.read_csv(f"results/analysis/{family}/findings.csv")
        except OSError as exc:
            print(family, "no findings:", exc)
            continue
        primary = found[
            (found["role"] == "primary") & found["section"].isin(["baseline", "step"])
        ]
        print(primary[[c for c in COLUMNS if c in primary]].to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1:])
