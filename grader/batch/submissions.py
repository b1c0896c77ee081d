"""What a folder of submissions hands in: each submission's file, and the id it is graded under.

A submission is ``DIR/<id>.py`` or ``DIR/<id>/<handout>.py`` (the assignment's handout:
``attention.py`` for the first), or the same as a notebook; a folder ``DIR/<id>/`` without
one is a submission too, whose report says the file is missing
(``.ipynb``); a Python file wins over a notebook of the same name beside it (the ``.py``
a student exported from their notebook, say).

The folder is listed, never followed: an entry named like a submission is one whatever it
is (a link, a named pipe, a folder), so that its report can say why it is not graded
(grader.sources.files); a folder that is a link is one too.

A file a student meant as a submission but named otherwise is graded as it was meant, and
its report's note says what to rename: ``bob.PY``, ``carol.py `` (a trailing space),
``attention.py.txt`` (saved as text), and in a student's folder ``attention (1).py`` or
``Attention.py`` when it is the only such file. A folder with two such files, or with
none but other code (``solution.py``), gets an error report naming what it holds.

Whatever the names, every submission gets an id of its own, the same whatever order the
folder lists them in, and no name stops the batch:

- an id is the name as every output can carry it (grader.report.safe_text.one_line: a byte of
  a name that is not UTF-8, a control character, as its escape);
- one longer than :data:`MAX_ID_BYTES` is cut, with a digest of the whole name after it,
  so its report's file name stays within what a file system allows;
- one that another submission has already (two names that read alike once escaped,
  ``ada.py`` beside a folder ``ada/``, or ``Ada.py`` beside ``ada.py`` and one name in
  NFC beside the same in NFD, which a macOS or Windows share would write to one report),
  or that names a file the batch writes
  (``summary``, ``index``, ``similarity``), gets a digest of its path after it
  (``ada~3f2a1b9c``), and its report says so in a note.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError
from grader.report.safe_text import one_line
from grader.sources.files import BLANK_ID, SubmissionFile, blank_name_note

# Folders an archive or an interpreter leaves beside the submissions: never a student's.
ARTEFACTS = frozenset({"__MACOSX", "__pycache__"})
RESERVED_IDS = frozenset({"summary", "index", "similarity"})  # summary.json; index.html (--html); similarity.json
SUFFIXES = (".py", ".ipynb")  # in order of preference, for one student's two files
# Room for the report's name (OUT/<id>.json, .html) and its temporary file's beside it
# within the 255 bytes a file name may have.
MAX_ID_BYTES = 150
DIGEST_CHARACTERS = 8


# What a browser, an LMS export or a hurried rename adds to a file's name: "attention.py.txt",
# "attention (1).py", "attention copy.py", "attention-2.py".
SAVED_AS_TEXT = (".txt", ".download")
OTHER_SPELLINGS = {".pyw": ".py"}  # Python's own suffix for a script run without a console (Windows)
COPY_MARK = re.compile(r"(?:\s*\(\d+\)|\s+copy(?:\s*\d+)?|[-_ ]\d+)$", re.IGNORECASE)
NAMES_SHOWN = 3


@dataclass(frozen=True)
class _HandedIn:
    name: str  # the file's stem or the folder's name, as the folder lists it
    path: Path
    suffix: str  # the suffix the file was meant to have (".py" for "bob.PY")
    exact: bool = True  # named as a submission is; else a near miss, graded as meant
    note: str | None = None


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
    python_files = {(found.path.parent, found.name) for found in handed_in if found.suffix == SUFFIXES[0]}
    handed_in = [
        found for found in handed_in
        if found.suffix != SUFFIXES[1] or (found.path.parent, found.name) not in python_files
    ]
    if not handed_in:
        raise UsageError(
            f"no submissions in {folder}: expected {folder}/<id>.py, {folder}/<id>/{stem}.py "
            "or the same as .ipynb notebooks"
        )
    handed_in.sort(
        key=lambda found: (_readable(found.name), not found.exact, _suffix_rank(found.suffix), os.fsencode(found.path))
    )
    found: dict[str, SubmissionFile] = {}
    # Each id as a case-insensitive, normalising file system (a macOS or Windows share) sees
    # its report's name: Ada and ada, or one name in NFC and NFD, would write one report.
    # Ids that differ only so are all graded under ids of their own: none may take the
    # plain one from the other (ROB.py beside rob.py), whatever order they sort in.
    readables = {_readable(submission.name) for submission in handed_in}
    spellings: dict[str, set[str]] = {}
    for readable in readables:
        spellings.setdefault(_folded(readable), set()).add(readable)
    taken: dict[str, str] = {_folded(reserved): reserved for reserved in RESERVED_IDS}
    for submission in handed_in:
        readable = _readable(submission.name)
        student, note = readable, None
        others = sorted(spellings[_folded(readable)] - {readable})
        if _folded(readable) in taken or others:
            student = _unique(readable, os.fsencode(submission.path.relative_to(folder)), taken)
            other = taken.get(_folded(readable))
            if others:
                why = (
                    f"also the id of {', '.join(others)} where a file system ignores case or Unicode forms "
                    "(macOS, Windows)"
                )
            elif other in RESERVED_IDS:
                why = "a file the batch writes"
            else:
                why = f"the id of {found[other].path}"
            note = f"Its name gives the id {readable}, which is {why}: it is graded as {student}."
        taken[_folded(student)] = student
        notes = [text for text in (submission.note, note) if text]
        found[student] = SubmissionFile(student, submission.path, folder, " ".join(notes) or None)
    return [found[student] for student in sorted(found)]


def _handed_in(folder: Path, entry: os.DirEntry, handout_stem: str) -> list[_HandedIn]:
    """What the folder's entry ``entry`` hands in, if anything (``handout_stem``: the
    handout's name without its suffix)."""
    stem, suffix = os.path.splitext(entry.name)
    if suffix in SUFFIXES:
        if not stem.strip():  # " .py": a name that gives no id
            return [_HandedIn(BLANK_ID, folder / entry.name, suffix, exact=False, note=blank_name_note(entry.name))]
        if stem.strip() != stem:  # "kim .py": one id with kim.py, and told so
            note = f"The file is named {entry.name!r}, not {stem.strip()}{suffix}: it is graded as {stem.strip()}{suffix}; name it so."
            return [_HandedIn(stem.strip(), folder / entry.name, suffix, exact=False, note=note)]
        return [_HandedIn(stem, folder / entry.name, suffix)]
    if entry.is_dir(follow_symlinks=False):
        if entry.name in ARTEFACTS:
            return []
        return [_handout_in(folder / entry.name, handout_stem)]
    if entry.is_symlink() and entry.is_dir():  # a linked folder: reported, never entered
        return [_HandedIn(entry.name, folder / entry.name, "")]
    meant = _as_meant(entry.name)
    if meant is None:
        return []
    stem, suffix = meant
    note = f"The file is named {entry.name!r}, not {stem}{suffix}: it is graded as {stem}{suffix}; name it so."
    return [_HandedIn(stem, folder / entry.name, suffix, exact=False, note=note)]


