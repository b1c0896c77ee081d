"""Reports the grader wrote itself: what a batch may keep from its reports folder.

A batch keeps a report already in OUT for an unchanged file, so that a stopped batch
resumes. Anything in OUT could have been put there by someone else, though: a report
copied from the public grader's ``--json`` output for a head of zeros, with the score
changed and a classmate's id in it. So every report a batch writes carries a signature,
an HMAC-SHA256 of its content under a key that is this OUT's alone, and a report is
kept only if its signature verifies (then its score is recomputed from its checks, and
its student must be the file it is named for; see grader.batch).

The key lives beside OUT, never in it: ``<parent>/.<OUT's name>.grader-key``, 32 random
bytes as hex, made by the first batch into OUT, readable by its owner alone. A reports
folder that is zipped, shared or handed to a platform carries no key, so nothing it
holds can be re-signed; a folder moved with its key keeps resuming. A key that is a
link, another user's, or readable by others is not used (one sentence says to remove
it). Losing the key loses nothing but the resume: every report is graded again.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from pathlib import Path

from grader.errors import UsageError
from grader.sources import files

SIGNATURE_FIELD = "signature"
SIGNATURE_PREFIX = "hmac-sha256:"
KEY_BYTES = 32
# Reports are tens of KiB; a notebook's report with every left-out piece, a few hundred.
REPORT_LIMIT = 16 * 1024 * 1024


def key_path(out: Path) -> Path:
    """Where the key of the reports folder ``out`` lives: beside it, never inside."""
    resolved = out.resolve()
    return resolved.parent / f".{resolved.name}.grader-key"


def report_key(out: Path) -> bytes:
    """The key of ``out``'s reports: read, or made if there is none yet."""
    path = key_path(out)
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    _make_key(path)
    return _read_key(path)


def signed(text: str, key: bytes) -> str:
    """The report ``text`` (JSON, as grader.report.to_json writes it) with its signature."""
    data = json.loads(text)
    data.pop(SIGNATURE_FIELD, None)
    data[SIGNATURE_FIELD] = _signature(data, key)
    # The text was made strict and safe once (grader.report.safe_text); it is written as it was read.
    return json.dumps(data, indent=2, allow_nan=False) + "\n"


def read_signed(out: Path, name: str, key: bytes) -> str | None:
    """The text of the report ``out/name`` if this key signed it, else None: a link, a
    pipe, a device, a file over the limit, or a report signed by no one or another key.
    It is read as submissions are (grader.sources.files): no link followed, never blocking,
    never more than the limit."""
    try:
        content = files.read_submission(out / name, REPORT_LIMIT, within=out, what="report")
        text = content.decode("utf-8")
        data = json.loads(text)
    except (UsageError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    claimed = data.pop(SIGNATURE_FIELD, None)
    if not isinstance(claimed, str):
        return None
    return text if hmac.compare_digest(claimed, _signature(data, key)) else None


def _signature(data: dict, key: bytes) -> str:
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return SIGNATURE_PREFIX + hmac.new(key, canonical.encode(), hashlib.sha256).hexdigest()


def _read_key(path: Path) -> bytes:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError:  # a link (ELOOP), or what cannot be opened
        descriptor = None
    found, text = None, b""
    if descriptor is not None:
        found = os.fstat(descriptor)
        if stat.S_ISREG(found.st_mode):
            with os.fdopen(descriptor, "rb", buffering=0) as stream:
                text = stream.read(2 * KEY_BYTES + 2).strip()
        else:
            os.close(descriptor)  # a folder, a pipe, a device: never read
    trusted = (
        found is not None
        and stat.S_ISREG(found.st_mode)
        and found.st_uid == os.geteuid()
        and not found.st_mode & 0o077
        and len(text) == 2 * KEY_BYTES
    )
    try:
        key = bytes.fromhex(text.decode("ascii")) if trusted else None
    except (UnicodeDecodeError, ValueError):
        key = None
    if key is None:
        raise UsageError(
            f"{path} is not a report key this grader made (a link, another user's file, readable by others, "
            "or not 64 hex digits): remove it, and every report in the reports folder is graded again"
        )
    return key


def _make_key(path: Path) -> None:
    """Write a new key to ``path`` unless another batch has just made one (then that one is used)."""
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".tmp")
    except OSError as error:
        raise UsageError(f"cannot write the report key {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "w", encoding="ascii") as stream:  # mkstemp makes it 0600
            stream.write(secrets.token_hex(KEY_BYTES) + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)  # never replaces a key another batch made meanwhile
    finally:
        Path(temporary).unlink(missing_ok=True)
