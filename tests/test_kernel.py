"""`%load_ext grader` and `%grade` in a real IPython kernel (ipykernel, driven by
jupyter_client as Jupyter drives it): the functions as the kernel has them, graded in the
grader's sandbox, with the report shown inline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import REFERENCE, TESTS, VARIANTS

from grader.cli import cli
from grader.report import from_json

jupyter_client = pytest.importorskip("jupyter_client")

LESSON = REFERENCE.read_text(encoding="utf-8")
NO_SCALE = (VARIANTS / "missing_scale.py").read_text(encoding="utf-8")


class Kernel:
    """One IPython kernel: run a cell, get what it showed."""

    def __init__(self, folder: Path) -> None:
        from jupyter_client.manager import KernelManager

        # IPC sockets (no TCP port, no "unencrypted" warning), named by an absolute path: the
        # kernel runs in its own folder.
        environment = {**os.environ, "IPYTHONDIR": str(folder / "ipython")}
        self.manager = KernelManager(kernel_name="python3", transport="ipc", ip=str(folder / "kernel-ipc"))
        self.manager.start_kernel(cwd=str(folder), env=environment)
        self.client = self.manager.client()
        self.client.start_channels()
        try:
            self.client.wait_for_ready(timeout=60)
        except RuntimeError:
            self.close()
            raise

    def run(self, code: str) -> dict[str, Any]:
        """The cell's displays (their data), streams and error, as a front-end receives them."""
        shown: dict[str, Any] = {"displays": [], "stdout": "", "stderr": "", "error": None}

        def hook(message: dict[str, Any]) -> None:
            kind, content = message["msg_type"], message["content"]
            if kind in ("display_data", "execute_result"):
                shown["displays"].append(content["data"])
            elif kind == "stream":
                shown[content["name"]] += content["text"]
            elif kind == "error":
                shown["error"] = f"{content['ename']}: {content['evalue']}"

        self.client.execute_interactive(code, output_hook=hook, timeout=600)
        return shown

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[Kernel]:
    running = Kernel(tmp_path_factory.mktemp("kernel"))
    try:
        assert running.run("%load_ext grader")["error"] is None
        yield running
    finally:
        running.close()


def _report(shown: dict[str, Any]) -> tuple[str, str]:
    assert shown["error"] is None, shown
    (data,) = shown["displays"]
    return data["text/html"], data["text/plain"]


def _points(text: str) -> str:
    return text.split("\n", 1)[0].split(": ", 1)[1]


def test_the_lessons_code_gets_full_marks_inline(kernel):
    kernel.run(LESSON)
    html, text = _report(kernel.run("%grade"))
    assert _points(text).startswith("100/100 points")
    assert 'class="attention-grader-report"' in html and "<svg" in html  # the heatmaps
    assert "checks passed</summary>" in html and "Checks that failed" not in html


