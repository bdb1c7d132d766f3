"""Paths inside a folder of untrusted files: contained, and never through a link.

A :class:`Tree` is a recording or a run folder. A path read from it, or named by a
file in it (``profile.json``'s ``file``), is resolved with :meth:`Tree.locate`: it
must be relative, stay inside the tree (inside a narrower folder where the caller
says so) and name no symbolic link on the way. Files are opened one component at a
time from the tree's root with ``O_NOFOLLOW``, so a link swapped in after the check
is refused too; a FIFO or a device is refused before anything is read from it.

The tree's own root is the folder the user named and may itself be a link (a
recording kept on another disk); nothing below it may be.
"""

import errno
import os
import posixpath
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from nsightflow.errors import StageInputError

FIX = "restore it from a copy of the recording, or record again"
_CHUNK = 1 << 20
_LONGEST = 4096  # PATH_MAX on Linux: no longer path can name a file


class RecordError(StageInputError):
    """A file of a recording or run folder is refused.

    The message is one line: the file, the field where one is at fault, what is
    wrong and the fix.
    """

    def __init__(
        self, path: Path | str, problem: str, field: str = "", fix: str = FIX
    ) -> None:
        self.path = str(path)
        self.field = field
        self.problem = problem
        where = f"{path}: field {field}: " if field else f"{path}: "
        super().__init__(" ".join(f"{where}{problem}; {fix}".split()))


class MissingRecord(RecordError):
    """The file is not in the tree (a variant added after the recording was made)."""


def relative(text: object, where: Path | str, field: str) -> PurePosixPath:
    """A relative path as a file gives it, refused if it is not a plain relative path.

    Raises:
        RecordError: not a string, empty, absolute, with a NUL, a backslash or a
            drive, or longer than any path can be.
    """
    if not isinstance(text, str) or not text.strip():
        raise RecordError(where, f"{text!r} is not a relative path", field)
    checks = (
        (text.startswith("/"), "is absolute"),
        ("\0" in text, "holds a NUL character"),
        ("\\" in text or text[1:2] == ":", "holds a backslash or a drive (use /)"),
        (len(text) > _LONGEST, "is longer than any path"),
    )
    bad = next((words for test, words in checks if test), "")
    if bad:
        raise RecordError(
            where,
            f"{text[:200]!r} {bad}; recordings name files relative to themselves",
            field,
        )
    return PurePosixPath(text)


