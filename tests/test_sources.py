"""Reading submissions (grader.sources): which notebook code runs, what is left out and
why, where each line came from, and the sentences for files that cannot be graded."""

from __future__ import annotations

import ast
import json
import os
import threading
import time

import nbformat
import numpy as np
import pytest

from grader import sources
from grader.sources.notebook import MAX_CELL_BYTES
from grader.errors import UsageError
from grader.sources import Unusable

from grader.sources.selection import UNUSED, bound_names

HEAD = """import numpy as np

def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""


def notebook(*cells: str, language: str = "python") -> bytes:
    """A notebook with one code cell per string ("# md: ..." makes a Markdown cell)."""
    made = nbformat.v4.new_notebook(metadata={"language_info": {"name": language}})
    for text in cells:
        if text.startswith("# md:"):
            made.cells.append(nbformat.v4.new_markdown_cell(text.removeprefix("# md:")))
        else:
            made.cells.append(nbformat.v4.new_code_cell(text))
    return nbformat.writes(made).encode()


def read(*cells: str) -> sources.Source:
    return sources.parse(notebook(*cells), suffix=".ipynb")


def kept(source: sources.Source) -> str:
    return source.code.decode().removeprefix("from __future__ import annotations\n")


def reasons(source: sources.Source) -> dict[str, str]:
    return {piece.code: piece.reason for piece in source.left_out}


@pytest.mark.parametrize(
    "statement",
    [
        "import math",
        "from numpy.typing import NDArray",
        "EPS = 1e-9",
        "NEG = -np.inf",
        "rng = np.random.default_rng(0)",
        "X = rng.normal(size=(3, 2))",
        "SQRT2 = math.sqrt(2)",
        "names = ', '.join(['a', 'b'])",
        "table = {k: v for k, v in zip('ab', range(2))}",
        "attention = make_attention()",  # how this notebook defines a graded function
        "scale = lambda d: softmax(np.ones(d))",  # a lambda's body runs only when called
        "if True:\n    TOL = 1e-6\nelse:\n    TOL = 1e-3",
        "try:\n    from math import prod\nexcept ImportError:\n    prod = None",
        "@functools.lru_cache(maxsize=None)\ndef cached(n):\n    return n",
        "class Head:\n    scale = 2.0\n    def forward(self, x):\n        return softmax(x)",
    ],
)
def test_definitions_imports_and_constants_run(statement):
    prelude = "import functools, math\nrng = np.random.default_rng(1)\ndef make_attention():\n    return rng\n"
    defined = sorted(bound_names(ast.parse(statement).body[0]))
    uses = f"def uses():\n    return {', '.join(defined)}"  # what no function uses is not run (see below)
    source = read(HEAD + prelude, statement, uses)
    assert statement.splitlines()[0] in kept(source), source.left_out
    assert not source.left_out


@pytest.mark.parametrize(
    ("statement", "because"),
    [
        ("print(softmax(np.ones(3)))", "prints"),
        ("softmax(np.ones(3))", "runs your softmax()"),
        ("A = softmax(np.ones((2, 2)))", "runs your softmax()"),
        ("rows = list(map(softmax, [np.ones(2)]))", "runs your softmax()"),
        ("alias = softmax\nB = alias(np.ones(2))", "runs your alias()"),
        ("assert softmax(np.ones(2)).sum() == 1", "an assert"),
        ("name = input('name? ')", "asks for input"),
        ("data = np.load('weights.npy')", "reads or writes a file"),
        ("text = open('notes.txt').read()", "opens a file"),
        ("import matplotlib.pyplot as plt", "does not have"),
        ("from tqdm import tqdm", "does not have"),
        ("for n in range(3):\n    print(n)", "a loop"),
        ("with open('x') as f:\n    pass", "a with block"),
        ("if True:\n    print(1)", "an if statement"),
        ("stamp = time.time()", "from time"),
        ("A", "shows a value"),
        ("del softmax", "deletes names"),
        ("value = undefined_name + 1", "nothing above it defines"),
    ],
)
def test_code_that_tests_shows_or_waits_is_left_out_with_a_reason(statement, because):
    source = read(HEAD + "import time\n", statement)
    first = statement.splitlines()[-1] if statement.startswith("alias") else statement.splitlines()[0]
    assert because in reasons(source)[first]
    assert "def softmax" in kept(source)


def test_a_statement_that_uses_what_was_left_out_is_left_out_too():
    source = read("import numpy as np\nimport matplotlib.pyplot as plt", "fig, ax = plt.subplots()\ncmap = plt.cm.viridis")
    found = reasons(source)
    assert "cell 1, line 2" in found["fig, ax = plt.subplots()"]
    assert "uses plt" in found["cmap = plt.cm.viridis"]


def test_ipython_lines_are_left_out_and_the_cell_keeps_its_line_numbers():
    source = read("%matplotlib inline\n!pip install tqdm\nfiles = !ls\nnp.sum?\n" + HEAD + "listing = files")
    found = reasons(source)
    assert "notebook magic" in found["%matplotlib inline"]
    assert "shell command" in found["!pip install tqdm"] and "shell command" in found["files = !ls"]
    assert "help" in found["np.sum?"]
    assert "cell 1, line 3" in found["listing = files"]  # files came from a shell line
    line = kept(source).splitlines().index("    e = np.exp(x - x.max(axis=axis, keepdims=True))") + 2
    assert source.where(line) == "attention.ipynb, cell 1, line 8"


def test_a_python_cell_is_not_searched_for_magics():
    # Valid Python whose continuation line starts with '%' (modulo) is left as it is.
    source = read(HEAD + "PERIOD = (17\n% 5)", "def period():\n    return PERIOD")
    assert "PERIOD = (17\n% 5)" in kept(source)
    assert not source.left_out


def test_cell_magics_keep_a_python_body_and_leave_out_other_languages():
    source = read("%%time\n" + HEAD, "%%bash\necho hi", "%%writefile helper.sh\ndef causal_mask(n):\n    return None")
    found = reasons(source)
    assert "def softmax" in kept(source)
    assert "code below it is graded" in found["%%time"]
    assert "runs as %%bash" in found["%%bash"]
    assert "cell 3 defines it" in source.why_missing("causal_mask") and "%%writefile" in source.why_missing("causal_mask")


def test_a_cell_with_a_syntax_error_is_left_out_whole_and_named_where_it_defines_a_function():
    source = read(HEAD, "def attention(Q, K, V, mask=None)\n    return Q", "# md: notes", "def causal_mask(n):\n    return n")
    [piece] = source.left_out
    assert (piece.cell, piece.line) == (2, 1) and "syntax error on line 1" in piece.reason
    assert "cell 2 defines it" in source.why_missing("attention")
    assert source.why_missing("causal_mask") == ""  # defined in cell 4, which ran
    assert source.cells == (1, 4)


def test_cells_run_top_to_bottom_so_the_last_definition_counts():
    source = read(HEAD, "def softmax(x, axis=-1):\n    return x")
    namespace: dict = {}
    exec(compile(source.code, "attention.py", "exec"), namespace)
    assert namespace["softmax"](1.5) == 1.5
    assert any("top to bottom" in note for note in source.notes)


def test_annotations_naming_missing_packages_do_not_stop_a_definition():
    source = read("import numpy as np\nimport torch", "def softmax(x: torch.Tensor, axis: int = -1) -> torch.Tensor:\n    return x")
    namespace: dict = {}
    exec(compile(source.code, "attention.py", "exec"), namespace)
    assert namespace["softmax"](2) == 2


def test_statements_sharing_a_line_are_split():
    source = read("import numpy as np; print(np.pi); EPS = 1e-9", "def eps():\n    return EPS")
    assert kept(source).splitlines()[:2] == ["import numpy as np", "EPS = 1e-9"]
    assert [origin for origin in source.lines[1:3]] == [(1, 1), (1, 1)]


def test_content_decides_the_kind_whatever_the_name():
    as_py = sources.parse(notebook(HEAD), suffix=".py")
    assert as_py.kind == "notebook" and "holds a Jupyter notebook" in as_py.notes[-1]
    as_ipynb = sources.parse(HEAD.encode(), suffix=".ipynb")
    assert as_ipynb.kind == "python" and as_ipynb.code == HEAD.encode()
    assert "holds Python source" in as_ipynb.notes[-1]
    # Feedback names the file the student handed in, whatever it holds.
    assert as_ipynb.where(3) == "attention.ipynb, line 3" and as_py.where(2).startswith("attention.py, cell 1")
    plain = sources.parse(HEAD.encode())
    assert plain.summary() is None and plain.where(3) == "attention.py, line 3"


def test_nbformat_3_is_converted():
    old = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 1, "source": "Attention", "metadata": {}},
        {"cell_type": "code", "input": HEAD, "language": "python", "outputs": [], "metadata": {}},
    ], "metadata": {}}]}
    source = sources.parse(json.dumps(old).encode(), suffix=".ipynb")
    assert "def softmax" in kept(source) and source.cells == (2,)


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        (notebook(HEAD)[:200], "JSON is broken"),
        (notebook("# md: just notes"), "has no code cells"),
        (notebook("x <- 1", language="R"), "notebook in R"),
        (json.dumps({"nbformat": 7, "nbformat_minor": 0, "cells": [], "metadata": {}}).encode(), "nbformat 1 to 4"),
        (json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": "none", "metadata": {}}).encode(), "not a readable notebook"),
        (b"{" * 100_000, "JSON is broken"),
        (b"\xff\xfe" + notebook(HEAD), "UTF-8"),
    ],
)
def test_a_notebook_that_cannot_be_graded_gets_one_sentence(content, sentence):
    with pytest.raises(Unusable, match=sentence) as raised:
        sources.parse(content, suffix=".ipynb")
    assert "\n" not in str(raised.value)


def test_outputs_are_never_read():
    made = nbformat.reads(notebook(HEAD).decode(), as_version=4)
    made.cells[0].outputs = [nbformat.v4.new_output("stream", text="x" * (8 * 1024 * 1024))]
    source = sources.parse(nbformat.writes(made).encode(), suffix=".ipynb")
    assert len(source.code) < 1000


def test_a_long_list_of_left_out_lines_is_summed_up_in_the_report():
    source = read(HEAD + "\n".join(f"print({n})" for n in range(sources.MAX_LEFT_OUT + 50)))
    summary = source.summary()
    assert len(summary["left_out"]) == sources.MAX_LEFT_OUT
    assert summary["left_out_count"] == sources.MAX_LEFT_OUT + 50


def test_a_notebook_that_defines_its_functions_through_an_object_keeps_them():
    source = read(
        "import numpy as np\nclass Head:\n    def __init__(self, axis):\n        self.axis = axis\n"
        "    def softmax(self, x, axis=-1):\n        e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
        "        return e / e.sum(axis=axis, keepdims=True)",
        "head = Head(axis=-1)\nsoftmax = head.softmax\ndemo = Head(axis=softmax(np.ones(2)))",
    )
    assert "head = Head(axis=-1)\nsoftmax = head.softmax" in kept(source)
    assert "runs your softmax()" in reasons(source)["demo = Head(axis=softmax(np.ones(2)))"]


def test_names_only_left_out_code_defines_are_explained():
    source = read("import numpy as np\nimport scipy.special", "def softmax(x, axis=-1):\n    return scipy.special.softmax(x)")
    assert "cell 1, line 2, which the grader left out: imports scipy.special" in source.why_undefined("scipy")
    assert source.why_undefined("np") == "" and source.why_missing("softmax") == ""
    plain = sources.parse(HEAD.encode())
    assert plain.why_undefined("scipy") == ""


def test_values_no_function_uses_are_not_computed():
    # Demo data whose shapes do not match would stop the import; nothing graded uses it.
    source = read(HEAD + "EPS = 1e-9\nQ = np.ones((3, 4))\nK = np.ones((5, 4))\nscores = Q @ K",
                  "def stable(x):\n    return softmax(x) + EPS")
    found = reasons(source)
    assert found["scores = Q @ K"] == found["Q = np.ones((3, 4))"] == UNUSED
    assert "EPS = 1e-9" in kept(source)
    namespace: dict = {}
    exec(compile(source.code, "attention.py", "exec"), namespace)
    assert [piece.line for piece in source.left_out] == sorted(piece.line for piece in source.left_out)


def test_a_main_guard_block_runs_as_in_a_notebook():
    # In a notebook __name__ is "__main__": the block's definitions exist, its demo is left out.
    source = read(HEAD, "if __name__ == '__main__':\n    def causal_mask(n):\n        return n\n    print(causal_mask(3))")
    assert "def causal_mask(n):\n    return n" in kept(source)
    assert "prints" in reasons(source)["print(causal_mask(3))"]
    line = kept(source).splitlines().index("    return n") + 2
    assert source.where(line) == "attention.ipynb, cell 2, line 3"


def test_a_writefile_cell_is_read_where_the_notebook_imports_it():
    source = read("%%writefile attention_impl.py\n" + HEAD, "from attention_impl import *\nimport attention_impl")
    assert "def softmax" in kept(source) and "attention_impl" not in kept(source)
    found = reasons(source)
    assert "reads its code as part of the notebook" in found["%%writefile attention_impl.py"]
    assert "use its names directly" in found["import attention_impl"]


def test_an_annotation_is_never_evaluated():
    source = read("import numpy as np\nimport torch", "D_MODEL: torch.Size = 4\ndef causal_mask(n=D_MODEL):\n    return n")
    assert "D_MODEL: torch.Size = 4" in kept(source) and "def causal_mask" in kept(source)


@pytest.mark.parametrize(
    "cells",
    [
        # Black-formatted code in a cell with a magic: lines in brackets or strings that start with % or ! stay.
        ("%pip install -q numpy\n" + HEAD + "def check(a, b):\n    if (\n        a\n        != b\n    ):\n"
         "        raise ValueError('%d != %d'\n                         % (a, b))\n    return '''\n!important\nWhat?'''",),
        ("import numpy as np, matplotlib.pyplot as plt", HEAD.replace("import numpy as np\n", "")),
        ("from numpy import *\nimport matplotlib.pyplot as plt", HEAD, "cmap = plt.cm.viridis"),
        ("try:\n    import numpy as np\nexcept ImportError:\n    raise SystemExit('needs numpy')", HEAD),
        ("import numpy as np\ntry:\n    from scipy.special import softmax\nexcept ImportError:\n"
         + "\n".join("    " + line for line in HEAD.splitlines()[1:]),),
        ("import numpy as np; \\\nprint(np.__version__)", HEAD),
        ("import functools\n" + HEAD, "@(\n    functools.lru_cache(None)\n)\ndef causal_mask(n):\n    return n"),
        ("\n".join("    " + line for line in HEAD.splitlines()),),  # pasted with an indent
        ("\n".join((">>> " if not line.startswith(" ") else "... ") + line for line in HEAD.splitlines()),),
        ("\ufeff" + HEAD,),
        ("import numpy as np\nfrom numba import njit", "class Head:\n    @staticmethod\n    def softmax(x, axis=-1):\n        return x", HEAD),
    ],
    ids=["black", "two-imports", "star-import", "try-numpy", "try-scipy", "backslash", "paren-decorator",
         "indented", "prompts", "bom", "method-decorator-ok"],
)
def test_a_correct_softmax_survives_the_shapes_notebooks_come_in(cells):
    source = read(*cells)
    namespace: dict = {}
    exec(compile(source.code, "attention.py", "exec"), namespace)
    assert namespace["softmax"](np.array([0.0, 0.0])).tolist() == [0.5, 0.5], source.code.decode()


def test_code_that_would_fail_when_defined_is_left_out_with_its_definition():
    source = read("import numpy as np\nfrom numba import njit\nEPS = np.float64(1e-9)", HEAD,
                  "class Jit:\n    @njit\n    def f(self, x, eps=EPS):\n        return x")
    assert "uses njit" in reasons(source)["class Jit:"]
    exec(compile(source.code, "attention.py", "exec"), {})


@pytest.mark.parametrize(
    "content",
    [
        b'{"cells": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        json.dumps({"nbformat": 4.0, "nbformat_minor": "4", "metadata": {}, "cells": []}).encode(),
        json.dumps({"nbformat": 1, "cells": [{"cell_type": "markdown", "source": "x"}]}).encode(),
        json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "source": ["x = 1", 2], "metadata": {}, "outputs": [], "execution_count": None}]}).encode(),
        notebook(HEAD).replace(b"import numpy", b"import \\ud800numpy"),
        notebook("x <- 1").replace(b'"python"', b'"\\ud800"'),
    ],
    ids=["nested", "odd-versions", "nbformat-1", "source-not-text", "surrogate", "surrogate-language"],
)
def test_malformed_notebooks_are_unusable_never_a_crash(content):
    with pytest.raises(Unusable) as raised:
        sources.parse(content, suffix=".ipynb")
    str(raised.value).encode("utf-8")  # every report format can write it


def test_reading_is_bounded_whatever_the_cell():
    started = time.monotonic()
    with pytest.raises(Unusable, match="more than"):
        read("print(1)\n" * 200_000)  # over the code limit: refused before any parsing
    read("%matplotlib inline\na" + " " * 100_000 + "b")  # a line no pattern backtracks on
    assert time.monotonic() - started < 5


def test_the_largest_notebook_the_limits_allow_reads_in_seconds():
    block = ("x = [" + "1," * 100 + "]\n") * 40 + "%time x\n"
    cell = block * (MAX_CELL_BYTES // len(block))  # the largest cell that is parsed
    started = time.monotonic()
    [piece] = read(cell, "def use():\n    return 1").left_out
    assert "pieces of syntax" in piece.reason
    # Larger ones, up to the notebook's code limit, are left out unparsed.
    pieces = read(*[block * (MAX_CELL_BYTES // len(block) + 1)] * 4, "def use():\n    return 1").left_out
    assert len(pieces) == 4 and all("too large to grade" in piece.reason for piece in pieces)
    small = "".join(f"VALUE_{n} = {n}\n%time VALUE_{n}\n" for n in range(2000))
    assert len(read(small, "def use():\n    return VALUE_1").left_out) > 2000
    assert time.monotonic() - started < 20


def test_a_cell_with_only_a_byte_order_mark_or_prompts_is_empty():
    source = read(HEAD, "\ufeff", ">>>", ">>> \n...")
    assert "def softmax" in kept(source) and source.cells == (1,)


def test_only_a_real_main_guard_is_run_as_a_notebook_runs_it():
    source = read(HEAD, "if __name__ != '__main__':\n    def softmax(x, axis=-1):\n        return x")
    assert "not the same in a notebook" in reasons(source)["if __name__ != '__main__':"]
    assert "return x" not in kept(source)


def test_an_error_no_rule_foresaw_is_one_sentence_that_says_where(monkeypatch):
    def broken(*args, **kwargs):
        raise SystemError("error return without exception set")

    monkeypatch.setattr("grader.sources.python.parse", broken)
    with pytest.raises(sources.Unusable) as raised:
        sources.parse(b"x = 1\n")
    message = str(raised.value)
    assert message.startswith("attention.py could not be read (SystemError: error return without exception set at ")
    assert message.endswith("please tell your instructor") and "\n" not in message


def test_threads_never_build_syntax_trees_at_once(monkeypatch):
    """A batch's jobs read submissions in threads. Python 3.11 keeps ast.parse's recursion
    count per interpreter, so two threads inside it at once now and then fail with
    "SystemError: AST constructor recursion depth mismatch" (a flaky CI run did, reading a
    notebook): reading is one thread at a time, and the same bytes read the same."""
    inside, overlaps = [0], []
    real_parse = ast.parse

    def watched(*args, **kwargs):
        inside[0] += 1
        overlaps.append(inside[0] > 1)
        time.sleep(0.001)  # room for another thread to come in, if it may
        try:
            return real_parse(*args, **kwargs)
        finally:
            inside[0] -= 1

    content = notebook(HEAD, "out = softmax(np.zeros(3))")
    alone = sources.parse(content, suffix=".ipynb")
    monkeypatch.setattr(ast, "parse", watched)
    results = []
    threads = [
        threading.Thread(target=lambda: results.extend(sources.parse(content, suffix=".ipynb") for _ in range(5)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps and not any(overlaps)
    assert results == [alone] * 20


def _folder_with(tmp_path):
    folder = tmp_path / "class"
    (folder / "ada").mkdir(parents=True)
    (folder / "ada" / "attention.py").write_text(HEAD)
    (folder / "bea.py").write_text(HEAD)
    return folder


def test_a_regular_file_is_read_within_its_folder(tmp_path):
    folder = _folder_with(tmp_path)
    assert sources.read_bytes(folder / "ada" / "attention.py", within=folder) == HEAD.encode()
    assert sources.read_bytes(folder / "bea.py", within=folder) == HEAD.encode()


@pytest.mark.parametrize(
    "make, sentence",
    [
        (lambda folder: (folder / "x.py").symlink_to("bea.py"), "x.py is a symbolic link: links are not graded; submit the file itself"),
        (lambda folder: (folder / "x.py").symlink_to("/dev/zero"), "x.py is a symbolic link"),
        (lambda folder: (folder / "x.py").symlink_to("ada", target_is_directory=True), "submit the folder itself"),
        (lambda folder: os.mkfifo(folder / "x.py"), "x.py is not a regular file but a named pipe"),
        (lambda folder: (folder / "x.py").mkdir(), "x.py is not a regular file but a folder"),
        (lambda folder: (folder / "x.py").write_bytes(b"#" * (sources.MAX_PYTHON_BYTES + 1)), "may be at most 1048576 bytes"),
    ],
    ids=["link", "link-to-device", "link-to-folder", "named-pipe", "folder", "too-large"],
)
def test_anything_else_is_refused_in_one_sentence_without_opening_it(tmp_path, make, sentence):
    folder = _folder_with(tmp_path)
    make(folder)
    with pytest.raises(UsageError) as refused:
        sources.read_bytes(folder / "x.py", within=folder)
    assert sentence in str(refused.value) and "\n" not in str(refused.value)


def test_no_link_is_followed_anywhere_below_the_folder(tmp_path):
    folder = _folder_with(tmp_path)
    (folder / "cy").symlink_to(folder / "ada", target_is_directory=True)
    with pytest.raises(UsageError, match="cy is a symbolic link"):
        sources.read_bytes(folder / "cy" / "attention.py", within=folder)


def test_a_path_given_by_hand_follows_a_link_unless_told_not_to(tmp_path):
    folder = _folder_with(tmp_path)
    (tmp_path / "mine.py").symlink_to(folder / "bea.py")
    assert sources.read_bytes(tmp_path / "mine.py") == HEAD.encode()
    with pytest.raises(UsageError, match="is a symbolic link"):
        sources.read_bytes(tmp_path / "mine.py", follow_links=False)
    os.mkfifo(tmp_path / "pipe.py")
    with pytest.raises(UsageError, match="named pipe"):
        sources.read_bytes(tmp_path / "pipe.py")  # never blocks, even where links are followed
