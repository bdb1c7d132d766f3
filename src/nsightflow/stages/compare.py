"""``nsightflow compare A B``: did B get faster, slower, or stay the same as A?

Reads two runs (results folders, ``results/history/<time>/`` entries or recordings;
files only, no GPU, no Snakemake) and writes into ``-o DIR``: ``compare.md``,
``compare.html`` (the figure embedded), ``compare.csv`` (one row per variant x size
timed in both: :data:`nsightflow.analysis.compare.PAIR_COLUMNS` plus ``code`` and the
counters that moved), ``compare_counters.csv`` (every counter of every pair profiled
in both) and ``figures/compare.png``. Exit status 0, or 1 when ``--fail-on`` finds
what it looks for (2 for an error, as every subcommand).

Where a run did not record the code it timed (recordings made before the time stage
kept it), the code is read from git at the kernels revision the run names, if this
checkout has that commit.
"""

import argparse
import posixpath
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col

# analysis.compare.DEFAULT_MIN_CHANGE as the help says it (a test keeps them equal;
# importing it here would load pandas for every subcommand).
DEFAULT_MIN_HELP = "3%"


def parse_change(text: str) -> float:
    """``2%`` -> 0.02; ``0.02`` -> 0.02.

    Raises:
        argparse.ArgumentTypeError: Neither a percentage nor a fraction below 1
            (argparse prints it with the option's name and exits 2).
    """
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected a percentage such as 2% (or the fraction 0.02)"
        )
    return value


def parse_confidence(text: str) -> float:
    """``95%`` -> 0.95; ``0.95`` -> 0.95: a level strictly between 0 and 1.

    Raises:
        argparse.ArgumentTypeError: anything else (argparse names the option).
    """
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected a confidence level between 0 and 1, such as 0.95 "
            "(or 95%)"
        )
    return value


# What compare reads of a results folder: -o may not point into any of them.
READ = ("time", "profile", "metrics", "history", "build", "verify", "sanitize")


def check_out_dir(
    out_dir: Path,
    inputs: list[Path],
    kernels_dir: Path,
    argument: tuple[str, str] = ("compare", "-o"),
) -> None:
    """``-o`` writes neither into a recording it reads nor over what it reads.

    A results folder's own ``compare/`` (the default) is fine: compare reads none
    of it. The check is :func:`nsightflow.outputs.check_output`'s, as for every
    writer: the repository and the kernels folder are refused too.

    Args:
        out_dir: the folder compare writes.
        inputs: the two runs.
        kernels_dir: the families' folder (read through git for old runs).
        argument: the command and argument the refusal names.

    Raises:
        OutputRefusedError: ``out_dir`` is an input, inside a recording given as
            an input, inside one of the folders compare reads, holds one of them,
            or is a file.
    """
    from nsightflow.outputs import Output, check_output

    read: list[tuple[str, Path]] = [("the kernels folder", kernels_dir)]
    for run in inputs:
        if (run / "recording.json").is_file():
            read.append(("the input", run))
        else:  # a results folder: only what compare reads of it
            read += [("the input's folder", run / name) for name in READ]
    fix = "choose a folder outside it (the default is results/compare)"
    check_output(Output(*argument, out_dir, fix=fix), read)


def _variants_of(manifest: str, where: str) -> dict[str, Any]:
    """The ``variants`` of a manifest at a revision ({} for one that cannot be read).

    Read as every manifest is: bounded aliases, no key twice.
    """
    from nsightflow.errors import ManifestError
    from nsightflow.io import parse_yaml

    try:
        data = parse_yaml(manifest, where) or {}
    except ManifestError:
        return {}
    entries = data.get("variants", {}) if isinstance(data, dict) else {}
    return entries if isinstance(entries, dict) else {}


