"""
Course-lab solution with a small helper class, asserts and docstrings.

What is wrong:
- softmax only really works for 2-D arrays: it handles axis 0 by transposing and
  otherwise loops over x.shape[0] rows, taking the max and the sum of x[i].  For a
  3-D array x[i] is a whole matrix, so it normalises over that whole slice (and
  x.T reverses all three axes); a 1-D input comes back as all ones.
- attention applies the mask after softmax (A * mask) without renormalising, so a
  masked row no longer sums to 1.
- self_attention builds its Head with the arguments in the wrong order,
  Head(Wk, Wq, Wv): queries are made with Wk and keys with Wq.
causal_mask is fine.
"""
# diagnosis: softmax_only_2d, mask_after_softmax, self_attention_swapped_projections
# style: university course lab (helper class, shape asserts, docstrings, row loop)
import numpy as np


class _Shapes:
    """Shape checks with readable messages (used by the autograded lab)."""

    @staticmethod
    def check(name, arr, ndim):
        assert arr.ndim == ndim, f"{name} must be {ndim}-D, got shape {arr.shape}"


class Head:
    """Holds the three projection matrices of one attention head."""

    def __init__(self, Wq, Wk, Wv):
        self.Wq = Wq
        self.Wk = Wk
        self.Wv = Wv

    def project(self, X):
        return X @ self.Wq, X @ self.Wk, X @ self.Wv


def softmax(x, axis=-1):
    """Numerically stable softmax.

    Each row is shifted by its max before exponentiating.  axis=0 is handled by
    transposing, applying the row-wise version and transposing back.
    """
    x = np.asarray(x, dtype=float)
    if axis == 0 or axis == -2:
        return softmax(x.T, axis=-1).T
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        row = x[i] - np.max(x[i])
        e = np.exp(row)
        out[i] = e / np.sum(e)
    return out


def attention(Q, K, V, mask=None):
    """Scaled dot-product attention. Returns (out, A)."""
    _Shapes.check("Q", Q, 2)
    _Shapes.check("K", K, 2)
    _Shapes.check("V", V, 2)
    assert Q.shape[1] == K.shape[1], "queries and keys must have the same d_k"
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    A = softmax(scores, axis=-1)
    if mask is not None:
        A = A * mask  # zero out the positions we may not attend to
    out = A @ V
    assert out.shape == (Q.shape[0], V.shape[1])
    return out, A


def self_attention(X, Wq, Wk, Wv, mask=None):
    """Project X to queries, keys and values, then attend."""
    _Shapes.check("X", X, 2)
    head = Head(Wk, Wq, Wv)
    Q, K, V = head.project(X)
    return attention(Q, K, V, mask=mask)


def causal_mask(n):
    """Lower-triangular boolean mask: token i may attend to j <= i."""
    return np.tril(np.ones((n, n))).astype(bool)