@dataclass(frozen=True)
class Tree:
    """A folder of untrusted files (a recording, a results folder, a history entry)."""

    root: Path

    def locate(
        self,
        rel: PurePosixPath | str,
        within: PurePosixPath | str = "",
        named_by: tuple[Path, str] | None = None,
        shown: str | None = None,
    ) -> PurePosixPath:
        """``rel`` normalised and checked to stay inside ``within`` (the whole tree).

        Args:
            rel: The path, relative to the tree's root.
            within: The folder (relative to the root) it must stay in.
            named_by: The file and field that named the path, for the message.
            shown: The path as that file wrote it (by default ``rel``).

        Raises:
            RecordError: the path leaves ``within``.
        """
        norm = posixpath.normpath(str(rel))
        inside = posixpath.normpath(str(within)) if str(within) else "."
        ok = not norm.startswith(("/", "../")) and norm != ".."
        if ok and inside != ".":
            ok = norm == inside or norm.startswith(inside + "/")
        if not ok or norm == ".":
            where, field = named_by or (self.root / str(rel), "")
            scope = f"{self.root / inside}" if inside != "." else f"{self.root}"
            raise RecordError(
                where,
                f"{shown or str(rel)!r} leads out of {scope}, which it may not leave",
                field,
            )
        return PurePosixPath(norm)

    def path(self, rel: PurePosixPath | str) -> Path:
        """The file's path on this machine (for messages and for writers)."""
        return self.root / str(rel)

    def open(self, rel: PurePosixPath | str, folder: bool = False) -> int:
        """A descriptor of the regular file (or folder) ``rel``, opened without links.

        Raises:
            MissingRecord: it does not exist.
            RecordError: a component is a symbolic link, or the file is not a
                regular file (a FIFO, a device, a folder where a file belongs).
        """
        parts = self.locate(rel).parts
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            raise MissingRecord(self.path(rel), "missing from the recording") from None
        try:
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                if not last or folder:
                    flags |= os.O_DIRECTORY
                try:
                    nfd = os.open(part, flags, dir_fd=fd)
                except OSError as exc:
                    self._refuse(PurePosixPath(*parts[: i + 1]), exc, last)
                os.close(fd)
                fd = nfd
            mode = os.fstat(fd).st_mode
            if not (stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode)):
                kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
                raise RecordError(self.path(rel), f"is {kind}")
            os.set_blocking(fd, True)
            opened, fd = fd, -1
            return opened
        finally:
            if fd >= 0:
                os.close(fd)

    def _refuse(self, rel: PurePosixPath, exc: OSError, last: bool) -> None:
        path = self.path(rel)
        if exc.errno == errno.ENOENT:
            raise MissingRecord(path, "missing from the recording") from None
        if os.path.islink(path):
            raise RecordError(
                path,
                f"is a symbolic link (to {os.readlink(path)!r}); a recording holds "
                "regular files only and no link is followed",
                fix="replace the link by the file itself, or record again",
            ) from None
        if exc.errno == errno.ENOTDIR:
            raise RecordError(path, "is a file where a folder belongs") from None
        if exc.errno in (errno.EACCES, errno.EPERM) or last:
            raise RecordError(path, f"cannot be opened ({exc.strerror})") from None
        raise exc

    def check(self, rel: PurePosixPath | str) -> None:
        """Check that ``rel`` is a regular file reached without links (:meth:`open`)."""
        os.close(self.open(rel))

    def read_bytes(self, rel: PurePosixPath | str, limit: int) -> bytes:
        """The bytes of the regular file ``rel``, at most ``limit`` of them.

        Raises:
            RecordError: the file is refused (:meth:`open`) or larger than ``limit``.
        """
        fd = self.open(rel)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise RecordError(
                self.path(rel),
                f"is larger than {limit:,} bytes, more than any stage writes",
            )
        return data

    def exists(self, rel: PurePosixPath | str) -> bool:
        """Whether ``rel`` is there (a link or a wrong kind counts: reading it fails)."""
        return os.path.lexists(self.path(self.locate(rel)))

    def entries(self, rel: PurePosixPath | str) -> list[str]:
        """The names in the folder ``rel`` (opened without links), sorted."""
        fd = self.open(rel, folder=True)
        try:
            return sorted(os.listdir(fd))
        finally:
            os.close(fd)

    def copy(self, rel: PurePosixPath | str, target: Path) -> None:
        """Copy the regular file ``rel`` to ``target`` (written whole, then renamed).

        A full disk or a read-only target raises ``OSError`` naming ``target``.
        """
        from nsightflow.outputs import FILE_MODE, temporary_beside

        fd = self.open(rel)
        with os.fdopen(fd, "rb") as src:
            times = os.fstat(src.fileno())
            out, tmp = temporary_beside(target)  # unique: two copies never collide
            try:
                with os.fdopen(out, "wb") as dst:
                    shutil.copyfileobj(src, dst, _CHUNK)
                os.chmod(tmp, FILE_MODE)
                os.utime(tmp, ns=(times.st_atime_ns, times.st_mtime_ns))
                tmp.replace(target)
            except OSError as exc:
                tmp.unlink(missing_ok=True)
                raise OSError(exc.errno, exc.strerror, str(target)) from exc

    def walk(
        self, rel: PurePosixPath | str = ""
    ) -> Iterator[tuple[PurePosixPath, str]]:
        """Every entry below ``rel`` without following links: (path, what it is).

        ``what`` is ``file`` for a regular file, else why it is not read: ``link``
        (not followed, so no loop and nothing outside), ``special`` (FIFO, device,
        socket). Folders are descended, not listed.
        """
        start = self.locate(rel) if str(rel) else PurePosixPath(".")
        top = self.root / str(start)
        if str(rel) and os.path.islink(top):
            yield start, "link"
            return
        if not top.is_dir():
            return
        for folder, dirs, files in os.walk(top, followlinks=False):
            here = PurePosixPath(Path(folder).relative_to(self.root).as_posix())
            for name in sorted(dirs):
                if os.path.islink(os.path.join(folder, name)):
                    yield here / name, "link"
            dirs[:] = sorted(d for d in dirs if not os.path.islink(Path(folder, d)))
            for name in sorted(files):
                mode = os.lstat(os.path.join(folder, name)).st_mode
                what = (
                    "file"  # contracts: literal (a kind of entry)
                    if stat.S_ISREG(mode)
                    else "link"
                    if stat.S_ISLNK(mode)
                    else "special"
                )
                yield here / name, what