def git_sources(kernels_dir: Path) -> Any:
    """A source lookup reading ``kernels_dir`` at a revision from git.

    Returns:
        ``lookup(revision, family, variant)`` -> the record the time stage keeps
        (``files``: the manifest entry without ``idea``, the ``.cu`` file, its
        ``#include "..."`` headers), with ``origin`` ``git`` (``git, dirty`` for a
        ``-dirty`` revision: uncommitted changes are not known); None where git, the
        commit or a file is missing.
    """
    from nsightflow.analysis.runs import plain_revision
    from nsightflow.gpu.timing import manifest_entry_text
    from nsightflow.tools.nvcc import LOCAL_INCLUDE

    @cache
    def show(revision: str, path: str) -> str | None:
        try:
            out = subprocess.run(
                ["git", "-C", str(kernels_dir), "show", f"{revision}:./{path}"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout if out.returncode == 0 else None

    def lookup(revision: str, family: str, variant: str) -> dict[str, Any] | None:
        rev = plain_revision(revision)
        manifest = show(rev, f"{family}/family.yaml") if rev else None
        if rev is None or manifest is None:
            return None
        entries = _variants_of(manifest, f"{rev}:{family}/family.yaml")
        if variant not in entries:
            return None
        name = f"{family}/family.yaml (variants.{variant})"
        files = {name: manifest_entry_text(entries, variant)}
        todo = [
            posixpath.join(family, entries[variant].get(col.SOURCE, f"{variant}.cu"))
        ]
        while todo:
            path = todo.pop(0)
            text = show(rev, path)
            if text is None:
                return None
            files[path] = text
            for header in LOCAL_INCLUDE.findall(text):
                found = posixpath.normpath(
                    posixpath.join(posixpath.dirname(path), header)
                )
                if found not in files and show(rev, found) is not None:
                    todo.append(found)
        dirty = revision.endswith("-dirty")
        return {col.FILES: files, "origin": "git, dirty" if dirty else "git"}

    return lookup


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow compare``."""
    import nsightflow.tools.ncu_parse  # noqa: F401  (ncu_report before pandas)
    from nsightflow.analysis import compare as C
    from nsightflow.analysis.compare_causes import compare_runs
    from nsightflow.analysis.runs import fill_sources, load_run
    from nsightflow.family.registry import load_families

    check_out_dir(args.out_dir, [args.a, args.b], args.kernels_dir)
    floor = C.DEFAULT_MIN_CHANGE if args.min is None else args.min
    settings = C.CompareSettings(min_change=floor, confidence=args.confidence)
    read = [load_run(p, args.families, not args.no_counters) for p in (args.a, args.b)]
    for refusal in read[0].refused + read[1].refused:
        print(f"WARNING: left out: {refusal}", file=sys.stderr)
    a, b = fill_sources(read[0], read[1], git_sources(args.kernels_dir))
    families = (
        {f.name: f for f in load_families(args.kernels_dir, [])}
        if args.kernels_dir.is_dir()
        else {}
    )
    comparison = compare_runs(a, b, settings, families)
    write_outputs(comparison, args.out_dir, args.language)
    counts = C.verdict_counts(comparison.pairs, invalid=comparison.invalid)
    invalid = comparison.invalid
    for r, unsized in zip(
        invalid.to_dict("records"), invalid[col.SIZE].isna(), strict=True
    ):
        size = "size unknown" if unsized else f"n={r['size']}"
        print(f"INVALID {r['family']}/{r['variant']} {size}: {r['problem']}")
    print(
        f"compared {sum(counts.values())} pairs: "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + f" -> {args.out_dir / 'compare.md'}"
    )
    return C.exit_status(
        comparison.pairs, comparison.statuses, args.fail_on, len(invalid)
    )


def write_outputs(comparison: Any, out_dir: Path, language: str) -> None:
    """compare.md, compare.html, compare.csv, compare_counters.csv and the figure."""
    from nsightflow.contracts import COMPARE_COUNTERS, COMPARE_PAIRS
    from nsightflow.plot.compare import ratio_figure
    from nsightflow.report.compare import FIGURE, CompareReport
    from nsightflow.report.html import to_html

    out_dir.mkdir(parents=True, exist_ok=True)
    if len(comparison.pairs):
        figure = out_dir / FIGURE
        figure.parent.mkdir(parents=True, exist_ok=True)
        ratio_figure(comparison.pairs, comparison.settings.min_change).savefig(
            figure, dpi=110
        )
    text = CompareReport(comparison, language).build()
    (out_dir / "compare.md").write_text(text)
    page = to_html(text, "nsightflow compare", base_dir=out_dir, language=language)
    (out_dir / "compare.html").write_text(page)
    COMPARE_PAIRS.write(table(comparison), out_dir / COMPARE_PAIRS.name)
    COMPARE_COUNTERS.write(comparison.counters, out_dir / COMPARE_COUNTERS.name)


def table(comparison: Any) -> Any:
    """compare.csv: the pairs with their variant's code status and moved counters.

    Adds ``code`` (changed / same / unknown) and ``counters_moved`` (``counter
    change`` of each counter that moved at that size); across GPUs also
    ``ceiling, pct_a, pct_b`` (each run's share of its own GPU's ceiling).
    """
    import pandas as pd

    pairs = comparison.pairs
    code = comparison.sources[[col.FAMILY, col.VARIANT, col.CODE]]
    out = pairs.merge(code, on=[col.FAMILY, col.VARIANT], how="left")
    moved = comparison.counters[comparison.counters[col.MOVED]]
    text = moved.assign(
        item=[
            f"{c} {v:+.1f}{'pp' if k == 'pp' else '%'}"
            for c, v, k in zip(
                moved[col.COUNTER], moved[col.CHANGE], moved[col.KIND], strict=True
            )
        ]
    )
    joined = (
        text.groupby([col.FAMILY, col.VARIANT, col.SIZE])["item"]
        .agg("; ".join)
        .rename("counters_moved")
    )
    out = out.merge(
        joined.reset_index(), on=[col.FAMILY, col.VARIANT, col.SIZE], how="left"
    )
    if len(comparison.shares):  # across GPUs: each run's share of its own ceiling
        shares = comparison.shares[
            [col.FAMILY, col.VARIANT, col.SIZE, "ceiling", "pct_a", "pct_b"]
        ]
        out = out.merge(shares, on=[col.FAMILY, col.VARIANT, col.SIZE], how="left")
    if len(comparison.invalid):  # after the compared pairs: verdict INVALID, and why
        invalid = comparison.invalid.assign(verdict="INVALID")
        out = pd.concat(
            [out, invalid.drop(columns=[col.RUN, col.WHOLE])], ignore_index=True
        )
    return out


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Register ``compare`` on the CLI's subparsers.

    Imports nothing heavy: every subcommand builds this parser, and ``parse`` must load
    ``ncu_report`` before pandas (see :mod:`nsightflow.tools.ncu_parse`).
    """
    p = sub.add_parser(
        "compare",
        help="B against A: SAME / FASTER / SLOWER / UNCERTAIN per variant and size",
        description="Compare two runs (results folders, results/history/<time>/ "
        "entries or recordings): ratio of medians with its interval and a verdict per "
        "variant and size, the counters and ncu rules that moved, what each run was "
        "measured with, and the code that changed. Reads files only.",
    )
    p.add_argument("a", type=Path, help="the run compared against (before)")
    p.add_argument("b", type=Path, help="the run compared (after)")
    p.add_argument("-o", "--out-dir", type=Path, default=Path("results/compare"))
    p.add_argument(
        "--min",
        type=parse_change,
        default=None,
        metavar="PCT",
        help="smallest change that counts, e.g. 2%% (default "
        f"{DEFAULT_MIN_HELP.replace('%', '%%')}); "
        "a pair's own noise (relative IQR) raises it",
    )
    p.add_argument(
        "--fail-on",
        choices=["none", "slower", "changed"],
        default="none",
        help="exit 1 on a SLOWER pair or a variant broken in B (slower), or on any "
        "FASTER / SLOWER pair or status change (changed)",
    )
    p.add_argument("--families", nargs="+", default=[], help="default: all in both")
    p.add_argument("--kernels-dir", type=Path, default=Path("kernels"))
    p.add_argument(
        "--confidence",
        type=parse_confidence,
        default=0.95,
        help="level of the intervals, between 0 and 1 (default 0.95)",
    )
    p.add_argument(
        "--no-counters", action="store_true", help="skip reading the ncu reports"
    )
    p.add_argument("--language", choices=["en", "zh"], default="en")
    p.set_defaults(handler=run)
