"""
Shared setup: validate the config, load the kernel registry, constrain wildcards and
provide the input functions the rules use. Logic lives in the nsightflow package.
"""

import shlex
import shutil
import sys
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

from nsightflow.tools.nvcc import local_includes

# L.<name>: a stage file's path pattern under results/, declared once for the rules
# and the Python API (nsightflow.contracts.layout); fill() fixes some wildcards.
from nsightflow.contracts.layout import RESULTS, RULES as L, fill
from nsightflow.machine.gpulock import lock_command
from nsightflow.errors import NsightflowError
from nsightflow.family.registry import load_families
from nsightflow.machine.recording import choose_mode
from nsightflow.machine.replay import ReplayStages, variant_outputs
from nsightflow.plot.names import STEP_DIR, figure_files
from nsightflow.report.paths import index_stem, report_stem, stem_language

validate(config, schema="../schemas/config.schema.yaml")


def workflow_path(value):
    """A config path: as given where it exists from the working folder, else the one
    beside the Snakefile. `snakemake --directory OTHER` then runs this repository's
    kernels and recording and writes OTHER/results (a second run to compare)."""
    path = Path(value)
    beside = Path(workflow.basedir) / path
    return (
        beside
        if not path.is_absolute() and not path.exists() and beside.exists()
        else path
    )


KERNELS = workflow_path(config["kernels_dir"])
SOURCE = workflow_path(config["source"])
try:
    FAMILIES = {f.name: f for f in load_families(KERNELS, config["families"])}
    MODE, MODE_REASON = choose_mode(config["mode"], SOURCE)
except NsightflowError as exc:
    sys.exit(f"ERROR: {exc}")
HAVE_NVCC = shutil.which("nvcc") is not None
# Prefix of every GPU rule's command: one GPU job per device (nsightflow.machine.gpulock).
# Use: `params: lock=GPU_LOCK` and `{params.lock} python -m nsightflow <stage> ...`.
GPU_LOCK = shlex.join(lock_command(config["gpus"]))
FIGURE_FILES = figure_files()  # the plot stage's files, named in nsightflow.plot.names
logger.info(f"nsightflow: {MODE_REASON}")
if MODE == "replay" and not HAVE_NVCC:
    logger.info(
        "nsightflow: nvcc not found; a variant edited since the recording "
        "keeps its recorded register and shared-memory figures"
    )


wildcard_constraints:
    family="[a-z][a-z0-9_]*",
    variant="v[0-9]+_[a-z0-9_]+",


def is_activated(section):
    return bool(config[section].get("enabled", True))


def variant_source(wildcards):
    """The variant's CUDA file as its manifest names it (default <variant>.cu)."""
    return str(FAMILIES[wildcards.family].variants[wildcards.variant].source)


def variant_headers(wildcards):
    """The headers the variant's source includes ("..." includes, recursively)."""
    return [str(p) for p in local_includes(Path(variant_source(wildcards)))]


def tuned_file(wildcards):
    """kernels/<family>/tuned.yaml where it exists (a starting configuration)."""
    path = Path(KERNELS) / wildcards.family / "tuned.yaml"
    return [str(path)] if path.is_file() else []


def variant_names(wildcards):
    """The family's variants, space-separated (a rule's params)."""
    return " ".join(FAMILIES[wildcards.family].variants)


def family_weight(family):
    """A family's share of the CPU after the GPU stages: variants x profiled sizes.

    Its jobs' `priority`: with 2 cores, the heaviest family's chain (replay, parse,
    analyze with its figures, report, PDF) starts first instead of running alone at
    the end (a replay of the eight families waited ~9 s on SGEMM's chain).
    """
    return len(family.variants) * max(1, len(family.profile_sizes))


def family_priority(wildcards):
    """Priority function of the per-family rules (see `family_weight`)."""
    family = FAMILIES.get(wildcards.family)
    return family_weight(family) if family is not None else 0


def family_files(family, pattern):
    """`pattern` expanded over every variant of `family`, in the manifest's order."""
    return [pattern.format(family=family.name, variant=v) for v in family.variants]


def input_folder(name):
    """Param function: the folder holding the rule's input `name` (its first file).

    For stages that read a folder of fixed-named files another stage wrote (the
    analysis tables, the figures): the folder comes from the rule's declared inputs."""
    return lambda wildcards, input: str(Path(_first(input, name)).parent)


