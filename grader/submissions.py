"""What a folder of submissions hands in: each submission's file, and the id it is graded under.

A submission is ``DIR/<id>.py`` or ``DIR/<id>/<handout>.py`` (the assignment's handout:
``attention.py`` for the first), or the same as a notebook; a folder ``DIR/<id>/`` without
one is a submission too, whose report says the file is missing
(``.ipynb``); a Python file wins over a notebook of the same name beside it (the ``.py``
a student exported from their notebook, say).

The folder is listed, never followed: an entry named like a submission is one whatever it
is (a link, a named pipe, a folder), so that its report can say why it is not graded
(grader.sources.files); a folder that is a link is one too.

Whatever the names, every submission gets an id of its own, the same whatever order the
folder lists them in, and no name stops the batch:

- an id is the name as every output can carry it (grader.safe_text.one_line: a byte of
  a name that is not UTF-8, a control character, as its escape);
- one longer than :data:`MAX_ID_BYTES` is cut, with a digest of the whole name after it,
  so its report's file name stays within what a file system allows;
- one that another submission has already (two names that read alike once escaped, or
  ``ada.py`` beside a folder ``ada/``), or that names a file the batch writes
  (``summary``, ``index``, ``similarity``), gets a digest of its path after it
  (``ada~3f2a1b9c``), and its report says so in a note.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError
from grader.safe_text import one_line
from grader.sources.files import SubmissionFile

# Folders an archive or an interpreter leaves beside the submissions: never a student's.
ARTEFACTS = frozenset({"__MACOSX", "__pycache__"})
RESERVED_IDS = frozenset({"summary", "index", "similarity"})  # summary.json; index.html (--html); similarity.json
SUFFIXES = (".py", ".ipynb")  # in order of preference, for one student's two files
# Room for the report's name (OUT/<id>.json, .html) and its temporary file's beside it
# within the 255 bytes a file name may have.
MAX_ID_BYTES = 150
DIGEST_CHARACTERS = 8


@dataclass(frozen=True)
class _HandedIn:
    name: str  # the file's stem or the folder's name, as the folder lists it
    path: Path


def find_submissions(folder: Path, handout: str) -> list[SubmissionFile]:
    """Every submission in ``folder`` of an assignment whose handout is the file ``handout``,
    sorted by id (see the module docstring)."""
    stem = Path(handout).stem
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    with os.scandir(folder) as entries:
        handed_in = [
            found for entry in entries for found in _handed_in(folder, entry, stem) if not found.name.startswith(".")
        ]
    python_files = {(found.path.parent, found.name) for found in handed_in if found.path.suffix == SUFFIXES[0]}
    handed_in = [
        found for found in handed_in
        if found.path.suffix != SUFFIXES[1] or (found.path.parent, found.name) not in python_files
    ]
    if not handed_in:
        raise UsageError(
            f"no submissions in {folder}: expected {folder}/<id>.py, {folder}/<id>/{stem}.py "
            "or the same as .ipynb notebooks"
        )
    handed_in.sort(key=lambda found: (_readable(found.name), _suffix_rank(found.path), os.fsencode(found.path)))
    found: dict[str, SubmissionFile] = {}
    for submission in handed_in:
        readable = _readable(submission.name)
        student, note = readable, None
        if readable in found or readable in RESERVED_IDS:
            student = _unique(readable, os.fsencode(submission.path.relative_to(folder)), found)
            why = "a file the batch writes" if readable in RESERVED_IDS else f"the id of {found[readable].path}"
            note = f"Its name gives the id {readable}, which is {why}: it is graded as {student}."
        found[student] = SubmissionFile(student, submission.path, folder, note)
    return [found[student] for student in sorted(found)]


def _handed_in(folder: Path, entry: os.DirEntry, handout_stem: str) -> list[_HandedIn]:
    """What the folder's entry ``entry`` hands in, if anything (``handout_stem``: the
    handout's name without its suffix)."""
    stem, suffix = os.path.splitext(entry.name)
    if suffix in SUFFIXES:
        return [_HandedIn(stem, folder / entry.name)]
    if entry.is_dir(follow_symlinks=False):
        if entry.name in ARTEFACTS:
            return []
        inside = [folder / entry.name / f"{handout_stem}{kind}" for kind in SUFFIXES]
        # A folder without the handout is a submission too: its report says what is missing.
        return [_HandedIn(entry.name, path) for path in inside if os.path.lexists(path)] or [_HandedIn(entry.name, inside[0])]
    if entry.is_symlink() and entry.is_dir():  # a linked folder: reported, never entered
        return [_HandedIn(entry.name, folder / entry.name)]
    return []


def _readable(name: str) -> str:
    """``name`` as every output can carry it, cut (with a digest of it) where it is too long."""
    readable = one_line(name)
    if len(readable.encode()) <= MAX_ID_BYTES:
        return readable
    kept = readable.encode()[: MAX_ID_BYTES - DIGEST_CHARACTERS - 1].decode(errors="ignore")
    return f"{kept}~{_digest(os.fsencode(name))}"


def _unique(readable: str, path: bytes, taken: dict[str, SubmissionFile]) -> str:
    """``readable`` with a digest of ``path`` after it, one that no other id has."""
    # A salt only where a name was made to clash with the digest of another.
    tried = (f"{readable}~{_digest(path + (f'#{n}'.encode() if n else b''))}" for n in itertools.count())
    return next(student for student in tried if student not in taken and student not in RESERVED_IDS)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARACTERS]


def _suffix_rank(path: Path) -> int:
    return SUFFIXES.index(path.suffix) if path.suffix in SUFFIXES else len(SUFFIXES)
