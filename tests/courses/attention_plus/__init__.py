"""A course's own version of the shipped first assignment, extended without copying it:
one more check (``checks/course.py``), one more known mistake (``mistakes.py``), the
course's worked example for its notebook handout, and its own rubric naming the shipped
checks and its own."""

from grader.authoring import extend


def _mistakes():
    from .mistakes import MISTAKES  # numpy is imported only when a head is diagnosed

    return MISTAKES


ASSIGNMENT = extend(
    "attention_head",
    name="attention_plus",
    title="Attention head (with the course's own check)",
    rubric="rubric.toml",
    more_mistakes=_mistakes,
    worked_example=(
        "Try it on the course's example",
        """Q = K = np.eye(3)
V = np.arange(9.0).reshape(3, 3)
out, A = attention(Q, K, V)
print(A.sum(axis=-1))  # every row sums to 1""",
    ),
)
