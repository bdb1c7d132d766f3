"""The API's arguments, checked before any stage runs or anything is written.

A notebook passes Python values where the command line passes strings: a family
name where a list of names belongs (``replay("vecadd")``, which would iterate the
string's letters), a language the report has no words for. Each is refused here in
one line naming the parameter and the fix, before the first stage runs.
"""

import re
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from nsightflow.errors import ManifestError, StageInputError
from nsightflow.i18n import Language
from nsightflow.outputs import Output, check_output

# The manifest's `name` (family.schema.yaml): a folder name every stage uses.
FAMILY_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def family_names(families: str | Sequence[str], kernels_dir: Path) -> list[str]:
    """The family names asked for: one name or a sequence of them, each checked.

    Raises:
        ManifestError: no name, a name that is not a string or not a family name
            (``^[a-z][a-z0-9_]*$``, at most 64 characters), or no family folder of
            that name in ``kernels_dir``.
    """
    names = [families] if isinstance(families, str) else list(families)
    if not names:
        raise ManifestError("families: no family named; give one name or a list")
    for name in names:
        if not isinstance(name, str) or not FAMILY_NAME.fullmatch(name):
            raise ManifestError(
                f"families: {name!r} is not a family name (lower-case letters, digits "
                "and _, starting with a letter); give the folder names under "
                f"{kernels_dir}"
            )
        if not (kernels_dir / name / "family.yaml").is_file():
            raise ManifestError(
                f"families: {kernels_dir / name / 'family.yaml'} is missing; "
                "check the family's name"
            )
    return names


def check_language(language: str) -> None:
    """Raise ``StageInputError`` unless the reports have words in ``language``."""
    known = get_args(Language)
    if language not in known:
        raise StageInputError(
            f"language: {language!r} is not one of {list(known)}; choose one of them"
        )


def check_results(
    call: str, results: Path | None, inputs: Sequence[tuple[str, Path]]
) -> None:
    """The results folder asked for is apart from what the call reads.

    Raises:
        OutputRefusedError: ``results`` is, lies inside or holds an input (the
            recording, the kernels folder) or a repository.
    """
    if results is None:
        return
    fix = "choose a results folder of its own, such as Path('results')"
    check_output(Output(call, "results", Path(results), fix=fix), inputs)


def check_source(source: Path) -> None:
    """Raise ``StageInputError`` unless the recording ``source`` is a folder."""
    if not Path(source).is_dir():
        raise StageInputError(
            f"source: {source}: no such folder; name a recording (the bundled "
            "examples/h200, or one made with `nsightflow record`)"
        )
