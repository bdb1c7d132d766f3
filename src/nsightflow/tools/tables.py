"""Where the parse stage may write its tables, and in which format.

``nsightflow parse REPORT... -o FILE`` writes the long metrics table (and with
``--rules`` the rule table). Before any report is read, :func:`check_outputs` makes
sure that writing cannot destroy a measurement: an output that is one of the inputs is
refused, and so is an existing file that is not a table this stage wrote (unless
``--force``). The format comes from the extension; an unknown one is refused, and a
format whose package is missing says which package to install.
"""

import importlib.util
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from nsightflow.contracts import spreadsheet_safe
from nsightflow.errors import OutputRefusedError

if TYPE_CHECKING:  # pandas loads after ncu_report (see nsightflow.tools.ncu_parse)
    import pandas as pd

# extension -> the package its writer needs, or None
FORMATS: dict[str, str | None] = {".csv": None, ".parquet": "pyarrow"}
_PARQUET_MAGIC = b"PAR1"


def table_format(path: Path) -> str:
    """The format ``path`` names by its extension, its package checked.

    Raises:
        OutputRefusedError: the extension is not a table format, or the package
            the format needs is not installed.
    """
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise OutputRefusedError(
            f"{path}: unknown table format {suffix or '(no extension)'!r}; name the "
            f"output {' or '.join(FORMATS)}"
        )
    package = FORMATS[suffix]
    if package is not None and importlib.util.find_spec(package) is None:
        raise OutputRefusedError(
            f"{path}: writing {suffix} needs the {package} package: pip install "
            f"{package}, or write .csv"
        )
    return suffix


def check_outputs(
    outputs: Sequence[tuple[Path, Sequence[str]]],
    inputs: Iterable[Path],
    force: bool = False,
    folders: Iterable[Path] = (),
) -> None:
    """Refuse outputs that would overwrite an input or a file that is not ours.

    Args:
        outputs: Each output path with the columns of the table written there.
        inputs: The report files the stage reads (folders already expanded).
        force: Replace an existing file that is not a table of ours.
        folders: The recordings the reports lie in: no output goes inside one
            (:func:`nsightflow.outputs.check_output`; nor into a ``.git``).

    Raises:
        OutputRefusedError: naming the path and what to do instead.
    """
    from nsightflow.outputs import Output, check_output

    files = list(inputs)
    read = [p.resolve() for p in files]
    given = [("the recording", f) for f in folders]
    seen: list[Path] = []
    for path, columns in outputs:
        target = path.resolve()
        if target in read or any(_same_file(path, p) for p in read):
            raise OutputRefusedError(
                f"{path}: is one of the reports being parsed; parse never writes over "
                "its input: choose another output"
            )
        out = Output("parse", "-o", path, folder=False, fix="choose another output")
        check_output(out, given)
        table_format(path)
        if target in seen:
            raise OutputRefusedError(f"{path}: given for two tables; name two files")
        seen.append(target)
        if path.is_dir():
            raise OutputRefusedError(f"{path}: is a folder; name a file")
        if path.exists() and not force and not is_table_of(path, columns):
            raise OutputRefusedError(
                f"{path}: exists and is not a table written by nsightflow parse; "
                "choose another output, or pass --force to replace it"
            )


def is_table_of(path: Path, columns: Sequence[str]) -> bool:
    """Whether ``path`` is empty or a table with exactly ``columns`` (ours)."""
    if path.stat().st_size == 0:
        return True
    if path.suffix.lower() == ".parquet":
        return _parquet_columns(path) == list(columns)
    try:
        with path.open(encoding="utf-8") as fh:
            first = fh.readline(4096).rstrip("\r\n")
    except (OSError, UnicodeDecodeError):
        return False
    return first == ",".join(columns)


def _parquet_columns(path: Path) -> list[str] | None:
    with path.open("rb") as fh:
        if fh.read(4) != _PARQUET_MAGIC:
            return None
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return None  # cannot tell: only --force replaces it
    try:
        return list(pq.read_schema(path).names)
    except Exception:  # pyarrow raises its own errors for damaged files
        return None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and a.samefile(b)
    except OSError:
        return False


def write_table(frame: "pd.DataFrame", path: Path) -> None:
    """Write ``.csv`` or ``.parquet`` by extension.

    Raises:
        OutputRefusedError: the extension is unknown or its package missing.
    """
    import os

    from nsightflow.outputs import FILE_MODE, temporary_beside

    suffix = table_format(path)
    fd, tmp = temporary_beside(path)  # written whole, then renamed over the table
    os.close(fd)
    try:
        if suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            spreadsheet_safe(frame).to_csv(tmp, index=False)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
