"""Blind check of the held-out submissions in head/ and multi/ (no grader involved).

For every file:
  * it must import;
  * its header must have the agreed form (diagnosis / mistake / uncatalogued / style),
    with catalogued ids that exist in the two catalogues and a count that adds up;
  * every function is run on a battery of inputs, once "isolated" (the file's other
    graded functions replaced by the reference ones, so each function is judged on its
    own) and once as the file stands.

A correct file (c*) must match the reference everywhere (allclose, equal_nan, same
shape, bool masks stay bool, plain ndarrays, tuples where the reference returns
tuples) and must leave its inputs unchanged.

A buggy file (b*) must, for every function named in a `# mistake:` line, differ from
the reference somewhere in isolation (wrong value/shape/type, an exception the
reference does not raise, or a changed input); the functions it does not name must
pass in isolation (so the header lists all its mistakes, one per function).

Run:  python verify.py [-v]
"""

import copy
import glob
import importlib.util
import os
import re
import sys
import warnings

import numpy as np

sys.dont_write_bytecode = True  # keep head/ and multi/ free of __pycache__

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOGUES = {
    "head": "/work/main/docs/reference/_generated/mistakes-attention_head.md",
    "multi": "/work/main/docs/reference/_generated/mistakes-multi_head.md",
}
VERBOSE = "-v" in sys.argv

# ----------------------------------------------------------------------------
# Reference code, copied from the lesson (head) and the handout (multi)
# ----------------------------------------------------------------------------


def ref_softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)      # stability: exp never overflows
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def ref_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = (Q @ K.T) / np.sqrt(d_k)            # (n, n)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)  # mask==False -> weight 0
    A = ref_softmax(scores, axis=-1)             # (n, n), rows sum to 1
    return A @ V, A                              # (n, d_v), (n, n)


def ref_self_attention(X, Wq, Wk, Wv, mask=None):
    return ref_attention(X @ Wq, X @ Wk, X @ Wv, mask)


def ref_causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))  # token i may see j <= i


def ref_split_heads(X, n_heads):
    n, d_model = X.shape
    d_head = d_model // n_heads
    return X.reshape(n, n_heads, d_head).transpose(1, 0, 2)


def ref_merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def ref_multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):
    Q = ref_split_heads(X @ Wq, n_heads)
    K = ref_split_heads(X @ Wk, n_heads)
    V = ref_split_heads(X @ Wv, n_heads)
    d_head = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_head)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    A = ref_softmax(scores, axis=-1)
    return ref_merge_heads(A @ V) @ Wo, A


REFS = {
    "head": {
        "softmax": ref_softmax,
        "attention": ref_attention,
        "self_attention": ref_self_attention,
        "causal_mask": ref_causal_mask,
    },
    "multi": {
        "softmax": ref_softmax,
        "split_heads": ref_split_heads,
        "merge_heads": ref_merge_heads,
        "multi_head_attention": ref_multi_head_attention,
    },
}
# functions a header may name (softmax is given in the sequel and must stay correct)
HEADER_FUNCS = {
    "head": ["softmax", "attention", "self_attention", "causal_mask"],
    "multi": ["split_heads", "merge_heads", "multi_head_attention"],
}

# ----------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------

TOL = (2e-4, 1e-5)        # rtol, atol: float32 solutions pass, float16 ones do not
TOL_LARGE = (2e-3, 1e-4)  # for inputs with scores in the hundreds


def case(*args, _tol=TOL, _label="", **kwargs):
    return {"args": args, "kwargs": kwargs, "tol": _tol, "label": _label}


def random_mask(rng, n_q, n_k, full_false_row=None):
    m = rng.random((n_q, n_k)) < 0.6
    for i in range(n_q):
        if not m[i].any():
            m[i, rng.integers(n_k)] = True
    if full_false_row is not None:
        m[full_false_row] = False
    return m


