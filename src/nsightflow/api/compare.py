"""Two runs compared from Python: ``nsightflow compare`` as DataFrames.

The same reading, pairing and verdicts as the ``compare`` command
(:mod:`nsightflow.analysis.compare`, :mod:`nsightflow.analysis.compare_causes`),
and, given ``out_dir``, the same files (``compare.md``, ``.html``, ``.csv``).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.api.run import Results


@dataclass(frozen=True)
class Compared:
    """B against A.

    Attributes:
        pairs: one row per variant x size timed in both (``compare.csv``): medians,
            ratio B/A with its interval, verdict SAME / FASTER / SLOWER / UNCERTAIN,
            whether the code changed, the counters that moved.
        counters: every counter of every pair profiled in both, with its change.
        statuses: variants whose status differs between the runs.
        verdicts: the number of pairs per verdict.
        comparison: everything ``compare`` computes (provenance, rules, sources).
        out_dir: where the report files were written, when asked.
    """

    pairs: pd.DataFrame
    counters: pd.DataFrame
    statuses: pd.DataFrame
    verdicts: dict[str, int]
    comparison: Any
    out_dir: Path | None = None


def compare(
    a: "Results | Path",
    b: "Results | Path",
    families: tuple[str, ...] = (),
    out_dir: Path | None = None,
    min_change: float | None = None,
    kernels_dir: Path = Path("kernels"),
) -> Compared:
    """Did run B get faster, slower, or stay the same as run A?

    Args:
        a: the run compared against (a results folder, a history entry or a
            recording such as ``examples/h200``), or a :class:`Results`.
        b: the run compared.
        families: the families to compare (default: all in both).
        out_dir: also write ``compare.md``, ``compare.html``, ``compare.csv``,
            ``compare_counters.csv`` and the figure there.
        min_change: the smallest change that counts, as a fraction (default 3 %);
            a pair's own noise raises it.
        kernels_dir: the families' folder (their manifests name the steps, and git
            there gives the code a run did not record).
    """
    import nsightflow.tools.ncu_parse  # noqa: F401  (ncu_report before pandas)
    from nsightflow.analysis import compare as C
    from nsightflow.analysis.compare_causes import compare_runs
    from nsightflow.analysis.runs import fill_sources, load_run
    from nsightflow.family.registry import load_families
    from nsightflow.stages.compare import (
        check_out_dir,
        git_sources,
        table,
        write_outputs,
    )

    paths = [x.path if isinstance(x, Results) else Path(x) for x in (a, b)]
    if out_dir is not None:  # refused before anything is read or written
        check_out_dir(Path(out_dir), paths, Path(kernels_dir), ("compare", "out_dir"))
    read = [load_run(p, list(families)) for p in paths]
    run_a, run_b = fill_sources(read[0], read[1], git_sources(kernels_dir))
    known = load_families(kernels_dir, []) if kernels_dir.is_dir() else []
    floor = C.DEFAULT_MIN_CHANGE if min_change is None else min_change
    settings = C.CompareSettings(min_change=floor)
    comparison = compare_runs(run_a, run_b, settings, {f.name: f for f in known})
    if out_dir is not None:
        write_outputs(comparison, Path(out_dir), "en")
    return Compared(
        pairs=table(comparison),
        counters=comparison.counters,
        statuses=comparison.statuses,
        verdicts=C.verdict_counts(comparison.pairs),
        comparison=comparison,
        out_dir=out_dir,
    )
