"""A run's counters: the parse stage's tables of a results folder, else its reports.

Read through :mod:`nsightflow.untrusted` for :func:`nsightflow.analysis.runs.load_run`:
a table must be CSV naming its own family and variant, a profile folder's reports
must stay inside it (or its family's folder); what is refused is left out and named.
"""

import io
from pathlib import Path, PurePosixPath

import pandas as pd

from nsightflow.contracts import METRICS, RULES, Table
from nsightflow.contracts import columns as col
from nsightflow.untrusted import (
    COMPRESSED,
    MissingRecord,
    RecordError,
    Tree,
    Where,
    check_table,
)


def read_counters(
    tree: Tree, families: list[str], refused: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The metrics and rules tables of ``families`` (the parse stage's long tables).

    A table or a profile folder the reader refuses is left out, named in ``refused``.
    """
    from nsightflow.tools.profile_layout import parts_of_folder

    metrics: list[pd.DataFrame] = []
    rules: list[pd.DataFrame] = []
    reports: list[Path] = []
    for family in families:
        if not (tree.root / "profile" / family).is_dir():
            continue
        for variant in folders(tree, f"profile/{family}", refused):
            folder = tree.path(f"profile/{family}/{variant}")
            if not (folder / "profile.json").is_file():
                continue
            table = _table(tree, (family, variant), METRICS, refused)
            if table is not None:
                metrics.append(table)
                ruled = _table(tree, (family, variant), RULES, refused)
                rules += [] if ruled is None else [ruled]
                continue
            try:
                if parts_of_folder(folder):
                    reports.append(folder)
            except RecordError as exc:
                refused.append(str(exc))
    if reports:
        from nsightflow.tools.ncu_parse import parse_files

        parsed, parsed_rules = parse_files(reports, keep_going=True)
        metrics.append(parsed)
        rules.append(parsed_rules)
    return _concat(metrics), _concat(rules)


def folders(tree: Tree, rel: str, refused: list[str]) -> list[str]:
    """The folders in ``rel``; a link or other entry there is refused, not entered."""
    found = []
    for name in tree.entries(rel):
        entry = tree.path(f"{rel}/{name}")
        if entry.is_symlink():
            refused.append(f"{entry}: a link, not followed; left out")
        elif entry.is_dir():
            found.append(name)
        elif name != SNAKEMAKE_MARKER and not _family_report(rel, name):
            refused.append(f"{entry}: a file where variants' folders are; left out")
    return found


def _family_report(rel: str, name: str) -> bool:
    """Whether ``name`` is a family's shared report beside its variants' folders.

    ``<family>.<hash>.ncu-rep`` (or its compressed copy) is read through the variants
    whose ``profile.json`` names it, not refused as a stray file.
    """
    family = PurePosixPath(rel)
    return (
        family.parent.name == "profile"
        and name.startswith(f"{family.name}.")
        and name.endswith((".ncu-rep", ".ncu-rep" + COMPRESSED))
    )


# The empty file Snakemake writes into every folder a rule declares as its output
# (results/profile/<family>/): part of every run, not a variant.
SNAKEMAKE_MARKER = ".snakemake_timestamp"


def _table(
    tree: Tree, ident: tuple[str, str], table: Table, refused: list[str]
) -> pd.DataFrame | None:
    """A parse-stage table of the run, checked to name its own family and variant."""
    rel = f"metrics/{ident[0]}/" + table.name.replace("<variant>", ident[1])
    try:
        raw = tree.read_bytes(rel, 1 << 30)
        if len(raw) <= 1:
            return None
        check_table(raw, tree.path(rel), Where("table", *ident))
        frame = table.read(io.BytesIO(raw))
        if frame.empty:  # the header alone: a variant ncu did not profile (a library's)
            return None
        if col.VALUE in frame and not pd.api.types.is_numeric_dtype(frame[col.VALUE]):
            raise RecordError(
                tree.path(rel), "holds values that are not numbers", col.VALUE
            )
    except MissingRecord:
        return None
    except RecordError as exc:
        refused.append(str(exc))
        return None
    except ValueError as exc:  # a column that is not of its declared type
        refused.append(f"{tree.path(rel)}: {exc}")
        return None
    return frame


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
