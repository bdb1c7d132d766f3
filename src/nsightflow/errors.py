"""One exception hierarchy; the CLI turns these into ``ERROR: ...`` and exit status 2.

:func:`describe` is the other half of that boundary: failures of the machine rather
than of nsightflow (a full disk, a read-only or forbidden folder, a missing optional
package, a corrupt input file) become one line naming the path or package and the
fix, so that "this is a bug" is said only of real bugs.
"""

import errno
import json
import sys
from pathlib import Path
from types import TracebackType


class NsightflowError(Exception):
    """Base class: an expected failure the user can fix (exit status 2)."""


class ManifestError(NsightflowError):
    """A family manifest or config value is missing or wrong; names file and field."""


class CompileError(NsightflowError):
    """nvcc is missing or could not be run at all (a rejected variant is data)."""


class GpuUnavailableError(NsightflowError):
    """No usable CUDA device, or pycuda / NVML is not installed."""


class FrameworkMissingError(NsightflowError):
    """A Python launcher's framework (torch, triton, cupy) cannot be imported here.

    The GPU stages record the variant as ``skipped`` with this message and go on.
    """


class NcuUnavailableError(NsightflowError):
    """ncu is missing, too old, or cannot read the hardware counters here."""


class ReportParseError(NsightflowError):
    """An .ncu-rep or ncu CSV file cannot be read; names the file."""


class StageInputError(NsightflowError):
    """A stage's input file is missing or does not match its schema."""


class OutputRefusedError(NsightflowError):
    """An output path would overwrite an input or a file that is not ours."""


# Optional packages (extras, or needed by one format or backend only): how to get them.
OPTIONAL_PACKAGES = {
    "pyarrow": "pip install pyarrow (needed for .parquet tables), or write .csv",
    "fastparquet": "pip install pyarrow (needed for .parquet tables), or write .csv",
    "pycuda": "pip install -e '.[gpu]' on a machine with an NVIDIA GPU, or replay",
    "pynvml": "pip install nvidia-ml-py (the '.[gpu]' extra)",
    "cupti": "pip install cupti-python (the timeline's CUPTI backend)",
    "cupy": "pip install cupy-cuda12x (cuBLAS SGEMM ceiling; optional)",
    "ncu_report": "pip install ncu-report",
    "snakemake_executor_plugin_slurm": "pip install -e '.[slurm]'",
}
_OS_FIXES = {
    errno.ENOSPC: "no space left on the device: free some space (results/ and "
    "logs/ grow with every run) and run again",
    errno.EDQUOT: "disk quota exceeded: free some space or ask for a larger quota, "
    "then run again",
    errno.EROFS: "the file system is read-only: run from a writable copy of the "
    "project (the workflow writes results/, logs/, benchmarks/ and .snakemake/)",
    errno.EACCES: "permission denied: make it writable (and readable) for this user, "
    "or run from a folder you own",
    errno.EPERM: "operation not permitted: make it writable for this user, or run "
    "from a folder you own",
    errno.ENOENT: "no such file or folder; check the path, or run the stage that "
    "writes it first",
    errno.ENOTDIR: "a part of the path is a file, not a folder; check the path",
    errno.EISDIR: "is a folder where a file was expected; check the path",
}


def describe(exc: BaseException) -> str | None:
    """A one-line message for a failure of the machine or its inputs, else None.

    None means nothing here explains the exception: treat it as a bug.

    Args:
        exc: The exception that reached the command line.
    """
    if isinstance(exc, OSError) and exc.errno in _OS_FIXES:
        path = exc.filename or _path_in_traceback(exc.__traceback__)
        where = f"{path}: " if path else ""
        return f"{where}{_OS_FIXES[exc.errno]} ({exc.strerror or exc})"
    if isinstance(exc, ImportError):
        return _missing_package(exc)
    if _is_corrupt_input(exc):
        path = _path_in_traceback(exc.__traceback__)
        what = f"{path}: " if path else "an input file: "
        detail = " ".join(str(exc).split())[:200]
        return (
            f"{what}cannot be read ({type(exc).__name__}: {detail}); the file is "
            "corrupt or truncated: re-run the stage that writes it, or restore it"
        )
    return None


def _missing_package(exc: ImportError) -> str | None:
    name = (exc.name or "").split(".")[0]
    text = str(exc)
    if not name:  # pandas: "Unable to find a usable engine; tried using: 'pyarrow'"
        name = next((n for n in OPTIONAL_PACKAGES if f"'{n}'" in text), "")
    if name in OPTIONAL_PACKAGES:
        return (
            f"the optional package {name} is not installed: {OPTIONAL_PACKAGES[name]}"
        )
    if name and name in _declared_dependencies():
        return (
            f"the package {name} is not installed (a dependency of nsightflow): "
            "pip install -e . in this environment"
        )
    return None


def _declared_dependencies() -> set[str]:
    """Import names of nsightflow's declared dependencies (from its metadata)."""
    from importlib import metadata

    try:
        requires = metadata.requires("nsightflow") or []
    except metadata.PackageNotFoundError:  # run from a checkout (PYTHONPATH=src)
        requires = _checkout_dependencies()
    names = set()
    for req in requires:
        base = req.split(";")[0].split("[")[0]
        for stop in "<>=!~ ":
            base = base.split(stop)[0]
        names.add(base.strip().lower().replace("-", "_"))
    return names | {"yaml", "markdown", "PIL"}


def _checkout_dependencies() -> list[str]:
    """The dependencies pyproject.toml declares, when nsightflow is not installed."""
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text())["project"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return []
    return list(project.get("dependencies", []))


def _is_corrupt_input(exc: BaseException) -> bool:
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return True
    pandas_errors = sys.modules.get("pandas.errors")
    if pandas_errors is not None and isinstance(
        exc, pandas_errors.EmptyDataError | pandas_errors.ParserError
    ):
        return True
    yaml = sys.modules.get("yaml")
    return yaml is not None and isinstance(exc, yaml.YAMLError)


def _path_in_traceback(tb: TracebackType | None) -> str | None:
    """The file the failing code was working on: the innermost frame's path variable.

    Loaders name their file in a local (``path``, ``filepath_or_buffer``, ...); the
    innermost frame that holds an existing file's path is the one that failed on it.
    """
    found = None
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            if isinstance(value, Path) and value.exists():
                found = str(value)
            elif isinstance(value, str) and 0 < len(value) < 4096 and "\n" not in value:
                if ("/" in value or "." in value) and Path(value).is_file():
                    found = value
        tb = tb.tb_next
    return found
