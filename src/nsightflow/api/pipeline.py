"""Replay or measure families from Python: the workflow's stages, in its order.

:func:`replay` rebuilds reports from a recording (no GPU), :func:`measure` runs the
GPU stages first (compile, verify, time, profile, sanitize) for some variants at some
sizes. Both run the same ``nsightflow <stage>`` commands as the Snakemake rules,
with the same files in and out (:mod:`nsightflow.api.stages`), into a ``results``
folder laid out as the workflow's, and return a :class:`~nsightflow.api.run.Results`
over it. Timeline traces and parameter sweeps are the workflow's: ``measure`` runs
each variant at its default parameters, ``replay`` replays the recorded sweeps.
"""

import atexit
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nsightflow.api.arguments import (
    check_language,
    check_results,
    check_source,
    family_names,
)
from nsightflow.api.run import Results
from nsightflow.api.stages import (
    Layout,
    Selection,
    analyze,
    figures,
    files,
    parse_argv,
    report,
    run_isolated,
    run_stage,
)
from nsightflow.errors import GpuUnavailableError, ManifestError
from nsightflow.family.registry import load_family, manifest_with_sizes

DEFAULT_KERNELS = Path("kernels")
DEFAULT_SOURCE = Path("examples/h200")


@dataclass(frozen=True)
class MeasureOptions:
    """Settings of :func:`measure`; the defaults are config.yaml's."""

    seed: int = 408  # the inputs' seed (config verify.seed)
    sanitize: bool = True  # compute-sanitizer on each variant (config sanitize)
    ceilings: Path | None = None  # a ceilings.json to use instead of measuring one
    language: str = "en"  # the reports' language: en or zh
    arch: str = "sm_90"  # nvcc -arch for the CUDA variants
    report: bool = True  # write the figures and the report (False: tables only)


def replay(
    families: str | Sequence[str],
    results: Path | None = None,
    source: Path = DEFAULT_SOURCE,
    kernels_dir: Path = DEFAULT_KERNELS,
    sanitize: bool = True,
    language: str = "en",
) -> Results:
    """Rebuild the families' reports from a recording, as ``mode: replay`` does.

    Args:
        families: a family name, or a list of them (folders of ``kernels_dir``).
        results: the folder to write (``results/`` layout); when None a new
            temporary one, removed when the Python process exits (pass a folder to
            keep the files).
        source: the recording (the bundled ``examples/h200``, or one made with
            ``nsightflow record``).
        kernels_dir: the families' folder.
        sanitize: replay the recorded compute-sanitizer records too.
        language: the reports' language, ``en`` or ``zh``.

    Returns:
        The run's :class:`Results`: tables, findings, figures and reports.

    Raises:
        NsightflowError: a family, the recording or one of its files is missing or
            wrong, the language unknown, or ``results`` is, lies inside or holds the
            recording or the kernels folder (the message names it and the fix);
            all but the recording's files are checked before anything is written.
    """
    from nsightflow.machine.replay import ReplayStages, replay_file
    from nsightflow.stages.replay_family import replay as replay_stage

    names = family_names(families, Path(kernels_dir))
    check_language(language)
    check_source(Path(source))
    read = [("the recording", Path(source)), ("the kernels folder", Path(kernels_dir))]
    # every stage below writes under results only: this one check covers them all
    check_results("replay", results, read)
    layout = Layout(_folder(results), Path(kernels_dir))
    replay_file(source / "ceilings.json", layout.path("ceilings"))
    for name in names:
        family = load_family(layout.kernels_dir / name)  # once: every stage takes it
        swept = tuple(sorted(p.stem for p in (source / "sweep" / name).glob("*.json")))
        sel = Selection(family, swept=tuple(s for s in swept if s in family.variants))
        stages = ReplayStages(sanitize, timeline=False, sweep=frozenset(sel.swept))
        replay_stage(source, family, layout.results, stages, arch="sm_90")
        _cpu_tail(layout, sel, sanitize, language)
    return Results(layout.results, layout.kernels_dir)


def measure(
    family: str,
    variants: str | Sequence[str] = (),
    sizes: Sequence[int] = (),
    results: Path | None = None,
    kernels_dir: Path = DEFAULT_KERNELS,
    options: MeasureOptions | None = None,
) -> Results:
    """Measure some variants of a family at some sizes on this machine's GPU.

    Args:
        family: the family's name.
        variants: the variants to measure (a name or a list; default: all), at
            their default params.
        sizes: the sizes to time (default: the manifest's ``sizes``); the profiled
            ones are the manifest's ``profile_sizes`` among them (else the largest).
            A run at other sizes reads a copy of the manifest with these sizes,
            written under ``results/kernels``.
        results: the folder to write; when None a new temporary one, removed when
            the Python process exits.
        kernels_dir: the families' folder.
        options: seed, sanitizer, ceilings and report settings.

    Returns:
        The run's :class:`Results`.

    Raises:
        NsightflowError: no usable GPU (GpuUnavailableError), a bad manifest or
            name. A variant that fails to compile or verify is data, as in the
            workflow: its status is in the summary.
    """
    opts = options or MeasureOptions()
    if not isinstance(family, str):
        raise ManifestError(f"family: {family!r} is not one family's name; give one")
    family_names(family, Path(kernels_dir))
    variants = (variants,) if isinstance(variants, str) else tuple(variants)
    if opts.report:
        check_language(opts.language)
    check_results("measure", results, [("the kernels folder", Path(kernels_dir))])
    folder = _folder(results)
    kernels = (
        _kernels_at(Path(kernels_dir), family, sizes, folder) if sizes else kernels_dir
    )
    layout = Layout(folder, Path(kernels))
    sel = Selection(load_family(layout.kernels_dir / family), tuple(variants))
    unknown = sorted(set(variants) - set(sel.family.variants))
    if unknown:
        raise ManifestError(
            f"{sel.family.folder / 'family.yaml'}: no variant {unknown}; have "
            f"{sorted(sel.family.variants)}"
        )
    _gpu_stages(layout, sel, opts)
    language = opts.language if opts.report else ""
    _cpu_tail(layout, sel, opts.sanitize, language)
    return Results(layout.results, layout.kernels_dir)


