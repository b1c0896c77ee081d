"""The package builds as an index would take it, and the wheel a course hands students
(``export-student --install wheel``) holds what the built wheel holds.

``python -m build`` runs without build isolation (hatchling comes with the test extra),
so the test needs no network; ``twine check`` renders the metadata and long description
as a package index would.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

import grader
from grader.bundles.wheel import wheel_entries, wheel_name, with_record


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_package_builds_and_its_metadata_renders(built):
    names = sorted(path.name for path in built.iterdir())
    assert names == [f"attention_grader-{grader.__version__}-py3-none-any.whl", f"attention_grader-{grader.__version__}.tar.gz"]
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, built.iterdir())],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(built / wheel_name()) as wheel:
        metadata = wheel.read(f"attention_grader-{grader.__version__}.dist-info/METADATA").decode()
    assert "License-Expression: BSD-3-Clause" in metadata and f"Version: {grader.__version__}" in metadata


def test_the_handed_out_wheel_holds_what_the_built_wheel_holds(built):
    with zipfile.ZipFile(built / wheel_name()) as wheel:
        # RECORD lists digests, WHEEL names the tool that wrote it: the rest must be the same files.
        reference = {name: wheel.read(name) for name in wheel.namelist() if not name.endswith(("/RECORD", "/WHEEL"))}
    handed_out = {name: content for name, content in with_record(wheel_entries()).items()
                  if not name.endswith(("/RECORD", "/WHEEL"))}
    assert sorted(handed_out) == sorted(reference)
    differing = [name for name in reference if _meant(name, reference[name]) != _meant(name, handed_out[name])]
    assert differing == []


def _meant(name: str, content: bytes) -> bytes:
    """What a file of the wheel says that matters to pip: METADATA's headers (name, version,
    dependencies, licence), not its long description, which is README.md as it was when the
    grader was installed here (a checkout edited since keeps the installed one)."""
    return content.split(b"\n\n", 1)[0] if name.endswith(".dist-info/METADATA") else content
