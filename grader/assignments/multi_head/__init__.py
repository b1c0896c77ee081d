"""The second assignment, the lesson's sequel: multi-head attention in NumPy.

Students write ``split_heads``, ``merge_heads`` and ``multi_head_attention`` in
``multi_head.py`` (the handout is ``student_template/multi_head.md``); they bring their
own ``softmax``, and may write the lesson's ``attention`` to call per head. This folder
holds the checks (``checks/``), the reference wrappers (``reference.py``), the strategies
(``strategies.py``), the known mistakes (``mistakes.py``) and the pictures below.
Nothing here imports numpy until it is asked for (see grader.assignments.Assignment).
"""

from __future__ import annotations

import functools
from typing import Any

from grader.authoring import Assignment, Function, Picture
from grader.assignments.attention_head.lesson import LESSON_CODE

REFERENCE_HEAD = "reference/multi_head.py"


def _reference_functions() -> dict[str, Any]:
    from grader.assignments.multi_head.reference import FUNCTIONS

    return FUNCTIONS


@functools.cache
def _small_calls() -> dict[str, tuple[tuple[Any, ...], str]]:
    """Inputs every working version answers at once."""
    import numpy as np

    return {
        "split_heads": ((np.eye(2), 1), "split_heads(np.eye(2), 1)"),
        "merge_heads": ((np.ones((1, 2, 2)),), "merge_heads(np.ones((1, 2, 2)))"),
        "multi_head_attention": (
            (np.eye(2), np.eye(2), np.eye(2), np.eye(2), np.eye(2), 1), "X and every W the 2x2 identity, one head"
        ),
    }


def _mistakes():
    from grader.assignments.multi_head.mistakes import KNOWN

    return KNOWN


@functools.cache
def _pictures() -> dict[str, Picture]:
    """Two heads' weights in one call: 4 tokens, d_model 4, two heads of d_head 2, causal."""
    import numpy as np

    rng = np.random.default_rng(31)
    X = np.round(rng.normal(size=(4, 4)), 1)
    Wq, Wk, Wv, Wo = (np.round(rng.normal(size=(4, 4)) / 2, 1) for _ in range(4))
    causal = np.tril(np.ones((4, 4), dtype=bool))
    return {
        f"head_{head}": Picture(
            "multi_head_attention",
            (X, Wq, Wk, Wv, Wo, 2, causal),
            f"Head {head} of multi_head_attention(X, Wq, Wk, Wv, Wo, 2, causal mask) on 4 tokens, d_model 4: "
            "weight above the diagonal must be 0 and each row must sum to 1",
            weights_index=(head,),
        )
        for head in (0, 1)
    }


ASSIGNMENT = Assignment(
    name="multi_head",
    title="Multi-head attention",
    functions=(
        Function("split_heads", ("X", "n_heads"), "split_heads(X, n_heads)", ("split_merge",)),
        Function("merge_heads", ("H",), "merge_heads(H)", ("split_merge",)),
        Function(
            "multi_head_attention",
            ("X", "Wq", "Wk", "Wv", "Wo", "n_heads", "mask"),
            "multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None)",
        ),
    ),
    handout="multi_head.py",
    task="split_heads, merge_heads and multi_head_attention from the handout",
    reference=REFERENCE_HEAD,
    rubric="rubrics/multi_head.toml",
    variants="grader/assignments/multi_head/variants",
    template={
        "multi_head.py": "student_template/multi_head.py",
        "README.md": "student_template/multi_head.md",
        ".github/workflows/classroom.yml": "student_template/.github/workflows/classroom.yml",
    },
    # The sequel's students start from the lesson's head: its code is given, not shared.
    lesson_code=LESSON_CODE,
    worked_example=(
        "Try it on a small example",
        """X = np.arange(8.0).reshape(2, 4)
H = split_heads(X, 2)
print(H)  # head 0 holds columns 0-1, head 1 columns 2-3
print(np.array_equal(merge_heads(H), X))  # True
W = np.eye(4)
out, A = multi_head_attention(X, W, W, W, W, 2)
print(A.shape, A.sum(axis=-1))  # (2, 2, 2), every row sums to 1""",
    ),
    reference_functions=_reference_functions,
    small_calls=_small_calls,
    mistakes=_mistakes,
    pictures=_pictures,
)