def _handout_in(student_folder: Path, handout_stem: str) -> _HandedIn:
    """What a student's folder hands in: the handout, else the one file named nearly so
    (``attention (1).py``, ``Attention.PY``), else the handout's path, which is missing
    (its report says so, and what the folder holds instead)."""
    name = student_folder.name.strip() or BLANK_ID  # "kim /" is kim's folder; " /" gives no id
    renamed = f"The folder is named {student_folder.name!r}, not {name}: it is graded as {name}." if name != student_folder.name else None
    exact = [student_folder / f"{handout_stem}{kind}" for kind in SUFFIXES]
    for path in exact:
        if os.path.lexists(path):
            return _HandedIn(name, path, path.suffix, exact=renamed is None, note=renamed)
    try:
        with os.scandir(student_folder) as entries:
            listed = sorted(entry.name for entry in entries if not entry.name.startswith("."))
    except OSError:
        listed = []
    meant = {candidate: _as_meant(candidate) for candidate in listed}
    near = [candidate for candidate, found in meant.items() if found and _is_handout(found[0], handout_stem)]
    handout = f"{handout_stem}{SUFFIXES[0]}"
    if len(near) == 1:
        suffix = meant[near[0]][1]
        note = f"{name}/ holds {near[0]!r}, not {handout_stem}{suffix}: it is graded as {handout_stem}{suffix}; name it so."
        return _HandedIn(name, student_folder / near[0], suffix, note=note)
    if near:
        note = f"{name}/ holds {_listed(near)} but no {handout}: rename the one to grade to {handout}."
    else:
        code = [candidate for candidate, found in meant.items() if found]
        note = f"{name}/ holds {_listed(code)} but no {handout}: rename the file to grade to {handout}." if code else None
    return _HandedIn(name, exact[0], SUFFIXES[0], note=note)


def _as_meant(name: str) -> tuple[str, str] | None:
    """The stem and suffix a near miss of a submission's name was meant to have
    (``bob.PY``, ``carol.py `` with a space, ``attention.py.txt``), or None."""
    cleaned = name.strip()
    for added in SAVED_AS_TEXT:
        if cleaned.lower().endswith(added):
            cleaned = cleaned[: -len(added)]
    stem, suffix = os.path.splitext(cleaned)
    stem, suffix = stem.strip(), OTHER_SPELLINGS.get(suffix.lower(), suffix.lower())
    if suffix not in SUFFIXES or not stem:
        return None
    return stem, suffix


def _is_handout(stem: str, handout_stem: str) -> bool:
    return COPY_MARK.sub("", stem).strip().casefold() == handout_stem.casefold()


def _listed(names: list[str]) -> str:
    shown = [repr(name) for name in names[:NAMES_SHOWN]]
    more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
    return (", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]) + more


def _folded(student: str) -> str:
    """An id as a file system that ignores case and Unicode normalisation sees it."""
    return unicodedata.normalize("NFC", student).casefold()


def _readable(name: str) -> str:
    """``name`` as every output can carry it, cut (with a digest of it) where it is too long."""
    readable = one_line(name)
    if len(readable.encode()) <= MAX_ID_BYTES:
        return readable
    kept = readable.encode()[: MAX_ID_BYTES - DIGEST_CHARACTERS - 1].decode(errors="ignore")
    return f"{kept}~{_digest(os.fsencode(name))}"


def _unique(readable: str, path: bytes, taken: dict[str, str]) -> str:
    """``readable`` with a digest of ``path`` after it, one that no other id has (``taken``:
    the ids so far, by :func:`_folded`)."""
    # A salt only where a name was made to clash with the digest of another.
    tried = (f"{readable}~{_digest(path + (f'#{n}'.encode() if n else b''))}" for n in itertools.count())
    return next(student for student in tried if _folded(student) not in taken)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARACTERS]


def _suffix_rank(suffix: str) -> int:
    return SUFFIXES.index(suffix) if suffix in SUFFIXES else len(SUFFIXES)
