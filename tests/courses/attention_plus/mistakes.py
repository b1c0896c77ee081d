"""The course's own known mistake, told beside the shipped assignment's (``extend(...,
more_mistakes=...)`` in ``__init__.py``): an output made from the values transposed."""

import numpy as np

from grader.authoring.mistakes import Mistake


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def values_transposed(Q, K, V, mask=None):
    """attention with its output made from V.T: right only where V is square and symmetric."""
    scores = (Q @ np.swapaxes(K, -1, -2)) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V.T, A


MISTAKES = (
    Mistake(
        "attention_values_transposed",
        "attention multiplies the weights by V.T instead of V: each output row must be a weighted "
        "average of the rows of V, A @ V (section 1, the shapes table: AV is (n, d_v)).",
        "attention",
        variants=(values_transposed,),
        caught_by=("attention.matches_reference", "attention.convex_combination"),
    ),
)
