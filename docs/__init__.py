"""The documentation site (Sphinx) and its tests (docs/conftest.py).

A package only so that pytest imports docs/conftest.py as ``docs.conftest``, apart from
the ``conftest`` module of tests/ that the grader's own tests import names from.
"""
