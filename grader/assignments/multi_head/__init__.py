"""The second assignment, the lesson's sequel: multi-head attention in NumPy.

Students write ``split_heads``, ``merge_heads`` and ``multi_head_attention`` in
``multi_head.py`` (the handout is ``student_template/multi_head.md``); they bring their
own ``softmax``, and may write the lesson's ``attention`` to call per head. This folder
holds the checks (``checks/``), the reference wrappers (``reference.py``), the strategies
(``strategies.py``), the known mistakes (``mistakes.py``) and the pictures below.
"""

from __future__ import annotations

import numpy as np

from grader.assignments import Assignment, Function, Picture
from grader.assignments.attention_head.lesson import LESSON_CODE
from grader.assignments.multi_head import reference

# The pictures' call: 4 tokens, d_model 4, two heads of d_head 2, under a causal mask.
_PICTURE_RNG = np.random.default_rng(31)
_X = np.round(_PICTURE_RNG.normal(size=(4, 4)), 1)
_WQ, _WK, _WV, _WO = (np.round(_PICTURE_RNG.normal(size=(4, 4)) / 2, 1) for _ in range(4))
_CAUSAL = np.tril(np.ones((4, 4), dtype=bool))


def _mistakes():  # imported when a head is first diagnosed
    from grader.assignments.multi_head.mistakes import KNOWN

    return KNOWN


ASSIGNMENT = Assignment(
    name="multi_head",
    title="Multi-head attention",
    functions=(
        # The small calls probe a function that timed out: inputs every working version answers at once.
        Function(
            "split_heads", ("X", "n_heads"), "split_heads(X, n_heads)",
            ((np.eye(2), 1), "split_heads(np.eye(2), 1)"),
        ),
        Function("merge_heads", ("H",), "merge_heads(H)", ((np.ones((1, 2, 2)),), "merge_heads(np.ones((1, 2, 2)))")),
        Function(
            "multi_head_attention",
            ("X", "Wq", "Wk", "Wv", "Wo", "n_heads", "mask"),
            "multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None)",
            ((np.eye(2), np.eye(2), np.eye(2), np.eye(2), np.eye(2), 1), "X and every W the 2x2 identity, one head"),
        ),
    ),
    handout="multi_head.py",
    task="split_heads, merge_heads and multi_head_attention from the handout",
    reference=reference.HEAD,
    rubric="rubrics/multi_head.toml",
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
    reference_functions=reference.FUNCTIONS,
    mistakes=_mistakes,
    pictures={
        f"head_{head}": Picture(
            "multi_head_attention",
            (_X, _WQ, _WK, _WV, _WO, 2, _CAUSAL),
            f"Head {head} of multi_head_attention(X, Wq, Wk, Wv, Wo, 2, causal mask) on 4 tokens, d_model 4: "
            "weight above the diagonal must be 0 and each row must sum to 1",
            weights_index=(head,),
        )
        for head in (0, 1)
    },
)
