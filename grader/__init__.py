"""attention-grader: grade student NumPy implementations of one attention head.

Data flows one way: submission -> worker (sandboxed) -> check results (pytest +
Hypothesis, trusted) -> score (pure) -> report (versioned JSON, text).

What a course may build on: the ``grader`` command, the pytest plugin, ``%grade``, and for
writing assignments :mod:`grader.authoring` (public, stable across minor versions from
0.8). Every other module here is internal to the grader.
"""

import os
import sys

# `python -m grader` puts the working directory first on sys.path: run from a folder of
# submissions, a student's click.py or numpy.py there would be imported into the grader
# itself. While `-m` imports this package, sys.argv[0] is still "-m"; the grader's own
# modules are found through the package from here on, whatever sys.path says.
if sys.argv[:1] == ["-m"] and sys.path[:1] in ([""], [os.getcwd()]):
    del sys.path[0]

__version__ = "0.10.0"


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext grader`` in IPython or Jupyter: adds ``%grade`` (grader.kernel). IPython
    is imported only here, so the grader's other routes never need it."""
    from grader.kernel import magic

    magic.load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """``%unload_ext grader`` (and ``%reload_ext``): ends ``%grade``'s check process."""
    from grader.kernel import magic

    magic.unload(ipython)
