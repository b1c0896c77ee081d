"""A course's own assignment: layer normalisation in NumPy.

Students write ``row_stats``, ``layer_norm`` and ``rms_norm`` in ``layer_norm.py`` (the
handout is ``handout.md``, the file they start from ``template.py``). This folder holds
the reference head (``solution.py``), the reference as the checks call it (``calls.py``),
the strategies (``strategies.py``), the checks (``checks/``), the known mistakes
(``mistakes.py``) and the rubric. Grade a file with::

    grader check --assignment path/to/layer_norm layer_norm.py

Nothing here imports numpy until it is asked for: the grader reads this module to score a
report without numpy. Modules of this folder import each other relatively, since the
grader imports the folder under a name of its own.
"""

from __future__ import annotations

import functools
from typing import Any

from grader.authoring import Assignment, Function


def _reference_functions() -> dict[str, Any]:
    from .calls import FUNCTIONS

    return FUNCTIONS


@functools.cache
def _small_calls() -> dict[str, tuple[tuple[Any, ...], str]]:
    """Inputs every working version answers at once."""
    import numpy as np

    return {
        "row_stats": ((np.eye(2),), "row_stats(np.eye(2))"),
        "layer_norm": ((np.eye(2), np.ones(2), np.zeros(2)), "layer_norm(np.eye(2), np.ones(2), np.zeros(2))"),
        "rms_norm": ((np.eye(2), np.ones(2)), "rms_norm(np.eye(2), np.ones(2))"),
    }


def _mistakes():
    from .mistakes import KNOWN

    return KNOWN


ASSIGNMENT = Assignment(
    name="layer_norm",
    title="Layer normalisation",
    functions=(
        Function("row_stats", ("X",), "row_stats(X)"),
        Function("layer_norm", ("X", "gamma", "beta", "eps"), "layer_norm(X, gamma, beta, eps=1e-5)"),
        Function("rms_norm", ("X", "gamma", "eps"), "rms_norm(X, gamma, eps=1e-5)"),
    ),
    handout="layer_norm.py",
    task="row_stats, layer_norm and rms_norm from the handout",
    reference="solution.py",
    rubric="rubric.toml",
    template={"layer_norm.py": "template.py", "README.md": "handout.md"},
    lesson_code="",
    worked_example=(
        "Try it on the handout's example",
        """X = np.array([[1., 1., 5., 5.], [2., 4., 6., 8.], [3., 3., 3., 3.]])
gamma = np.array([1., 2., 1., 0.5])
beta = np.array([0., 0., 1., -1.])
mean, var = row_stats(X)
print(mean.ravel(), var.ravel())  # [3. 5. 3.] [4. 5. 0.]
out = layer_norm(X, gamma, beta)
print(np.round(out, 4))  # the last row, constant in X, is beta
print(np.round(layer_norm(X, np.ones(4), np.zeros(4)).var(axis=1), 4))  # [1. 1. 0.]
print(np.round(rms_norm(X, np.ones(4)), 4))""",
    ),
    reference_functions=_reference_functions,
    small_calls=_small_calls,
    mistakes=_mistakes,
    pictures=dict,
)