def output_folder(name):
    """Param function: the folder of the rule's output `name` (its first file), for
    stages that write many fixed-named files there (analysis tables, figures)."""
    return lambda wildcards, output: str(Path(_first(output, name)).parent)


def _first(files, name):
    value = getattr(files, name)
    return value if isinstance(value, str) else value[0]


def variant_files(pattern):
    """Input function: `pattern` expanded over every variant of the wildcard's family."""

    def inputs(wildcards):
        return family_files(FAMILIES[wildcards.family], pattern)

    return inputs


def metrics_inputs(kind):
    """Parsed ncu tables of the family, or none when profiling is switched off."""
    pattern = {
        "metrics": L.metrics,
        "rules": L.rules,
        "source": L.source,
        "profiles": L.profiles,
    }[kind]
    if not is_activated("profile"):
        return lambda wildcards: []
    if kind == "profiles":  # one folder per family (its variants share a report)
        return lambda wildcards: [pattern.format(family=wildcards.family)]
    return variant_files(pattern)


def timeline_inputs(kind):
    """The report's timeline inputs, or none when the timeline is switched off."""
    if not is_activated("timeline"):
        return []
    return {
        "summary": L.timeline_summary,
        "figure": L.timeline_figure,
    }[kind]


# The analyze job's timeline part (timeline.smk), when the timeline is switched on.
TIMELINE_INPUTS = (
    {
        "timeline_records": variant_files(L.timeline_record),
        "timeline_tables": variant_files(L.timeline_table),
    }
    if is_activated("timeline")
    else {}
)
TIMELINE_OUTPUTS = (
    {
        "timeline": L.timeline,
        "timeline_summary": L.timeline_summary,
        "timeline_figure": L.timeline_figure,
        "timeline_svg": L.timeline_svg,
    }
    if is_activated("timeline")
    else {}
)


# The measure job's timeline part (config `timeline`), when it is switched on.
MEASURE_TIMELINE = (
    {
        "inputs": {"choice": L.timeline_backend},
        "outputs": {
            "record": L.timeline_record,
            "table": L.timeline_table,
        },
    }
    if is_activated("timeline")
    else {"inputs": {}, "outputs": {}}
)


def measure_timeline_args(wildcards, input, output):
    """Param function: the measure job's timeline flags, or none when it is off."""
    if not is_activated("timeline"):
        return ""
    line = config["timeline"]
    return shlex.join(
        [
            *("--timeline-record", output.record, "--timeline-table", output.table),
            *(
                "--backend-choice",
                input.choice,
                "--timeline-backend",
                line["backend"],
            ),
            *("--timeline-timeout-s", str(line["timeout_s"]), "--timeline-sizes"),
            *(str(n) for n in line["sizes"]),
        ]
    )


def timeline_stages(wildcards, input, output):
    """Param function: the timeline stages chained after the analyze job's own
    (`--then timeline-analyze ... --then timeline-plot ...`), or nothing."""
    if not is_activated("timeline"):
        return ""
    folder = str(Path(output.timeline).parent)
    return shlex.join(
        [
            *("--then", "timeline-analyze", "--records", *input.timeline_records),
            *("--tables", *input.timeline_tables, "--out-dir", folder),
            *("--then", "timeline-plot", "--analysis-dir", folder),
            *("--family", wildcards.family, "--out", output.timeline_figure),
        ]
    )


def family_sources(family):
    """Every variant's source and the headers it includes (an edit re-runs replay)."""
    files = {}
    for variant in family.variants.values():
        files[str(variant.source)] = None
        files.update({str(p): None for p in local_includes(variant.source)})
    return list(files)


def recorded_files(family):
    """Every file the recording holds for the family (an edit re-runs its replay)."""
    return sorted(
        str(path)
        for stage in (
            "build",
            "verify",
            "time",
            "profile",
            "sanitize",
            "timeline",
            "sweep",
        )
        for path in (SOURCE / stage / family.name).rglob("*")
        if path.is_file()
    )


def replay_outputs(family):
    """Every file (and profile folder) the family's replay job writes."""
    stages = ReplayStages(
        is_activated("sanitize"),
        is_activated("timeline"),
        frozenset(swept(family.name)),
    )
    outputs = []
    for name in family.variants:
        for path in variant_outputs(RESULTS, family.name, name, stages):
            if path.parent.parent.name != "profile":
                outputs.append(str(path))
    # the profile folders: one per family, as the profile stage writes them
    return outputs + [directory(fill(L.profiles, family=family.name))]


