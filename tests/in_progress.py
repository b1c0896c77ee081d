"""Work-in-progress heads, the files students grade most: some functions finished the
lesson's way, the others still stubs or placeholders.

Every function of the head is written in each unfinished way a student leaves one (no def
yet, ``pass``, ``raise NotImplementedError``, zeros, its input, a constant or uniform
placeholder, ``np.exp`` without the division, ...), alone beside the lesson's other three functions, and every
function in the same way at once, and the likely pairs (a stub ``softmax`` under a finished
``attention``, ...). None of them makes a mistake the catalogue names: the functions that are
finished are the lesson's, so a head here may be told what its stubs do, never a mistake id.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ("softmax", "attention", "self_attention", "causal_mask")
SIGNATURES = {
    "softmax": "softmax(x, axis=-1)",
    "attention": "attention(Q, K, V, mask=None)",
    "self_attention": "self_attention(X, Wq, Wk, Wv, mask=None)",
    "causal_mask": "causal_mask(n)",
}
# Each unfinished way, per function: the body a student leaves (None: no def at all yet).
STUBS: dict[str, dict[str, str | None]] = {
    "missing": {name: None for name in FUNCTIONS},
    "pass": {name: "pass" for name in FUNCTIONS},
    "ellipsis": {name: "..." for name in FUNCTIONS},
    "not_implemented": {name: f'raise NotImplementedError("{name} is not written yet")' for name in FUNCTIONS},
    "todo_raise": {name: "raise NotImplementedError" for name in FUNCTIONS},
    "zeros": {
        "softmax": "return np.zeros_like(x)",
        "attention": "return np.zeros((Q.shape[0], V.shape[1])), np.zeros((Q.shape[0], K.shape[0]))",
        "self_attention": "return np.zeros((X.shape[0], Wv.shape[1])), np.zeros((X.shape[0], X.shape[0]))",
        "causal_mask": "return np.zeros((n, n), dtype=bool)",
    },
    "input": {
        "softmax": "return x",
        "attention": "return Q, K",
        "self_attention": "return X, X",
        "causal_mask": "return n",
    },
    "placeholder": {
        "softmax": "return np.ones_like(x) / x.shape[axis]",
        "attention": "A = np.ones((Q.shape[0], K.shape[0])) / K.shape[0]\n    return A @ V, A",
        "self_attention": "A = np.ones((X.shape[0], X.shape[0])) / X.shape[0]\n    return A @ (X @ Wv), A",
        "causal_mask": "return np.ones((n, n), dtype=bool)",
    },
    "partial": {
        "softmax": "return np.exp(x)",
        "attention": "scores = Q @ K.T / np.sqrt(Q.shape[-1])\n    return scores",
        "self_attention": "Q, K, V = X @ Wq, X @ Wk, X @ Wv\n    # TODO call attention",
        "causal_mask": "return np.tril(np.ones((n, n)))  # TODO dtype",
    },
    "partial_shifted": {
        "softmax": "return np.exp(x - x.max(axis=axis, keepdims=True))",
        "attention": "scores = Q @ K.T / np.sqrt(Q.shape[-1])\n    return scores, scores",
        "self_attention": "return X @ Wv, None",
        "causal_mask": "return np.ones((n, n))",
    },
}
# A stub's body that is a mistake of the catalogue, not a placeholder: left out.
NOT_STUBS = {
    ("partial", "causal_mask"),  # np.tril(np.ones((n, n))) is causal_mask_not_bool
}


# The function each one calls in the lesson.
HELPERS = {"attention": "softmax", "self_attention": "attention"}


def stubbed(name: str) -> set[str]:
    """The functions the head called ``name`` leaves unfinished."""
    parts = name.split("__")
    if len(parts) == 2 and parts[1] == "all":
        return {function for function in FUNCTIONS if (parts[0], function) not in NOT_STUBS}
    return set(parts[1::2])


def _reference_bodies() -> dict[str, str]:
    source = (ROOT / "reference" / "attention.py").read_text()
    tree = ast.parse(source)
    lines = source.splitlines()
    return {
        node.name: "\n".join(lines[node.body[0].lineno - 1 : node.end_lineno])
        for node in tree.body if isinstance(node, ast.FunctionDef)
    }


def head(stubs: dict[str, str]) -> str:
    """The source of a head whose functions in ``stubs`` have those bodies, the others the lesson's."""
    reference = _reference_bodies()
    parts = ['"""A head in progress."""', "", "import numpy as np", ""]
    for name in FUNCTIONS:
        if name in stubs and stubs[name] is None:
            continue
        body = f"    {stubs[name]}" if name in stubs else reference[name]
        parts += ["", f"def {SIGNATURES[name]}:", body, ""]
    return "\n".join(parts)


def heads() -> dict[str, str]:
    """Every work-in-progress head, by name: a stub alone, all four of a kind, and pairs."""
    found = {}
    for kind, bodies in STUBS.items():
        for name in FUNCTIONS:
            if (kind, name) not in NOT_STUBS:
                found[f"{kind}__{name}"] = head({name: bodies[name]})
        found[f"{kind}__all"] = head({name: body for name, body in bodies.items() if (kind, name) not in NOT_STUBS})
    for (kind_a, kind_b), (a, b) in itertools.product(
        [("zeros", "pass"), ("partial", "not_implemented"), ("placeholder", "zeros")],
        [("softmax", "self_attention"), ("attention", "causal_mask"), ("softmax", "causal_mask")],
    ):
        if (kind_a, a) not in NOT_STUBS and (kind_b, b) not in NOT_STUBS:
            found[f"{kind_a}__{a}__{kind_b}__{b}"] = head({a: STUBS[kind_a][a], b: STUBS[kind_b][b]})
    return found


def write(folder: Path) -> dict[str, Path]:
    """Write every head into ``folder``; their paths by name."""
    paths = {}
    for name, source in heads().items():
        paths[name] = folder / f"in_progress__{name}.py"
        paths[name].write_text(source)
    return paths
