"""The lesson's own code, which every student is given: similarity leaves it out."""

# The lesson's code (section 2 and its checks), as students receive it: shared by design.
LESSON_CODE = '''
import numpy as np

def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)

def attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = softmax(scores, axis=-1)
    return A @ V, A

def self_attention(X, Wq, Wk, Wv, mask=None):
    return attention(X @ Wq, X @ Wk, X @ Wv, mask)

def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))

Q = K = np.array([[1., 0.], [0., 1.], [1., 1.]])
V = np.array([[10., 0.], [0., 10.], [5., 5.]])
out, A = attention(Q, K, V)
assert np.allclose(A.sum(axis=1), 1.0)
assert (A >= 0).all()
assert out.shape == (3, 2)
assert out.min() >= V.min() - 1e-9 and out.max() <= V.max() + 1e-9
rng = np.random.default_rng(0)
n, d_model, d_k, d_v = 7, 16, 4, 8
X  = rng.normal(size=(n, d_model))
Wq = rng.normal(size=(d_model, d_k)) / np.sqrt(d_model)
Wk = rng.normal(size=(d_model, d_k)) / np.sqrt(d_model)
Wv = rng.normal(size=(d_model, d_v)) / np.sqrt(d_model)
out, A = self_attention(X, Wq, Wk, Wv)
M = causal_mask(n)
out_c, A_c = self_attention(X, Wq, Wk, Wv, mask=M)
P = rng.permutation(n)
out_p, _ = self_attention(X[P], Wq, Wk, Wv)
'''

# The lesson's worked example (section 3), for the notebook handout to try.
WORKED_EXAMPLE = """Q = K = np.array([[1., 0.], [0., 1.], [1., 1.]])
V = np.array([[10., 0.], [0., 10.], [5., 5.]])
out, A = attention(Q, K, V)
print(np.round(A, 4))  # the lesson: [[0.4011 0.1978 0.4011] [0.1978 0.4011 0.4011] [0.2483 0.2483 0.5035]]
print(np.round(out, 2))"""
