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

from nsightflow.errors import StageInputError
from nsightflow.family.registry import Family


@dataclass(frozen=True)
class Layout:
    """Where a run's files are: the workflow's ``results/`` folder and the kernels."""

    results: Path
    kernels_dir: Path

    def variant_file(self, stage: str, family: str, variant: str, ext: str) -> Path:
        """``results/<stage>/<family>/<variant><ext>``."""
        return self.results / stage / family / f"{variant}{ext}"

    def analysis_dir(self, family: str) -> Path:
        """``results/analysis/<family>``: the analyze stage's tables."""
        return self.results / "analysis" / family

    def report_dir(self, family: str) -> Path:
        """``results/report/<family>``: report, summary.csv and ``figures/``."""
        return self.results / "report" / family


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


def files(layout: Layout, sel: Selection, stage: str, ext: str) -> list[str]:
    """One path per chosen variant under ``results/<stage>/<family>/``."""
    name = sel.family.name
    return [str(layout.variant_file(stage, name, v, ext)) for v in sel.names]


def parse_argv(layout: Layout, sel: Selection) -> list[str]:
    """``parse``: every chosen variant's profile folder into its three tables."""
    name = sel.family.name
    folders = [str(layout.results / "profile" / name / v) for v in sel.names]
    return [
        "parse",
        *folders,
        "-o",
        *files(layout, sel, "metrics", ".csv"),
        "--rules",
        *files(layout, sel, "metrics", ".rules.csv"),
        "--source",
        *files(layout, sel, "metrics", ".source.csv"),
        "--resources",
        *files(layout, sel, "build", ".resources.json"),
        "--family",
        name,
        "--keep-going",
    ]


def analyze_argv(layout: Layout, sel: Selection, sanitize: bool) -> list[str]:
    """``analyze``: the family's tables and summary.csv (rule analyze_family)."""
    name = sel.family.name
    return [
        *("analyze", "--kernels-dir", str(layout.kernels_dir), "--family", name),
        *("--resources", *files(layout, sel, "build", ".resources.json")),
        *("--verify", *files(layout, sel, "verify", ".json")),
        *("--timing", *files(layout, sel, "time", ".json")),
        *("--metrics", *files(layout, sel, "metrics", ".csv")),
        *("--rules", *files(layout, sel, "metrics", ".rules.csv")),
        *("--source", *files(layout, sel, "metrics", ".source.csv")),
        *("--profiles", str(layout.results / "profile" / name)),
        *("--sanitize", *(files(layout, sel, "sanitize", ".json") if sanitize else [])),
        *("--ceilings", str(layout.results / "ceilings.json")),
        *("--out-dir", str(layout.analysis_dir(name))),
        *("--summary", str(layout.report_dir(name) / "summary.csv")),
    ]


def plot_argv(layout: Layout, sel: Selection) -> list[str]:
    """``plot``: the family's figures from its tables."""
    name = sel.family.name
    return [
        *("plot", "--analysis-dir", str(layout.analysis_dir(name))),
        *("--out-dir", str(layout.report_dir(name) / "figures")),
    ]


def sweep_argvs(layout: Layout, sel: Selection) -> list[list[str]]:
    """``sweep-analyze`` and ``sweep-plot`` of the swept variants (none: no calls)."""
    if not sel.swept:
        return []
    name = sel.family.name
    records = [str(layout.variant_file("sweep", name, v, ".json")) for v in sel.swept]
    analysis = str(layout.analysis_dir(name))
    figures = str(layout.report_dir(name) / "figures" / "sweep")
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
        *("--figures-dir", str(layout.report_dir(name) / "figures")),
        *("--out-dir", str(layout.report_dir(name)), "--language", language),
        *("--only", "report"),
    ]
    if sel.swept:
        argv += ["--sweep", str(layout.analysis_dir(name) / "sweep_summary.csv")]
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
