"""Sphinx configuration of the attention-grader documentation.

Build it as CI does, every warning an error::

    python -m pip install -e '.[docs]'
    python -m sphinx -W --keep-going -b html docs docs/_build/html

Its examples run with ``python -m pytest docs`` (see ``docs/conftest.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import grader  # noqa: E402
from generated import write_all  # noqa: E402

project = "attention-grader"
author = "the attention-grader authors"
copyright = "2026, the attention-grader authors"
release = grader.__version__  # the version is defined once, in grader/__init__.py
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx_click",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "demo", "**/_generated", "conftest.py", "README.md"]
myst_enable_extensions = ["colon_fence", "deflist", "fieldlist"]
myst_heading_anchors = 3
# Options such as --format must read as typed: no "--" turned into a dash, no curly quotes.
smartquotes = False

html_theme = "furo"
html_title = f"attention-grader {release}"
html_static_path: list[str] = []
html_theme_options = {"source_repository": "", "navigation_with_keys": True}

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}

# The reference tables made from the grader's own registries (docs/_ext/generated.py).
write_all(DOCS / "reference" / "_generated")
