"""The grader as a wheel file a course hands its students (``export-student --install wheel``).

A student installs it with ``pip install ./attention_grader-<version>-py3-none-any.whl``
on any machine, in Colab after an upload, or in a Classroom repository that carries it:
no package index, and no access to the course's own repository.

The wheel is packed from this installation, as the other bundles are: the ``grader``
package as it is here, the reference heads, rubrics and student templates a built wheel
bundles under ``grader/_bundled/``, and the installed distribution's own metadata and
entry points (the console script ``grader``, the pytest plugin). So it installs exactly
the grader the instructor tested, from a checkout or from an installed wheel alike, with
no build backend and no network. Its bytes depend only on those files.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
from grader import __version__
from grader.errors import UsageError
from grader.resources import PACKAGE

DISTRIBUTION = "attention-grader"
# What a built wheel carries beside the package (pyproject.toml's force-include), and
# where this installation keeps it: inside the package once installed, beside it in a checkout.
BUNDLED_FOLDERS = ("reference", "rubrics", "student_template")
WHEEL_TAG = "py3-none-any"
# Files of the distribution's metadata copied as they are installed.
METADATA_FILES = ("METADATA", "entry_points.txt")


def wheel_name() -> str:
    """The file name pip expects of this grader's wheel."""
    return f"{DISTRIBUTION.replace('-', '_')}-{__version__}-{WHEEL_TAG}.whl"


def wheel_entries() -> dict[str, bytes]:
    """Every file of the wheel but its RECORD, by its path in the wheel."""
    try:
        distribution = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise UsageError(
            f"the grader is not installed as the package {DISTRIBUTION} (pip install it, from a checkout with "
            "pip install -e .), so its wheel cannot be made: give --install a pip requirement instead"
        ) from None
    if distribution.version != __version__:
        raise UsageError(
            f"the installed {DISTRIBUTION} is version {distribution.version}, but this grader is {__version__}: "
            "install it again (pip install -e . in a checkout) before building its wheel"
        )
    entries = package_files()
    for folder in BUNDLED_FOLDERS:
        root = next(root / folder for root in (PACKAGE / "_bundled", PACKAGE.parent) if (root / folder).is_dir())
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.relative_to(root).parts:
                entries[f"grader/_bundled/{folder}/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    info = f"{DISTRIBUTION.replace('-', '_')}-{__version__}.dist-info"
    for name in METADATA_FILES:
        text = distribution.read_text(name)
        if text is not None:
            entries[f"{info}/{name}"] = text.encode()
    entries[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: attention-grader {__version__}\nRoot-Is-Purelib: true\nTag: {WHEEL_TAG}\n"
    ).encode()
    for line in (distribution.read_text("METADATA") or "").splitlines():
        if line.startswith("License-File: "):  # kept under licenses/ (core metadata 2.4)
            name = f"licenses/{line.removeprefix('License-File: ').strip()}"
            text = distribution.read_text(name)
            if text is not None:
                entries[f"{info}/{name}"] = text.encode()
    return entries


def package_files() -> dict[str, bytes]:
    """The ``grader`` package as it is here, by its path in a wheel or a bundle: every file
    but compiled ones and the data a built wheel bundles (``_bundled``, added by each)."""
    files = {}
    for path in sorted(PACKAGE.rglob("*")):
        relative = path.relative_to(PACKAGE)
        if path.is_file() and "__pycache__" not in relative.parts and relative.parts[0] != "_bundled":
            files[f"grader/{relative.as_posix()}"] = path.read_bytes()
    return files


def with_record(entries: dict[str, bytes]) -> dict[str, bytes]:
    """``entries`` and the RECORD that lists each with its digest and size, as pip checks it."""
    info = next(name.split("/")[0] for name in entries if name.endswith(".dist-info/WHEEL"))
    lines = [f"{name},sha256={_digest(content)},{len(content)}" for name, content in entries.items()]
    return entries | {f"{info}/RECORD": ("\n".join([*lines, f"{info}/RECORD,,"]) + "\n").encode()}


def _digest(content: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
