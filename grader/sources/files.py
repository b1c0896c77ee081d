"""Reading a submission's bytes from a folder a student fills: no link followed, nothing
but a regular file opened, never more read than the size limit allows.

A class's folder holds what students and their repositories put there: a symbolic link
to a classmate's file, to a secret outside (``.env``), to ``/dev/zero``, or a folder
that is one (git makes a link it finds in a cloned repository); a named pipe, which
would block a plain ``open`` forever; a socket or a device; a sparse file of terabytes.
:func:`read_submission` reads every one of them safely, and says in one sentence why it
will not grade one that is not a regular file:

- under ``within`` (the submissions folder of ``grader grade``, the platforms' upload
  folder), each part of the path is opened relative to the one before with
  ``O_NOFOLLOW``, so a link anywhere below it is refused and its target never opened;
- ``follow_links=False`` refuses a link in the last part of a path given by hand (the
  platforms' entry points), while ``grader check`` on a student's own machine follows one;
- the file is looked at before it is opened (a device or a pipe is never opened), opened
  without blocking, checked again to be the same regular file once open, and read to
  the limit plus one byte at most.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError

READ_CHUNK = 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


# The id of a file or folder whose name, spaces aside, is empty (" .py"): told so in its note.
BLANK_ID = "unnamed"


def blank_name_note(name: str) -> str:
    """The note of a submission whose name ``name`` gives no id (see :data:`BLANK_ID`)."""
    return f"The file is named {name!r}, which gives no id: it is graded as {BLANK_ID}; name it after its student."


@dataclass(frozen=True)
class SubmissionFile:
    """A submission found in a folder: its id, its path, the folder below which no link
    is followed when it is read (None: the path is the user's own, see
    :func:`read_submission`), and a note its report carries (see grader.batch.submissions)."""

    student: str
    path: Path
    folder: Path | None = None
    note: str | None = None


def read_submission(
    path: Path, limit: int, *, within: Path | None = None, follow_links: bool = True, what: str = "submission"
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them; raises
    :class:`UsageError` with one sentence for anything else (see the module docstring).
    ``what`` the file is, in those sentences: any file a student may have put in a folder
    the grader reads (a report in OUT, say) is read this way."""
    name = str(path.relative_to(within)) if within is not None else str(path)
    try:
        if within is not None:
            descriptor = _open_within(within, path.relative_to(within), name)
        else:
            descriptor = _open_checked(path, None, name, follow_links=follow_links)
        with os.fdopen(descriptor, "rb", buffering=0) as stream:
            size = os.fstat(stream.fileno()).st_size
            if size > limit:
                raise UsageError(f"{name} is {size} bytes; a {what} of its kind may be at most {limit} bytes")
            content = _read_at_most(stream, limit + 1)
    except FileNotFoundError:
        raise UsageError(f"there is no {name}: the {what} holds no file of that name") from None
    except OSError as error:
        raise UsageError(f"cannot read {what} {name}: {error.strerror or error}") from None
    if len(content) > limit:
        raise UsageError(f"{name} is more than {limit} bytes; a {what} of its kind may be at most {limit} bytes")
    return content


def open_regular(path: Path) -> int:
    """A descriptor of the regular file at ``path``, a link in its last part refused (a
    cache or a report the grader reads back: a link to ``/dev/zero`` or a named pipe put
    there is never opened). Raises :class:`UsageError` or OSError."""
    return _open_checked(path, None, str(path), follow_links=False)


def _open_within(within: Path, relative: Path, name: str) -> int:
    """``relative`` opened part by part from ``within`` without following any link."""
    if not relative.parts or ".." in relative.parts:
        raise UsageError(f"{name} is not a file inside the submissions folder")
    folder = os.open(within, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in relative.parts[:-1]:
            found = os.stat(part, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISLNK(found.st_mode):
                raise UsageError(f"{part} is a symbolic link: links are not graded; submit the folder itself")
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            os.close(folder)
            folder = inner
        return _open_checked(Path(relative.parts[-1]), folder, name, follow_links=False)
    finally:
        os.close(folder)


def _open_checked(path: Path, folder: int | None, name: str, *, follow_links: bool) -> int:
    """``path`` (relative to the descriptor ``folder`` if given) opened only if it is a
    regular file, looked at before and after it is opened."""
    before = os.stat(path, dir_fd=folder, follow_symlinks=follow_links)
    if stat.S_ISLNK(before.st_mode):
        what = "folder" if _points_to_folder(path, folder) else "file"
        raise UsageError(f"{name} is a symbolic link: links are not graded; submit the {what} itself")
    _refuse_unless_regular(before, name)
    descriptor = os.open(path, _OPEN_FLAGS | (0 if follow_links else os.O_NOFOLLOW), dir_fd=folder)
    after = os.fstat(descriptor)
    if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
        os.close(descriptor)
        raise UsageError(f"{name} changed while it was being read; grade it again")
    return descriptor


def _points_to_folder(path: Path, folder: int | None) -> bool:
    """Whether the link at ``path`` names a folder (its target is looked at, not opened)."""
    try:
        return stat.S_ISDIR(os.stat(path, dir_fd=folder).st_mode)
    except OSError:
        return False


def _refuse_unless_regular(found: os.stat_result, name: str) -> None:
    if not stat.S_ISREG(found.st_mode):
        kind = _KINDS.get(stat.S_IFMT(found.st_mode), "not a file")
        raise UsageError(f"{name} is not a regular file but {kind}: only regular files are graded")


def _read_at_most(stream, count: int) -> bytes:
    chunks, left = [], count
    while left > 0:
        chunk = stream.read(min(READ_CHUNK, left))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