def test_a_later_wrong_definition_is_what_gets_graded(kernel, tmp_path):
    kernel.run(LESSON)
    kernel.run(NO_SCALE)  # redefines all four; attention no longer divides by sqrt(d_k)
    html, text = _report(kernel.run(f"%grade --json {tmp_path / 'r.json'}"))
    assert not _points(text).startswith("100/100")
    assert "Checks that failed" in html and "attention.scaling" in html
    # A repro is a cell to paste, as for a saved notebook.
    assert "Paste into a new cell" in html
    report = from_json((tmp_path / "r.json").read_text())
    assert report is not None and "missing_scale" in [diagnosis["id"] for diagnosis in report.diagnoses]
    # The JSON report is the one `grader check --json` writes, field for field.
    (tmp_path / "attention.py").write_text(NO_SCALE, encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", str(tmp_path / "attention.py"), "--json", str(tmp_path / "c.json")])
    assert result.exit_code == 0, result.output
    checked = json.loads((tmp_path / "c.json").read_text())
    graded = json.loads((tmp_path / "r.json").read_text())
    assert graded.keys() == checked.keys() and graded["score"] == checked["score"]
    kernel.run(LESSON)


def test_grade_one_function_runs_only_its_checks(kernel):
    kernel.run(LESSON)
    _, text = _report(kernel.run("%grade softmax"))
    assert _points(text).startswith("22/22 points")
    listed = [line.split()[1] for line in text.splitlines() if line.strip().startswith(("PASS", "FAIL"))]
    assert listed and all(check.startswith("softmax.") for check in listed)
    assert "no check of this rubric tests 'sofmax'" in kernel.run("%grade sofmax")["stderr"]


def test_ipython_lines_and_a_syntax_error_before_the_functions_do_not_stop_grading(kernel):
    kernel.run("%matplotlib inline\n!echo hello\nfiles = !ls")
    kernel.run("def broken(:\n    pass")  # a SyntaxError the kernel showed the student
    kernel.run(LESSON)
    html, text = _report(kernel.run("%grade"))
    assert _points(text).startswith("100/100 points")
    assert "the order it ran" in html  # how the code was read: the kernel's order, not the notebook's


@pytest.mark.bubblewrap
def test_a_function_that_writes_outside_the_sandbox_reaches_nothing_of_the_kernel(kernel, tmp_path):
    marker = tmp_path / f"written-{uuid.uuid4().hex}"
    tmp_marker = Path("/tmp") / f"written-{uuid.uuid4().hex}"
    kernel.run(LESSON)
    kernel.run(
        "_lesson_softmax = softmax\n"
        "def softmax(x, axis=-1):\n"
        f"    for target in ({str(marker)!r}, {str(tmp_marker)!r}):\n"
        "        try:\n"
        "            open(target, 'w').write('escaped')\n"
        "        except OSError:\n"
        "            pass\n"
        "    return _lesson_softmax(x, axis)\n"
    )
    _report(kernel.run("%grade softmax"))
    assert not marker.exists() and not tmp_marker.exists()
    kernel.run(LESSON)


def test_the_notebook_handouts_last_cell_grades_it_in_its_kernel(kernel, tmp_path):
    """`export-student --notebook` ends with `%load_ext grader` and `%grade`: run as handed
    out (the install line aside), then with the lesson's functions in their cells."""
    import ast

    import nbformat

    out = tmp_path / "handout"
    result = CliRunner().invoke(cli, ["export-student", str(out), "--install", "attention-grader", "--notebook"])
    assert result.exit_code == 0, result.output
    cells = [cell.source for cell in nbformat.read(out / "attention.ipynb", as_version=4).cells if cell.cell_type == "code"]
    *work, last = cells
    grade = "\n".join(line for line in last.split("\n") if not line.startswith("%pip")).replace(
        "rubric.toml", str(out / "rubric.toml")
    )
    for cell in work:
        kernel.run(cell)
    _, text = _report(kernel.run(grade))
    assert _points(text).startswith("0/")  # every function still to write
    lesson = {node.name: ast.unparse(node) for node in ast.parse(LESSON).body if isinstance(node, ast.FunctionDef)}
    for cell in work:
        kernel.run(lesson[cell.split("(")[0].removeprefix("def ")] if cell.startswith("def ") else cell)
    _, text = _report(kernel.run(grade))
    assert _points(text).startswith("100/100 points")


def test_an_interrupted_grade_leaves_the_next_one_right(kernel):
    """A student who interrupts the kernel mid-`%grade` (Jupyter's stop button) gets the
    next `%grade` right: the interrupted run's answer never answers it."""
    kernel.run(LESSON + "\nimport time\n_fast = softmax\ndef softmax(x, axis=-1):\n    time.sleep(0.2)\n    return _fast(x, axis)\n")
    request = kernel.client.execute("%grade")
    time.sleep(3)
    kernel.manager.interrupt_kernel()
    while True:
        reply = kernel.client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == request:
            break
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    kernel.run(LESSON)
    _, text = _report(kernel.run("%grade"))
    assert _points(text).startswith("100/100 points")


def test_the_other_routes_never_import_ipython():
    """`grader check` and `grader grade` need no notebook extra: IPython is imported by `%load_ext grader` only."""
    import subprocess
    import sys

    code = "import sys, grader.cli, grader.engine.grading, grader.batch; sys.exit('IPython' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_grade_after_thousands_of_runs_and_a_cell_over_a_mebibyte_grades_the_latest_definitions(kernel):
    # 6,000 runs, as a long afternoon leaves them (put in the history at once: running
    # them one by one would take the test minutes), then a cell of data over 1 MiB.
    kernel.run(
        "_history = get_ipython().history_manager.input_hist_raw\n"
        "_history.extend(['print(softmax(np.ones(3)))', '%timeit softmax(np.ones(3))', 'x = 1'] * 2000)"
    )
    assert kernel.run("data = " + repr(list(range(250_000))))["error"] is None
    kernel.run(LESSON)
    html, text = _report(kernel.run("%grade"))
    assert _points(text).startswith("100/100 points"), text


def test_grade_in_a_kernel_that_has_run_no_cell_says_so(tmp_path):
    """A script run with `ipython file.ipy` keeps no input history: %grade says there is
    nothing to grade, rather than giving 0 to an 'empty notebook' the student never wrote."""
    (tmp_path / "attention.py").write_text(LESSON, encoding="utf-8")
    (tmp_path / "script.ipy").write_text("from attention import *\n%load_ext grader\n%grade\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "IPython", "--no-banner", "script.ipy"], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}, timeout=300,
    )
    said = done.stdout + done.stderr
    assert "it has run none yet" in said and "no code cells" not in said, said
