"""The files a variant is built from: its source and the headers it includes.

Used by the registry (a parameter must be used and guarded in them), by compile
(a header's change recompiles) and by replay (their digest tells an edited variant).
"""

import re
from pathlib import Path

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
