"""A kernel's history of any length or cell size grades the latest definitions: the cells
that can no longer matter are left behind (grader.kernel.history), and what is left
grades exactly as the whole history would."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from conftest import REFERENCE
from grader import assignments, sources
from grader.kernel.history import live, notebook
from grader.sources.notebook import kernel_history

LESSON = REFERENCE.read_text(encoding="utf-8")


def _kept(cells: list[str]) -> list[int]:
    return [number for number, _ in live(cells)]


def test_an_old_definition_is_left_behind_once_redefined():
    cells = ["import numpy as np", "def softmax(x):\n    return x", "print(softmax(1))", "def softmax(x):\n    return 2 * x"]
    assert _kept(cells) == [1, 4]


def test_a_definition_something_read_before_it_was_redefined_stays():
    cells = ["def f():\n    return 1", "g = f", "def f():\n    return 2"]
    assert _kept(cells) == [1, 2, 3]
    cells = ["def f():\n    return 1", "def g(h=f):\n    return h()", "def f():\n    return 2"]
    assert _kept(cells) == [1, 2, 3]


def test_a_change_to_what_a_cell_bound_keeps_both_cells():
    cells = ["import numpy as np", "W = np.zeros(3)", "W[0] = 1.0", "print(W)", "def f():\n    return W"]
    assert _kept(cells) == [1, 2, 3, 5]


def test_what_may_read_anything_keeps_everything_before_it():
    cells = ["def f():\n    return 1", "def f():\n    return 2", "g = eval('f')", "def f():\n    return 3"]
    assert _kept(cells) == [2, 3, 4]


def test_imports_magics_and_cells_that_do_not_parse():
    cells = [
        "from numpy import *", "%matplotlib inline\nimport numpy as np", "from numpy import *",
        "%%writefile helpers.py\ndef h():\n    return 1", "%%time\nx = 1", "!pip install numpy",
        "def softmax(x:\n    pass", "def softmax(x):\n    return x",
    ]
    assert _kept(cells) == [2, 3, 4, 5, 8]


def test_a_binding_that_may_not_happen_keeps_the_one_before():
    for maybe in ("if False:\n    T = 2.0", "T: float", "try:\n    import torch\n    T = 3.0\nexcept ImportError:\n    pass"):
        assert _kept(["T = 1.0", "def f():\n    return T", maybe]) == [1, 2, 3], maybe


def test_an_indented_or_prompted_cell_binds_what_ipython_runs():
    cells = ["def f():\n    return 1", "    def f():\n        return 2", ">>> def g():\n...     return 3"]
    assert _kept(cells) == [2, 3]


# Cells a student might run, in any order and any number of times.
POOL = [
    "import numpy as np",
    "import math",
    LESSON,
    "def softmax(x, axis=-1):\n    return np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)",
    "def softmax(x, axis=-1):\n    return x",
    "def attention(Q, K, V, mask=None):\n    A = softmax(Q @ K.T)\n    return A @ V, A",
    "SCALE = 2.0",
    "SCALE = SCALE * 2",
    "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool)) if SCALE > 0 else None",
    "old_softmax = softmax",
    "def softmax(x, axis=-1):\n    return old_softmax(x, axis) * 1.0",
    "print(softmax(np.ones(3)))",
    "assert causal_mask(2).shape == (2, 2)",
    "%timeit softmax(np.ones(3))",
    "del SCALE",
    "def self_attention(X, Wq, Wk, Wv, mask=None):\n    return attention(X @ Wq, X @ Wk, X @ Wv, mask)",
    # As an outside attacker found them: cells IPython reads after removing an indent or
    # >>> prompts, and bindings that may not happen (under an if, a try, or an annotation alone).
    "    def softmax(x, axis=-1):\n        return x * 0 + 1.0 / x.shape[axis]",
    ">>> def causal_mask(n):\n...     return np.ones((n, n), dtype=bool)",
    "if False:\n    SCALE = 3.0",
    "SCALE: float",
    "try:\n    import torch\n    SCALE = 5.0\nexcept ImportError:\n    pass",
]
FUNCTIONS = ("softmax", "attention", "self_attention", "causal_mask")


def _behaviour(cells: list[tuple[int, str]]) -> object:
    """What the module the grader reads from ``cells`` does: each lesson function's answer
    to one call (or the error it raises), or the sentence that refuses the notebook."""
    try:
        source = sources.parse(kernel_history(cells), suffix=".ipynb", assignment=assignments.get())
    except sources.Unusable as error:
        return str(error)
    namespace: dict = {}
    try:
        exec(compile(source.code, "attention.py", "exec"), namespace)
    except Exception as error:
        return f"import: {type(error).__name__}"
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(4, 4))
    calls = {"softmax": (x,), "attention": (x, x, x), "self_attention": (x, w, w, w), "causal_mask": (3,)}
    found = {}
    for name in FUNCTIONS:
        try:
            answer = namespace[name](*calls[name])
            found[name] = np.round(np.asarray(answer[0] if isinstance(answer, tuple) else answer, dtype=float), 9).tolist()
        except Exception as error:
            found[name] = type(error).__name__
    return found


def _runs_in_a_kernel(cells: list[str]) -> bool:
    """Whether every cell runs without an error, as IPython runs it (its magics as calls
    that do nothing here). A cell that fails in the kernel binds what the reader cannot
    know, and the whole history then grades by the reader's own rules, not the kernel's."""
    from IPython.core.inputtransformer2 import TransformerManager

    class Shell:
        def run_line_magic(self, *args):
            return None

        def run_cell_magic(self, *args):
            return None

        def system(self, *args):
            return None

    namespace = {"get_ipython": lambda: Shell()}
    for cell in cells:
        try:
            exec(compile(TransformerManager().transform_cell(cell), "<cell>", "exec"), namespace)
        except Exception:
            return False
    return True


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=14))
def test_the_live_cells_grade_as_the_whole_history_would(cells):
    assume(_runs_in_a_kernel(cells))
    assert _behaviour(live(cells)) == _behaviour(list(enumerate(cells, start=1)))


def test_a_history_of_thousands_of_runs_and_a_cell_of_data_grades_the_latest_definitions():
    cells = ["import numpy as np", "def softmax(x, axis=-1):\n    return x"]
    cells += ["softmax(np.ones(3))", "%timeit softmax(np.ones(3))", "print(1)", "def softmax(x, axis=-1):\n    return x"] * 2000
    cells += ["data = " + repr(list(range(250_000)))]  # over 1 MiB in one cell
    cells += [LESSON, "softmax(data)"]
    source = sources.parse(notebook(cells), suffix=".ipynb", assignment=assignments.get())
    assert source.cells == (len(cells) - 1,)  # the lesson's cell, numbered as the kernel numbered it
    assert _behaviour(live(cells)) == _behaviour([(1, LESSON)])


def test_a_history_of_ten_thousand_live_cells_grades_its_latest_definitions():
    """No count limit: a long session that binds a new name in each of 10,000 cells (all of
    them live: each binds something no later cell binds again) is graded, as %grade grades it,
    on its latest definitions (a notebook file may hold at most MAX_CELLS cells)."""
    from grader.kernel.session import Session
    from grader.sources.notebook import MAX_CELLS

    cells = [f"step_{index} = {index}" for index in range(10_000)] + [LESSON]
    assert len(live(cells)) == len(cells) > MAX_CELLS
    session = Session(warn=lambda message: None)
    try:
        report = session.grade(cells, function=None, rubric_path=None, assignment=None)
    finally:
        session.close()
    assert report.status == "graded" and all(check.status == "passed" for check in report.checks), report.error