def softmax_cases(rng):
    cs = []
    for shape in [(5,), (1,), (3, 4), (4, 4), (1, 6), (2, 3, 4), (3, 3, 3)]:
        for rep in range(2):
            x = rng.normal(size=shape) * 3
            cs.append(case(x, _label=f"x{shape} default axis"))
            for ax in range(-len(shape), len(shape)):
                cs.append(case(x, axis=ax, _label=f"x{shape} axis={ax}"))
            cs.append(case(x, 0, _label=f"x{shape} positional axis 0"))
    for shape in [(3, 4), (2, 3, 4)]:
        x = rng.normal(size=shape) * 1000
        cs.append(case(x, _tol=TOL_LARGE, _label=f"large x{shape}"))
        cs.append(case(x, axis=0, _tol=TOL_LARGE, _label=f"large x{shape} axis=0"))
    cs.append(case(np.array([[0.0, 1.0], [1000.0, 1001.0]]), _label="rows far apart"))
    cs.append(case(np.array([[0.0, 1000.0], [1.0, 1001.0]]), axis=0, _label="columns far apart"))
    cs.append(case(np.array([1000.0, 999.0, 998.0]), _label="large 1-D"))
    x = rng.normal(size=(3, 4))
    x[1, :] = -np.inf
    x[0, 2] = -np.inf
    cs.append(case(x, _label="-inf entries and an all -inf row"))
    x = rng.normal(size=(2, 3, 4))
    x[1, 2, :] = -np.inf
    cs.append(case(x, axis=-1, _label="3-D with an all -inf row"))
    return cs


def attention_cases(rng):
    cs = []
    shapes = [(3, 5, 2, 4), (4, 2, 3, 1), (1, 3, 2, 2), (5, 5, 4, 4), (2, 6, 1, 3),
              (6, 6, 3, 2), (3, 3, 2, 2), (1, 1, 2, 3), (7, 4, 5, 2)]
    for (n_q, n_k, d_k, d_v) in shapes:
        for rep in range(2):
            Q = rng.normal(size=(n_q, d_k))
            K = rng.normal(size=(n_k, d_k))
            V = rng.normal(size=(n_k, d_v))
            lab = f"n_q={n_q} n_k={n_k} d_k={d_k} d_v={d_v}"
            cs.append(case(Q, K, V, _label=lab + " no mask"))
            cs.append(case(Q, K, V, random_mask(rng, n_q, n_k), _label=lab + " random mask"))
            cs.append(case(Q, K, V, mask=random_mask(rng, n_q, n_k, full_false_row=0),
                           _label=lab + " mask with a fully masked row"))
            cs.append(case(Q, K, V, mask=np.ones((n_q, n_k), dtype=bool), _label=lab + " all-True mask"))
            if n_q == n_k:
                cs.append(case(Q, K, V, mask=ref_causal_mask(n_q), _label=lab + " causal"))
                cs.append(case(Q * 8, K * 8, V, mask=ref_causal_mask(n_q), _tol=TOL_LARGE,
                               _label=lab + " large scores, causal"))
            cs.append(case(Q * 8, K * 8, V, _tol=TOL_LARGE, _label=lab + " large scores"))
    # the lesson's worked example
    Qw = np.array([[1., 0.], [0., 1.], [1., 1.]])
    Vw = np.array([[10., 0.], [0., 10.], [5., 5.]])
    cs.append(case(Qw, Qw.copy(), Vw, _label="worked example"))
    cs.append(case(Qw, Qw.copy(), Vw, ref_causal_mask(3), _label="worked example, causal"))
    # a masked key that dominates its row by far
    Qx = np.array([[50.0, 0.0], [0.0, 0.0]])
    cs.append(case(Qx, Qx.copy(), np.array([[1.0, 2.0], [3.0, 4.0]]),
                   np.array([[False, True], [True, True]]), _label="masked key dominates the row"))
    # 1 x 1 masks
    q1 = rng.normal(size=(1, 2))
    cs.append(case(q1, q1.copy(), np.array([[2.0]]), np.array([[False]]), _label="1x1 False mask"))
    cs.append(case(q1, q1.copy(), np.array([[2.0]]), np.array([[True]]), _label="1x1 True mask"))
    return cs


def self_attention_cases(rng):
    cs = []
    for (n, d_model, d_k, d_v) in [(4, 6, 3, 2), (5, 3, 3, 3), (3, 4, 2, 5), (6, 8, 4, 4),
                                   (1, 2, 2, 2), (4, 4, 4, 4), (10, 5, 2, 3)]:
        for rep in range(2):
            X = rng.normal(size=(n, d_model))
            Wq = rng.normal(size=(d_model, d_k)) / np.sqrt(d_model)
            Wk = rng.normal(size=(d_model, d_k)) / np.sqrt(d_model)
            Wv = rng.normal(size=(d_model, d_v)) / np.sqrt(d_model)
            lab = f"n={n} d_model={d_model} d_k={d_k} d_v={d_v}"
            cs.append(case(X, Wq, Wk, Wv, _label=lab + " no mask"))
            cs.append(case(X, Wq, Wk, Wv, ref_causal_mask(n), _label=lab + " causal"))
            cs.append(case(X, Wq, Wk, Wv, mask=random_mask(rng, n, n, full_false_row=n - 1),
                           _label=lab + " mask with a fully masked row"))
            cs.append(case(X, Wq, Wk, Wv, mask=random_mask(rng, n, n), _label=lab + " random mask"))
            cs.append(case(X * 10, Wq * 3, Wk * 3, Wv, mask=ref_causal_mask(n), _tol=TOL_LARGE,
                           _label=lab + " large scores, causal"))
    return cs


