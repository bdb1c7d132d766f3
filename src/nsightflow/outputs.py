"""Where a command may write: never over, into or around what it reads.

The guard every writer calls, in the lowest layer (it imports only the errors).

Every writer checks its output with :func:`check_output` before it writes a byte. An
output folder or file is refused when it

* is one of the command's inputs (``nsightflow replay F F``),
* lies inside one (``replay-family --results`` inside the recording it replays),
* holds one, for an output folder, which the command writes into and cleans
  (``reference --out index.json`` in the project's root, whose folder holds
  ``kernels/``),
* is or holds a repository (a folder holding ``.git``: the one the command runs in,
  or one an input lies in), or lies inside a ``.git`` folder,
* is a file where a folder belongs, or a folder where a file belongs.

The refusal is one line: the command, the argument, what it would overwrite and the
fix. Paths are compared resolved (links followed), so a link to an input is the
input; the output the user names may itself be a link (results on another disk).

Below the output, writers never pass through a link (:func:`check_no_link`), and
cleanup removes only what the command writes (:func:`remove_own`): a folder holding
anything else is refused, never emptied.
"""

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from nsightflow.errors import OutputRefusedError

# This process's umask, read once at import (reading it sets it): mkstemp makes
# files 0600, a written file gets what open() would give it (0644 under umask 022).
_UMASK = os.umask(0o022)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK


def temporary_beside(path: Path) -> tuple[int, Path]:
    """A new file of a unique name in ``path``'s folder: (descriptor, path).

    ``.<name>.<random>.part``: two writers of one file (two replays into one
    folder) never share a temporary file, and no stage reads a name that starts
    with a dot and ends in ``.part``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    return fd, Path(tmp)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: a unique temporary file, then renamed.

    The rename replaces ``path`` itself (a link there is replaced, not followed).
    A full disk or a read-only folder raises ``OSError`` naming ``path``.
    """
    fd, tmp = temporary_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


Inputs = Sequence[tuple[str, Path]]  # (what it is, as the message names it; path)


@dataclass(frozen=True)
class Output:
    """One output of a command, as the refusal names it.

    Attributes:
        command: the subcommand or API call (``replay-family``, ``api.compare``).
        argument: the option or parameter (``--results``, ``out_dir``).
        path: the folder or file.
        folder: a folder the command writes into (and may clean); else a file.
        fix: what to do instead, e.g. "choose a folder outside the recording".
    """

    command: str
    argument: str
    path: Path
    folder: bool = True
    fix: str = "choose a new folder outside every input"

    def refuse(self, problem: str) -> OutputRefusedError:
        """The one-line refusal of this output."""
        return OutputRefusedError(
            f"{self.command}: {self.argument} {self.path} {problem}; {self.fix}"
        )


def repositories(paths: Iterable[Path]) -> set[Path]:
    """The repositories (folders holding ``.git``) the paths lie in, resolved."""
    found = set()
    for path in paths:
        for folder in (path, *path.parents):
            if os.path.lexists(folder / ".git"):
                found.add(folder)
                break
    return found


def check_output(out: Output, inputs: Inputs) -> None:
    """Refuse ``out`` when it is, lies inside or holds an input, or a repository.

    ``inputs`` names what the command reads: the recording, the results folder
    read, the kernels folder, the input files. The working directory's repository
    counts as an input (the project's root), and so does any repository an input
    lies in.

    Raises:
        OutputRefusedError: one line naming the argument, what it would overwrite
            and the fix.
    """
    _check_kind(out)
    target = out.path.resolve()
    for what, path in inputs:
        src = path.resolve()
        if target == src:
            raise out.refuse(f"is {what} {path}, which it reads")
        if src in target.parents:
            raise out.refuse(f"lies inside {what} {path}, which it reads")
        if out.folder and target in src.parents:
            raise out.refuse(f"holds {what} {path}, which it reads")
    resolved = [p.resolve() for _, p in inputs]
    for repo in sorted(repositories([Path.cwd().resolve(), *resolved])):
        if repo / ".git" == target or repo / ".git" in target.parents:
            raise out.refuse(f"lies inside the repository's {repo / '.git'}")
        if out.folder and (target == repo or target in repo.parents):
            word = "is" if target == repo else "holds"
            raise out.refuse(f"{word} the repository {repo} (it holds .git)")
    if out.folder and os.path.lexists(target / ".git"):
        raise out.refuse("holds a repository (.git)")


def _check_kind(out: Output) -> None:
    """A folder output is no file, a file output no folder."""
    if not os.path.lexists(out.path):
        return
    is_dir = out.path.is_dir()
    if out.folder and not is_dir:
        raise out.refuse("is a file, not a folder")
    if not out.folder and is_dir and not out.path.is_symlink():
        raise out.refuse("is a folder, not a file")


def check_no_link(root: Path, target: Path, argument: str = "") -> None:
    """Refuse a write to ``target`` that would pass through a link below ``root``.

    ``root`` itself may be a link (the folder the user named); every existing
    component from it down to ``target`` (included) must be a folder or a regular
    file, never a symbolic link.

    Raises:
        OutputRefusedError: a component is a link, naming it and the fix.
    """
    rel = target.relative_to(root)
    here = root
    for part in rel.parts:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            name = f"{argument} " if argument else ""
            raise OutputRefusedError(
                f"{name}{root}: {here} is a symbolic link (to {os.readlink(here)!r}); "
                "nsightflow writes no file through a link: replace the link by the "
                "folder or file itself"
            )


def remove_own(folder: Path, own: Callable[[str], bool], argument: str) -> None:
    """Remove ``folder`` when it holds only files the command writes there.

    ``own(name)`` says whether a file name is one of the command's (a profile
    folder: ``profile.json``, ``*.ncu-rep``). A link, a sub-folder or any other file
    is not the command's: the folder is refused, not emptied. A missing folder is
    fine.

    Raises:
        OutputRefusedError: the folder is a link, or holds what the command did
            not write, naming the first such entry.
    """
    if not os.path.lexists(folder):
        return
    check_no_link(folder.parent, folder, argument)
    if not folder.is_dir():
        raise OutputRefusedError(
            f"{argument} {folder}: is a file where the command writes a folder; "
            "move it away or choose another folder"
        )
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if not (entry.is_file(follow_symlinks=False) and own(entry.name)):
            raise OutputRefusedError(
                f"{argument} {folder}: holds {entry.name}, which this command does "
                "not write, so it would not remove the folder: move that away or "
                "choose another folder"
            )
    shutil.rmtree(folder)


def named(*patterns: str) -> Callable[[str], bool]:
    """``own`` for :func:`remove_own`: a name matching one of the glob patterns."""
    return lambda name: any(fnmatchcase(name, p) for p in patterns)


# What the profile stage (and replay) writes in a variant's profile folder: its
# reports, its record, the worker's spec and result, and temporaries of a copy.
PROFILE_FILES = named(
    "*.ncu-rep",
    "*.ncu-rep.xz",  # a recording's compressed report, copied by replay
    "profile.json",
    ".spec.json",
    ".result.json",
    ".*.part",
)
