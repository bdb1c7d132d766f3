"""The stages the API runs, per family, with the files of the Snakemake rules.

The stages after the GPU's (:func:`analyze`, :func:`figures`, :func:`report`) are
called as functions with the family object the API loaded, in the ``results/``
layout of :mod:`nsightflow.contracts.layout` that the rules use. Parse runs in a
child process (:func:`run_isolated` of :func:`parse_argv`): ``ncu_report`` must be
loaded before pandas, which a notebook has usually imported. The GPU stages of
``measure`` go through :func:`run_stage` with the rules' arguments: each runs its
variants' work in worker processes of its own.
"""

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nsightflow.contracts.layout import Layout as ResultsLayout
from nsightflow.errors import StageInputError
from nsightflow.family.registry import Family

if TYPE_CHECKING:
    from nsightflow.analysis.analyze import AnalysisInputs


@dataclass(frozen=True)
class Layout(ResultsLayout):
    """Where a run's files are: the workflow's ``results/`` layout and the kernels."""

    kernels_dir: Path = Path("kernels")


@dataclass(frozen=True)
class Selection:
    """A family and the variants of it a run covers (all when ``variants`` is empty)."""

    family: Family
    variants: tuple[str, ...] = ()
    swept: tuple[str, ...] = field(default=())

    @property
    def names(self) -> list[str]:
        """The chosen variants, in the manifest's order."""
        chosen = set(self.variants)
        return [v for v in self.family.variants if not chosen or v in chosen]


def run_stage(argv: Sequence[str]) -> None:
    """Run one stage in this process through its own handler.

    Raises:
        NsightflowError: what the stage raises (its CLI prints it as ``ERROR: ...``).
    """
    from nsightflow.cli import build_parser, check_outputs

    args = build_parser().parse_args(list(argv))
    check_outputs(args)  # as the command line does, before the stage writes
    code = args.handler(args)
    if code != 0:
        raise StageInputError(f"nsightflow {argv[0]} exited with status {code}")


def run_isolated(argv: Sequence[str]) -> None:
    """Run one stage as ``python -m nsightflow ARGV`` in a child process.

    Raises:
        StageInputError: the stage failed; its last lines of output are quoted.
    """
    proc = subprocess.run(
        [sys.executable, "-m", "nsightflow", *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise StageInputError(
            f"nsightflow {argv[0]} exited with status {proc.returncode}: "
            + " | ".join(tail)
        )


def files(layout: Layout, sel: Selection, name: str) -> list[str]:
    """The file ``name`` of the layout for each chosen variant."""
    family = sel.family.name
    return [str(layout.path(name, family, v)) for v in sel.names]


def parse_argv(layout: Layout, sel: Selection) -> list[str]:
    """``parse``: every chosen variant's profile folder into its three tables."""
    name = sel.family.name
    folders = files(layout, sel, "profile")
    return [
        "parse",
        *folders,
        "-o",
        *files(layout, sel, "metrics"),
        "--rules",
        *files(layout, sel, "rules"),
        "--source",
        *files(layout, sel, "source"),  # contracts: literal (a layout name)
        "--resources",
        *files(layout, sel, "resources"),
        "--family",
        name,
        "--keep-going",
    ]


def analysis_inputs(layout: Layout, sel: Selection, sanitize: bool) -> "AnalysisInputs":
    """The files the analyze stage reads for the chosen variants (rule analyze_family)."""
    from nsightflow.analysis.analyze import AnalysisInputs

    name = sel.family.name

    def paths(key: str) -> list[Path]:
        return [Path(p) for p in files(layout, sel, key)]

    return AnalysisInputs(
        sel.family.folder,
        resources=paths("resources"),
        verify=paths("verify"),
        timing=paths("time"),
        metrics=paths("metrics"),
        rules=paths("rules"),
        profiles=[layout.path("profiles", name)],
        ceilings=layout.path("ceilings"),
        sanitize=paths("sanitize") if sanitize else [],
        source=paths("source"),  # contracts: literal (a layout name)
    )


def analyze(layout: Layout, sel: Selection, sanitize: bool) -> None:
    """``analyze``: the family's tables, findings and summary.csv."""
    from nsightflow.stages.analyze import analyze as analyze_stage

    name = sel.family.name
    inputs = analysis_inputs(layout, sel, sanitize)
    summary = layout.path("summary", name)
    analyze_stage(sel.family, inputs, layout.analysis_dir(name), summary)


def figures(layout: Layout, sel: Selection) -> None:
    """``plot`` and, for the swept variants, ``sweep-analyze`` and ``sweep-plot``."""
    from nsightflow.plot.figures import write_figures

    name = sel.family.name
    write_figures(layout.analysis_dir(name), layout.path("figures", name))
    if not sel.swept:
        return
    from nsightflow.analysis.sweep import write_analysis
    from nsightflow.plot.sweep import write_figures as write_heatmaps

    records = [layout.path("sweep_record", name, v) for v in sel.swept]
    write_analysis(records, layout.analysis_dir(name), sel.family)
    heatmaps = layout.path("sweep_figures", name)
    write_heatmaps(layout.analysis_dir(name), heatmaps, list(sel.swept))


def report(layout: Layout, sel: Selection, language: str) -> None:
    """``report --only report``: report.md / .html / .json in ``language``."""
    from nsightflow.report.build import write_report

    name = sel.family.name
    write_report(
        layout.analysis_dir(name),
        layout.path("figures", name),
        layout.report_dir(name),
        language=language,
        sweep=layout.path("sweep_summary", name) if sel.swept else None,
        summary=False,
    )