def causal_mask_cases(rng):
    return [case(n, _label=f"n={n}") for n in range(1, 13)]


def split_heads_cases(rng):
    cs = []
    for n in [1, 2, 3, 5]:
        for h in [1, 2, 3, 4]:
            for dh in [1, 2, 3]:
                X = rng.normal(size=(n, h * dh))
                cs.append(case(X, h, _label=f"X({n}, {h * dh}) n_heads={h}"))
    X = np.arange(8.0).reshape(2, 4)
    cs.append(case(X, 2, _label="handout example"))
    return cs


def merge_heads_cases(rng):
    cs = []
    for n in [1, 2, 3, 5]:
        for h in [1, 2, 3, 4]:
            for dh in [1, 2, 3]:
                cs.append(case(rng.normal(size=(h, n, dh)), _label=f"H({h}, {n}, {dh})"))
    cs.append(case(np.array([[[0., 1.], [4., 5.]], [[2., 3.], [6., 7.]]]), _label="handout example"))
    return cs


def mha_cases(rng):
    cs = []
    for (n, h, dh) in [(3, 2, 2), (4, 1, 3), (2, 3, 1), (5, 4, 2), (1, 2, 3), (4, 3, 3),
                       (3, 4, 1), (5, 2, 3), (4, 4, 1)]:
        d = h * dh
        for rep in range(2):
            X = rng.normal(size=(n, d))
            Ws = [rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4)]
            lab = f"n={n} n_heads={h} d_head={dh}"
            cs.append(case(X, *Ws, h, _label=lab + " no mask"))
            cs.append(case(X, *Ws, h, ref_causal_mask(n), _label=lab + " causal"))
            cs.append(case(X, *Ws, h, mask=random_mask(rng, n, n), _label=lab + " random mask"))
            cs.append(case(X, *Ws, h, mask=random_mask(rng, n, n, full_false_row=n // 2),
                           _label=lab + " mask with a fully masked row"))
            cs.append(case(X, *Ws, n_heads=h, mask=np.ones((n, n), dtype=bool), _label=lab + " all-True mask"))
            cs.append(case(X * 6, Ws[0] * 3, Ws[1] * 3, Ws[2], Ws[3], h, ref_causal_mask(n),
                           _tol=TOL_LARGE, _label=lab + " large scores, causal"))
    # the handout's worked example
    Xw = np.array([[1., 0., 2., 0.], [0., 1., 0., 2.], [1., 1., 0., 0.]])
    I = np.eye(4)
    Wo = np.block([[np.zeros((2, 2)), np.eye(2)], [np.eye(2), np.zeros((2, 2))]])
    cs.append(case(Xw, I, I.copy(), I.copy(), Wo, 2, _label="worked example"))
    cs.append(case(Xw, I, I.copy(), I.copy(), Wo, 2, ref_causal_mask(3), _label="worked example, causal"))
    # a masked key that dominates its row by far
    Xx = np.array([[50.0, 0.0], [0.0, 0.0]])
    I2 = np.eye(2)
    cs.append(case(Xx, I2, I2.copy(), I2.copy(), I2.copy(), 1, np.array([[False, True], [True, True]]),
                   _label="masked key dominates the row"))
    return cs


CASES = {
    "head": {
        "softmax": softmax_cases,
        "attention": attention_cases,
        "self_attention": self_attention_cases,
        "causal_mask": causal_mask_cases,
    },
    "multi": {
        "softmax": softmax_cases,
        "split_heads": split_heads_cases,
        "merge_heads": merge_heads_cases,
        "multi_head_attention": mha_cases,
    },
}

# ----------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------


def same(got, exp, tol):
    """None if got matches exp, else a short reason."""
    if isinstance(exp, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(exp):
            return f"expected a pair, got {type(got).__name__}"
        for k, (g, e) in enumerate(zip(got, exp)):
            r = same(g, e, tol)
            if r:
                return f"item {k}: {r}"
        return None
    if not isinstance(got, np.ndarray) or isinstance(got, np.matrix):
        return f"expected ndarray, got {type(got).__name__}"
    if got.shape != exp.shape:
        return f"shape {got.shape} != {exp.shape}"
    if exp.dtype == bool:
        if got.dtype != bool:
            return f"dtype {got.dtype} != bool"
        return None if np.array_equal(got, exp) else "bool values differ"
    if got.dtype.kind != "f":
        return f"dtype {got.dtype} is not floating"
    g = got.astype(np.float64)
    if not np.array_equal(np.isnan(g), np.isnan(exp)):
        return "nan pattern differs"
    rtol, atol = tol
    if not np.allclose(g, exp, rtol=rtol, atol=atol, equal_nan=True):
        with np.errstate(all="ignore"):
            err = np.nanmax(np.abs(g - exp))
        return f"values differ (max abs err {err:.3g})"
    return None


def snapshot(args, kwargs):
    return copy.deepcopy(args), copy.deepcopy(kwargs)


def unchanged(a, b):
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype
                and np.array_equal(a, b, equal_nan=(a.dtype.kind == "f")))
    return a == b


def run_function(fn, ref, cs):
    """Return list of (label, reason) for the cases where fn differs from ref."""
    bad = []
    for c in cs:
        args, kwargs = c["args"], c["kwargs"]
        exp = ref(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        call_args, call_kwargs = snapshot(args, kwargs)
        before_args, before_kwargs = snapshot(args, kwargs)
        try:
            got = fn(*call_args, **call_kwargs)
        except Exception as e:  # noqa: BLE001
            bad.append((c["label"], f"raised {type(e).__name__}: {str(e)[:80]}"))
            continue
        for a, b in zip(call_args, before_args):
            if not unchanged(b, a):
                bad.append((c["label"], "changed an input argument in place"))
                break
        else:
            for k in call_kwargs:
                if not unchanged(before_kwargs[k], call_kwargs[k]):
                    bad.append((c["label"], f"changed input {k!r} in place"))
                    break
        r = same(got, exp, c["tol"])
        if r:
            bad.append((c["label"], r))
    return bad


# ----------------------------------------------------------------------------
# Headers
# ----------------------------------------------------------------------------


def load_catalogue(path):
    ids = {}
    if not os.path.exists(path):
        return None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\|\s*`([a-z0-9_]+)`\s*\|\s*([a-z_]+)\s*\|", line)
        if m:
            ids[m.group(1)] = m.group(2)
    return ids


HEADER_RE = [
    re.compile(r"^# diagnosis: (.+)$"),
    re.compile(r"^# mistake: ([a-z_]+): (.+)$"),
    re.compile(r"^# uncatalogued: (\d+)$"),
    re.compile(r"^# style: (.+)$"),
]


def parse_header(path, kind, catalogue):
    """Return (problems, diag_ids, mistakes[(func, text)], uncat)."""
    problems = []
    lines = open(path, encoding="utf-8").read().splitlines()
    i = 0
    m = HEADER_RE[0].match(lines[i]) if lines else None
    if not m:
        return ["first line is not '# diagnosis: ...'"], [], [], 0
    diag = m.group(1).strip()
    ids = [] if diag == "none" else [s.strip() for s in diag.split(",")]
    i += 1
    mistakes = []
    while i < len(lines) and lines[i].startswith("# mistake:"):
        mm = HEADER_RE[1].match(lines[i])
        if not mm:
            problems.append(f"bad mistake line: {lines[i]!r}")
        else:
            mistakes.append((mm.group(1), mm.group(2)))
        i += 1
    mu = HEADER_RE[2].match(lines[i]) if i < len(lines) else None
    if not mu:
        problems.append("missing '# uncatalogued: N' line after the mistake lines")
        return problems, ids, mistakes, 0
    uncat = int(mu.group(1))
    i += 1
    if not (i < len(lines) and HEADER_RE[3].match(lines[i])):
        problems.append("missing '# style: ...' line after uncatalogued")
    name = os.path.basename(path)
    funcs = [f for f, _ in mistakes]
    for f in funcs:
        if f not in HEADER_FUNCS[kind]:
            problems.append(f"mistake names unknown function {f!r}")
    if len(set(funcs)) != len(funcs):
        problems.append("two mistakes in the same function")
    if catalogue is not None:
        for d in ids:
            if d not in catalogue:
                problems.append(f"id {d!r} not in the {kind} catalogue")
            elif catalogue[d] not in funcs:
                problems.append(f"id {d!r} is a {catalogue[d]} mistake but no mistake line names {catalogue[d]}")
    if len(mistakes) != len(ids) + uncat:
        problems.append(f"{len(mistakes)} mistake lines != {len(ids)} ids + {uncat} uncatalogued")
    if name.startswith("b"):
        if uncat < 1:
            problems.append("buggy file without an uncatalogued mistake")
        if not 1 <= len(mistakes) <= 4:
            problems.append("buggy file must have 1 to 4 mistakes")
    elif name.startswith("c"):
        if ids or mistakes or uncat:
            problems.append("correct file with mistakes in its header")
    else:
        problems.append("file name must start with b or c")
    return problems, ids, mistakes, uncat


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------


def load_module(path, idx):
    name = f"heldout_{idx}_{os.path.splitext(os.path.basename(path))[0]}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_function(mod, kind, fname, isolated, seed):
    refs = REFS[kind]
    fn = getattr(mod, fname, None)
    if fn is None:
        return [("-", "function missing")]
    saved = {}
    if isolated:
        for other, ref in refs.items():
            if other != fname and other in mod.__dict__:
                saved[other] = mod.__dict__[other]
                setattr(mod, other, ref)
    try:
        cs = CASES[kind][fname](np.random.default_rng(seed))
        return run_function(fn, refs[fname], cs)
    finally:
        for k, v in saved.items():
            setattr(mod, k, v)


def main():
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    failures = []
    counts = {}
    uncat_lines = []
    idx = 0
    for kind in ("head", "multi"):
        catalogue = load_catalogue(CATALOGUES[kind])
        if catalogue is None:
            print(f"(catalogue for {kind} not found: ids not checked)")
        files = sorted(glob.glob(os.path.join(HERE, kind, "*.py")))
        counts[kind] = (sum(os.path.basename(f).startswith("b") for f in files),
                        sum(os.path.basename(f).startswith("c") for f in files))
        for path in files:
            idx += 1
            name = f"{kind}/{os.path.basename(path)}"
            problems, ids, mistakes, uncat = parse_header(path, kind, catalogue)
            try:
                mod = load_module(path, idx)
            except Exception as e:  # noqa: BLE001
                failures.append(f"{name}: does not import: {type(e).__name__}: {e}")
                continue
            for p in problems:
                failures.append(f"{name}: header: {p}")
            flagged = {f for f, _ in mistakes}
            is_correct = os.path.basename(path).startswith("c")
            report = []
            for seed_i, fname in enumerate(REFS[kind]):
                iso = check_function(mod, kind, fname, True, 1000 + seed_i)
                whole = check_function(mod, kind, fname, False, 2000 + seed_i)
                if is_correct or fname not in flagged:
                    if iso:
                        failures.append(f"{name}: {fname} should match the reference in isolation "
                                        f"but: {iso[0][0]}: {iso[0][1]} ({len(iso)} cases)")
                    if is_correct and whole:
                        failures.append(f"{name}: {fname} (whole file) differs: {whole[0][0]}: {whole[0][1]}")
                else:
                    if not iso:
                        failures.append(f"{name}: mistake in {fname} not shown by any input (isolated)")
                    report.append(f"    {fname}: differs on {len(iso)} cases, e.g. {iso[0][0]}: {iso[0][1]}"
                                  if iso else f"    {fname}: NO DIFFERENCE")
            if not is_correct:
                cat_funcs = {catalogue.get(d) for d in ids} if catalogue else set()
                for f, text in mistakes:
                    if f not in cat_funcs:
                        uncat_lines.append(f"{name} {f}: {text}")
            if VERBOSE:
                print(f"{name}: {'correct' if is_correct else 'buggy'} {ids} uncatalogued={uncat}")
                for r in report:
                    print(r)
    print(f"head: {counts['head'][0]} buggy + {counts['head'][1]} correct; "
          f"multi: {counts['multi'][0]} buggy + {counts['multi'][1]} correct")
    if VERBOSE:
        print("\nuncatalogued mistakes:")
        for u in uncat_lines:
            print("  " + u)
    if failures:
        print(f"\n{len(failures)} problem(s):")
        for f in failures:
            print("  " + f)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
