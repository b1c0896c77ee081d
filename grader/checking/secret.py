"""The course secret: what the grade of record draws its examples' values from.

The grader is public, and derandomized Hypothesis draws the same examples on every
machine: anyone with the package could work out every input the checks will send, and
answer those alone. A course that sets a secret (``--secret-file PATH``, or the
environment variable ``GRADER_SECRET``) has each example's arrays drawn from its seed and
the secret together (grader.checking.strategies), so the inputs of its grades cannot be known in
advance; the sizes, the order of the checks and everything else stay as they are. The
same file and the same secret give the same grade on every machine; without a secret
the examples are the public ones, which a student's ``grader check`` draws too.

The secret itself goes no further than this module: what travels (to the check process,
a cluster's workers, the recorded examples' cache) is a key derived from it, and a
report names only a digest of that key (``"examples": "course-<12 hex digits>"``), which
tells a student nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from grader.errors import UsageError

ENVIRONMENT_VARIABLE = "GRADER_SECRET"
PUBLIC = "public"
# A secret shorter than this could be guessed from a report by trying every short one.
MIN_SECRET_BYTES = 16


def course_key(secret_file: Path | None) -> str | None:
    """The key examples are drawn with: from ``secret_file``, else from $GRADER_SECRET;
    None when neither is set (the public examples)."""
    found = read_secret(secret_file)
    return None if found is None else course_key_of(found)


def course_key_of(course_secret: bytes) -> str:
    """The key a course secret gives (hex): a hash, so the secret itself travels nowhere."""
    return hashlib.sha256(b"attention-grader course secret\0" + course_secret).hexdigest()


def read_secret(secret_file: Path | None) -> bytes | None:
    """The course secret itself (for the platforms' bundles, which grade with it where
    they run), from ``secret_file`` or $GRADER_SECRET; None when neither is set."""
    if secret_file is not None:
        try:
            found = secret_file.read_bytes().strip()
        except OSError as error:
            raise UsageError(f"cannot read the secret file {secret_file}: {error.strerror or error}") from None
        where = str(secret_file)
    else:
        found = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().encode()
        where = f"${ENVIRONMENT_VARIABLE}"
        if not found:
            return None
    if len(found) < MIN_SECRET_BYTES:
        raise UsageError(
            f"the course secret in {where} has {len(found)} bytes; use at least {MIN_SECRET_BYTES} random "
            "characters (python -c 'import secrets; print(secrets.token_hex(16))')"
        )
    return found


def label(key: str | None) -> str:
    """What a report says its examples were drawn from: ``public``, or a digest of the key."""
    if key is None:
        return PUBLIC
    return "course-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def entropy_words(key: str) -> tuple[int, ...]:
    """``key`` as 32-bit words, the entropy numpy's seed sequences take alongside a seed."""
    return tuple(int(key[start : start + 8], 16) for start in range(0, len(key), 8))
