"""The stage commands the API runs: the workflow rules' command lines, per family.

Each function returns the arguments of one ``nsightflow <stage>`` call with the same
inputs and outputs as the Snakemake rule of that stage (``workflow/rules/*.smk``), in
the ``results/`` layout the workflow writes. :func:`run_stage` runs one in this
process through the stage's own handler (its exceptions reach the caller);
:func:`run_isolated` runs one in a child process, as the workflow does for parse:
``ncu_report`` must be loaded before pandas, which a notebook has usually imported.
"""

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nsightflow.contracts.layout import Layout as ResultsLayout
from nsightflow.errors import StageInputError
from nsightflow.family.registry import Family


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
        *files(layout, sel, "source"),
        "--resources",
        *files(layout, sel, "resources"),
        "--family",
        name,
        "--keep-going",
    ]


def analyze_argv(layout: Layout, sel: Selection, sanitize: bool) -> list[str]:
    """``analyze``: the family's tables and summary.csv (rule analyze_family)."""
    name = sel.family.name
    return [
        *("analyze", "--kernels-dir", str(layout.kernels_dir), "--family", name),
        *("--resources", *files(layout, sel, "resources")),
        *("--verify", *files(layout, sel, "verify")),
        *("--timing", *files(layout, sel, "time")),
        *("--metrics", *files(layout, sel, "metrics")),
        *("--rules", *files(layout, sel, "rules")),
        *("--source", *files(layout, sel, "source")),
        *("--profiles", str(layout.path("profiles", name))),
        *("--sanitize", *(files(layout, sel, "sanitize") if sanitize else [])),
        *("--ceilings", str(layout.path("ceilings"))),
        *("--out-dir", str(layout.analysis_dir(name))),
        *("--summary", str(layout.path("summary", name))),
    ]


def plot_argv(layout: Layout, sel: Selection) -> list[str]:
    """``plot``: the family's figures from its tables."""
    name = sel.family.name
    return [
        *("plot", "--analysis-dir", str(layout.analysis_dir(name))),
        *("--out-dir", str(layout.path("figures", name))),
    ]


def sweep_argvs(layout: Layout, sel: Selection) -> list[list[str]]:
    """``sweep-analyze`` and ``sweep-plot`` of the swept variants (none: no calls)."""
    if not sel.swept:
        return []
    name = sel.family.name
    records = [str(layout.path("sweep_record", name, v)) for v in sel.swept]
    analysis = str(layout.analysis_dir(name))
    figures = str(layout.path("sweep_figures", name))
    return [
        [
            *("sweep-analyze", "--kernels-dir", str(layout.kernels_dir)),
            *("--family", name, "--records", *records, "--out-dir", analysis),
        ],
        [
            *("sweep-plot", "--analysis-dir", analysis, "--out-dir", figures),
            *("--variants", *sel.swept),
        ],
    ]


def report_argv(layout: Layout, sel: Selection, language: str) -> list[str]:
    """``report``: report.md / .html / .json in ``language`` (rule report_family)."""
    name = sel.family.name
    argv = [
        *("report", "--analysis-dir", str(layout.analysis_dir(name))),
        *("--figures-dir", str(layout.path("figures", name))),
        *("--out-dir", str(layout.report_dir(name)), "--language", language),
        *("--only", "report"),
    ]
    if sel.swept:
        argv += ["--sweep", str(layout.path("sweep_summary", name))]
    return argv


def cpu_stages(
    layout: Layout, sel: Selection, sanitize: bool, language: str
) -> list[list[str]]:
    """Every stage after the GPU's, in the workflow's order: parse to report."""
    return [
        parse_argv(layout, sel),
        analyze_argv(layout, sel, sanitize),
        plot_argv(layout, sel),
        *sweep_argvs(layout, sel),
        report_argv(layout, sel, language),
    ]
