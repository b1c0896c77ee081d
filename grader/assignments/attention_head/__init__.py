"""The first assignment: one attention head in NumPy (the lesson; its handout is student_template/README.md).

Students write ``softmax``, ``attention``, ``self_attention`` and ``causal_mask`` in
``attention.py`` (or a notebook). This folder holds what the grader knows of them: the
checks (``checks/``), the reference wrappers (``reference.py``) and the strategies
(``strategies.py``) they use, the known mistakes (``mistakes.py``, with the step by step
inference in ``steps.py``), the lesson's own code (``lesson.py``) and the pictures below.
Nothing here imports numpy until it is asked for (see grader.assignments.Assignment).
"""

from __future__ import annotations

import functools
from typing import Any

from grader.authoring import Assignment, Function, Picture
from grader.assignments.attention_head import lesson

REFERENCE_HEAD = "reference/attention.py"


def _reference_functions() -> dict[str, Any]:
    from grader.assignments.attention_head.reference import FUNCTIONS

    return FUNCTIONS


@functools.cache
def _small_calls() -> dict[str, tuple[tuple[Any, ...], str]]:
    """Inputs every correct head, and nearly every wrong one, answers at once (attention's
    is the lesson's worked example)."""
    import numpy as np

    from grader.assignments.attention_head.inputs import WORKED_QK, WORKED_V

    return {
        "softmax": ((np.array([1.0, 2.0, 3.0]),), "softmax(np.array([1.0, 2.0, 3.0]))"),
        "attention": ((WORKED_QK, WORKED_QK, WORKED_V), "the lesson's worked example"),
        "self_attention": ((np.eye(2), np.eye(2), np.eye(2), np.eye(2)), "self_attention with X and every W the 2x2 identity"),
        "causal_mask": ((2,), "causal_mask(2)"),
    }


def _mistakes():
    from grader.assignments.attention_head.mistakes import KNOWN

    return KNOWN


@functools.cache
def _pictures() -> dict[str, Picture]:
    import numpy as np

    from grader.assignments.attention_head.inputs import WORKED_QK, WORKED_V
    from grader.authoring.mistakes import fixed_matrix as matrix

    return {
        "worked_example": Picture(
            "attention",
            (WORKED_QK, WORKED_QK, WORKED_V),
            "The lesson's worked example (section 3): attention(Q, K, V) with Q = K = [[1, 0], [0, 1], [1, 1]]",
        ),
        "causal": Picture(
            "attention",
            (matrix(18, 4, 3), matrix(19, 4, 3), matrix(20, 4, 2), np.tril(np.ones((4, 4), dtype=bool))),
            "attention(Q, K, V, mask) with the lesson's causal mask for 4 tokens, np.tril(np.ones((4, 4), dtype=bool)), "
            "whatever your causal_mask returns: weight above the diagonal must be 0 and each row must sum to 1",
        ),
    }


ASSIGNMENT = Assignment(
    name="attention_head",
    title="Attention head",
    functions=(
        Function("softmax", ("x", "axis"), "softmax(x, axis=-1)"),
        Function("attention", ("Q", "K", "V", "mask"), "attention(Q, K, V, mask=None)", ("attention", "mask", "extension")),
        Function("self_attention", ("X", "Wq", "Wk", "Wv", "mask"), "self_attention(X, Wq, Wk, Wv, mask=None)"),
        Function("causal_mask", ("n",), "causal_mask(n)"),
    ),
    handout="attention.py",
    task="the four functions from the lesson",
    reference=REFERENCE_HEAD,
    rubric="rubrics/attention_head.toml",
    variants="grader/assignments/attention_head/variants",
    template={
        "attention.py": "student_template/attention.py",
        "README.md": "student_template/README.md",
        ".github/workflows/classroom.yml": "student_template/.github/workflows/classroom.yml",
    },
    lesson_code=lesson.LESSON_CODE,
    worked_example=("Try it on the lesson's worked example", lesson.WORKED_EXAMPLE),
    reference_functions=_reference_functions,
    small_calls=_small_calls,
    mistakes=_mistakes,
    pictures=_pictures,
)