def _gpu_stages(layout: Layout, sel: Selection, opts: MeasureOptions) -> None:
    """The ceilings, each variant's GPU stages and the profile, as the rules run them."""
    try:
        _ceilings_for(layout, opts)
        for variant in sel.names:
            for argv in _gpu_argvs(layout, sel.family.name, variant, opts):
                run_stage(argv)
        run_stage(_profile_argv(layout, sel, opts))
    except GpuUnavailableError as exc:
        raise _api_hint(exc) from exc


def _api_hint(exc: GpuUnavailableError) -> GpuUnavailableError:
    """The GPU stages' error with the API's way on instead of the workflow's."""
    from nsightflow.machine.capabilities import gpu_available

    ok, why = gpu_available()
    return GpuUnavailableError(
        f"nf.measure needs a usable GPU; {why if not ok else exc}. Without one, "
        "nf.replay([family, ...]) rebuilds the reports from a recording; "
        "`nsightflow doctor` lists what this machine lacks"
    )


def _folder(results: Path | None) -> Path:
    """The results folder, made; when None a temporary one, removed at exit.

    A replay of one family writes ~14 MB: left in the system's temporary folder, every
    call without ``results=`` would keep its copy after the Python process ended.
    """
    if results is not None:
        results.mkdir(parents=True, exist_ok=True)
        return results
    folder = Path(tempfile.mkdtemp(prefix="nsightflow-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _ceilings(layout: Layout) -> str:
    return str(layout.path("ceilings"))


def _ceilings_for(layout: Layout, opts: MeasureOptions) -> None:
    """The GPU's ceilings: copied from ``opts.ceilings``, kept, or measured here."""
    target = Path(_ceilings(layout))
    same = opts.ceilings is not None and target.resolve() == opts.ceilings.resolve()
    if opts.ceilings is not None and not same:  # the results' own: kept as it is
        run_stage(["replay", str(opts.ceilings), str(target)])
    elif not target.is_file():
        run_stage(["ceilings", "--out", str(target)])


def _gpu_argvs(
    layout: Layout, family: str, variant: str, opts: MeasureOptions
) -> list[list[str]]:
    """compile, verify, time (and sanitize) of one variant, as the rules run them."""

    def path(name: str) -> str:
        return str(layout.path(name, family, variant))

    resources, verify, timing = path("resources"), path("verify"), path("time")
    common = ["--kernels-dir", str(layout.kernels_dir), "--family", family]
    common += ["--variant", variant, "--cubin", path("cubin")]
    seed = ["--seed", str(opts.seed)]
    argvs = [
        ["compile", *common, "--arch", opts.arch, "--resources", resources],
        ["verify", *common, *seed, "--resources", resources, "--out", verify],
        ["time", *common, *seed, "--verify", verify, "--out", timing],
    ]
    if opts.sanitize:
        out = path("sanitize")
        argvs.append(
            ["sanitize", *common, *seed, "--resources", resources, "--out", out]
        )
    for name in ("resources", "verify", "time", "sanitize"):
        layout.path(name, family, variant).parent.mkdir(parents=True, exist_ok=True)
    return argvs


def _profile_argv(layout: Layout, sel: Selection, opts: MeasureOptions) -> list[str]:
    """``profile``: the chosen variants of the family in one stage call."""
    name = sel.family.name
    return [
        *("profile", "--kernels-dir", str(layout.kernels_dir), "--family", name),
        *("--variant", *sel.names, "--cubin", *files(layout, sel, "cubin")),
        *("--verify", *files(layout, sel, "verify")),
        *("--out-dir", str(layout.path("profiles", name)), "--seed", str(opts.seed)),
    ]


def _cpu_tail(layout: Layout, sel: Selection, sanitize: bool, language: str) -> None:
    """Parse (in a child process), analyze, plot, sweep tables and report.

    ``language`` "": the tables only (parse and analyze).
    """
    for name in ("metrics", "analysis", "summary"):
        layout.path(name, sel.family.name, "v").parent.mkdir(
            parents=True, exist_ok=True
        )
    run_isolated(parse_argv(layout, sel))
    analyze(layout, sel, sanitize)
    if language:
        figures(layout, sel)
        report(layout, sel, language)


def _kernels_at(
    kernels_dir: Path, family: str, sizes: Sequence[int], out: Path
) -> Path:
    """A copy of the family's folder whose manifest times ``sizes`` (for measure).

    The variants' files are copied as they are; ``profile_sizes`` keeps those among
    ``sizes`` (else the largest), ``verify_sizes`` stays as the manifest has it.
    """
    original = kernels_dir / family
    if not (original / "family.yaml").is_file():
        raise ManifestError(f"{original}: no family.yaml; check the family's name")
    target = out / "kernels" / family
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(original, target, ignore=shutil.ignore_patterns("__pycache__"))
    text = manifest_with_sizes(original, [int(n) for n in sizes])
    (target / "family.yaml").write_text(text)
    return target.parent
