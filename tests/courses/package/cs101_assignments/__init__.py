"""CS101's assignments for attention-grader: one folder each (``layer_norm/``), declared
under the entry point group ``grader.assignments`` in ``pyproject.toml``."""