def replay_skip_flags():
    flags = [] if is_activated("sanitize") else ["--no-sanitize"]
    return " ".join(flags + ([] if is_activated("timeline") else ["--no-timeline"]))


def check_writable():
    """Stop in one line when the folders the run writes are not writable.

    Called from `onstart:` (skipped in a dry run). Without it a read-only results/
    ends in Snakemake's own traceback when it removes a job's stale outputs."""
    import tempfile
    from nsightflow.errors import describe

    for folder in (Path("results"), Path("logs")):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as exc:
            message = describe(OSError(exc.errno, exc.strerror, str(folder)))
            sys.exit(f"ERROR: {message or exc}")


def archive_measurements():
    """Measure mode: keep the previous raw outputs before jobs replace them.

    Called from `onstart:`, which Snakemake skips in a dry run."""
    if MODE != "measure":
        return
    from nsightflow.machine.history import archive

    folder = archive(RESULTS)
    if folder is not None:
        logger.info(f"nsightflow: previous measurements kept in {folder}")


def drop_local_job_rate_limit():
    """Local runs: no jobs-per-timespan limit. Called from `onstart:`.

    Snakemake 9 sets one by default (`--max-jobs-per-timespan 100/1s`), and with it
    each scheduling pass that leaves a ready job waiting starts a 1 s timer for another
    pass; every finished job starts another chain of them (snakemake PR 3744), and each
    pass stats every input of every ready job. A replay of the eight families at 80
    jobs made ~4,000 passes and 1.5 million stat calls: 9.4 s of Snakemake's own CPU
    (3.7 s without the limit) on 2 cores. A local run submits nothing that needs a
    rate limit; a cluster executor (profiles/slurm) keeps its limit. A no-op where
    Snakemake's scheduler lacks the attribute."""
    scheduler = getattr(workflow, "scheduler", None)
    if workflow.local_exec and getattr(scheduler, "job_rate_limiter", None):
        scheduler.job_rate_limiter = None


# File stems per language (report.md, report.zh.md; index.html, index.zh.html).
REPORT_STEMS = r"report(\.zh)?"
INDEX_STEMS = r"index(\.zh)?"


def report_language(wildcards):
    """The language a report's or index's file name says: `report.zh` -> zh."""
    return stem_language(wildcards.get("report") or wildcards.get("index"))


def index_facts(wildcards):
    """Every family's report.json in the index's language (report.zh.json for zh)."""
    stem = report_stem(report_language(wildcards))
    return [fill(L.report_json, family=family, report=stem) for family in FAMILIES]


def report_targets():
    """The reports in the configured language, the summaries, ceilings and index."""
    stem = report_stem(config["report"]["language"])
    return [
        fill(L.report_file, family=family, name=name)
        for family in FAMILIES
        for name in (f"{stem}.md", f"{stem}.html", f"{stem}.pdf", "summary.csv")
    ] + [
        L.ceilings_csv,
        fill(L.index_html, index=index_stem(config["report"]["language"])),
    ]


def swept(family):
    """The family's variants that declare params, when sweeps are switched on
    (only those config `sweep.variants` names, when it names any)."""
    if not is_activated("sweep"):
        return []
    chosen = config["sweep"]["variants"]
    return [
        name
        for name, v in FAMILIES[family].variants.items()
        if v.params and (not chosen or f"{family}/{name}" in chosen)
    ]


def swept_files(pattern):
    """Input function: `pattern` expanded over the family's swept variants."""
    return lambda wildcards: [
        pattern.format(family=wildcards.family, variant=v)
        for v in swept(wildcards.family)
    ]


def swept_names(wildcards):
    """The family's swept variants, space-separated (a rule's params)."""
    return " ".join(swept(wildcards.family))


def sweep_record(wildcards):
    """The variant's sweep record when it is swept (compile builds its best)."""
    if wildcards.variant not in swept(wildcards.family):
        return []
    return [fill(L.sweep_record, family=wildcards.family, variant=wildcards.variant)]


def sweep_inputs(kind):
    """The sweep's outputs a stage reads (the step figures: its timings), or none for
    a family without swept variants."""
    path = {
        "table": L.sweep,
        "summary": L.sweep_summary,
        "figures": L.sweep_figures,
    }[kind]
    return lambda wildcards: (
        [path.format(family=wildcards.family)] if swept(wildcards.family) else []
    )


def sanitize_inputs(wildcards):
    """The family's sanitizer records, or none when the stage is switched off."""
    if not is_activated("sanitize"):
        return []
    return variant_files(L.sanitize)(wildcards)
