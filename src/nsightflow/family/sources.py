"""The files a variant is built from: its source and the headers it includes.

Used by the registry (a parameter must be used and guarded in them), by compile
(a header's change recompiles) and by replay (their digest tells an edited variant).
"""

import os
import re
import stat
from pathlib import Path

from nsightflow.errors import ManifestError

LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def local_includes(source: Path) -> list[Path]:
    """The headers ``source`` includes with ``#include "..."``, recursively.

    Each name is taken relative to the file that includes it; names that do not exist
    there (system headers, include paths) are left to nvcc. A change to any header
    listed must recompile the variant.
    """
    found: dict[Path, None] = {}
    todo = [source]
    while todo:
        including = todo.pop()
        for name in LOCAL_INCLUDE.findall(including.read_text(errors="replace")):
            path = (including.parent / name).resolve()
            if path.is_file() and path not in found:
                found[path] = None
                todo.append(path)
    return sorted(found)


def check_source_file(source: Path, folder: Path, where: str) -> None:
    """A variant's source is a regular file of the family's own folder.

    The manifest's ``source`` is a plain file name (its schema refuses ``/`` and
    ``..``); a symbolic link would still compile, and show in the report, a file
    from anywhere, so a link, or a name resolving outside ``folder``, is refused
    as ``..`` is. The family folder itself may be a link.

    Raises:
        ManifestError: ``where`` (the manifest and field), what is wrong, the fix.
    """
    try:
        mode = os.lstat(source).st_mode
    except FileNotFoundError:
        raise ManifestError(
            f"{where}: {source} does not exist; add the file or set 'source'"
        ) from None
    if stat.S_ISLNK(mode):
        raise ManifestError(
            f"{where}: {source} is a symbolic link (to {os.readlink(source)!r}); a "
            "variant's source is a file of the family's folder: copy the file there"
        )
    if not stat.S_ISREG(mode):
        raise ManifestError(f"{where}: {source} is not a regular file; name a file")
    if source.resolve().parent != folder.resolve():
        raise ManifestError(
            f"{where}: {source} resolves outside the family's folder {folder}; "
            "copy the file there"
        )
