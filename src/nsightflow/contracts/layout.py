"""Where each stage's files are under a run's ``results/`` folder, declared once.

Each entry of :data:`PATTERNS` is a path relative to the results folder with the
wildcards ``{family}`` and ``{variant}``. The Snakemake rules take their inputs and
outputs from :data:`RULES` (the patterns under ``results/``, through
``workflow/rules/common.smk``); the Python API and replay take the same paths from
:class:`Layout`, so a rule and the API cannot write a stage's file in two places.
"""

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

RESULTS = Path("results")

PATTERNS: dict[str, str] = {
    # compile
    "cubin": "build/{family}/{variant}.cubin",
    "resources": "build/{family}/{variant}.resources.json",
    # the GPU stages
    "references": "reference/{family}/index.json",
    "verify": "verify/{family}/{variant}.json",
    "time": "time/{family}/{variant}.json",
    "profiles": "profile/{family}",
    "profile": "profile/{family}/{variant}",
    "sanitize": "sanitize/{family}/{variant}.json",
    "sweep_record": "sweep/{family}/{variant}.json",
    "sweep_compile": "sweep/{family}/{variant}/compile.json",
    "sweep_build": "sweep/{family}/{variant}/build",
    "sweep_cache": "sweep/{family}/{variant}/cache.jsonl",
    "timeline_backend": "timeline/backend.json",
    "timeline_record": "timeline/{family}/{variant}.json",
    "timeline_table": "timeline/{family}/{variant}.csv",
    "ceilings": "ceilings.json",
    # parse
    "metrics": "metrics/{family}/{variant}.csv",
    "rules": "metrics/{family}/{variant}.rules.csv",
    "source": "metrics/{family}/{variant}.source.csv",
    # analyze, the diagnosis, the sweep and timeline analyses: one folder per family
    "analysis_dir": "analysis/{family}",
    "analysis": "analysis/{family}/analysis.csv",
    "stalls": "analysis/{family}/stalls.csv",
    "family_rules": "analysis/{family}/rules.csv",
    "hotspots": "analysis/{family}/hotspots.csv",
    "context": "analysis/{family}/context.json",
    "findings": "analysis/{family}/findings.csv",
    "sweep": "analysis/{family}/sweep.csv",
    "sweep_summary": "analysis/{family}/sweep_summary.csv",
    "timeline": "analysis/{family}/timeline.csv",
    "timeline_summary": "analysis/{family}/timeline_summary.csv",
    # figures and reports: one folder per family, the index and ceilings beside them
    "report_dir": "report/{family}",
    "summary": "report/{family}/summary.csv",
    "figures": "report/{family}/figures",
    "sweep_figures": "report/{family}/figures/sweep",
    "timeline_figure": "report/{family}/figures/timeline.png",
    "timeline_svg": "report/{family}/figures/timeline.svg",
    "ceilings_csv": "report/ceilings.csv",
    # a report's files by stem: {report} is report (English) or report.<language>
    "report_md": "report/{family}/{report}.md",
    "report_html": "report/{family}/{report}.html",
    "report_json": "report/{family}/{report}.json",
    "report_pdf": "report/{family}/{report}.pdf",
    "report_file": "report/{family}/{name}",
    "figure_file": "report/{family}/figures/{name}",
    # the index over every family: {index} is index or index.<language>
    "index_md": "report/{index}.md",
    "index_html": "report/{index}.html",
}

# The patterns under results/, by name, for the Snakemake rules (`L.verify`).
RULES = SimpleNamespace(**{k: f"{RESULTS.as_posix()}/{v}" for k, v in PATTERNS.items()})


def fill(pattern: str, **values: str) -> str:
    """``pattern`` with the wildcards named in ``values`` filled, the others kept.

    For a Snakemake rule that fixes one wildcard of a pattern (a family's profile
    folder) and leaves the rest to Snakemake (``{report}``).
    """
    for key, value in values.items():
        pattern = pattern.replace("{" + key + "}", str(value))
    return pattern


@dataclass(frozen=True)
class Layout:
    """A run's ``results/`` folder: the path of each stage's file in it."""

    results: Path = RESULTS

    def path(
        self, name: str, /, family: str = "", variant: str = "", **more: str
    ) -> Path:
        """The file (or folder) ``name`` of :data:`PATTERNS` for one family/variant.

        ``more`` fills a pattern's other wildcards (``report``, ``index``, ``name``).
        """
        pattern = PATTERNS[name]
        return self.results / pattern.format(family=family, variant=variant, **more)

    def analysis_dir(self, family: str) -> Path:
        """``results/analysis/<family>``: the analyze stage's tables."""
        return self.path("analysis_dir", family)

    def report_dir(self, family: str) -> Path:
        """``results/report/<family>``: report, summary.csv and ``figures/``."""
        return self.path("report_dir", family)
