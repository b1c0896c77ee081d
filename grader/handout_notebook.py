"""The student template as a Jupyter notebook, for courses that hand out notebooks.

Built from the template ``attention.py`` itself, so the two handouts cannot drift apart:
its docstring becomes the first Markdown cell, its imports one code cell, each function
a code cell of its own under a heading, then the lesson's worked example to try and the
cells that run the grader's self-check on the saved notebook.
"""

from __future__ import annotations

import ast

import nbformat

WORKED_EXAMPLE = """Q = K = np.array([[1., 0.], [0., 1.], [1., 1.]])
V = np.array([[10., 0.], [0., 10.], [5., 5.]])
out, A = attention(Q, K, V)
print(np.round(A, 4))  # the lesson: [[0.4011 0.1978 0.4011] [0.1978 0.4011 0.4011] [0.2483 0.2483 0.5035]]
print(np.round(out, 2))"""

HOW_IT_IS_GRADED = """The grader reads this notebook's code cells top to bottom, as *Restart & Run All* would,
and grades the four functions they define. It runs only imports, definitions and constants:
your own experiments, prints, plots and asserts are left out of grading (the report lists
what it left out, and why), so they can stay. Keep the functions' names and signatures."""

CHECK_YOUR_WORK = """## Check your work

Save the notebook first (the grader reads the file on disk), then run the cell below. It
prints your score and, for each check that fails, what broke and a cell you can paste here
to see it yourself."""


def handout_notebook(template: str, install: str, rubric: str = "rubric.toml") -> str:
    """The notebook for the template source ``template``; ``install`` is the pip
    requirement of the grader, ``rubric`` the public rubric's file name."""
    module = ast.parse(template)
    docstring = ast.get_docstring(module) or ""
    introduction = docstring.split("\n\nCheck your work")[0].strip()
    cells = [nbformat.v4.new_markdown_cell(f"# {introduction}\n\n{HOW_IT_IS_GRADED}")]
    imports = [node for node in module.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    cells.append(nbformat.v4.new_code_cell("\n".join(ast.get_source_segment(template, node) for node in imports)))
    for node in module.body:
        if isinstance(node, ast.FunctionDef):
            arguments = ast.get_source_segment(template, node.args)
            cells.append(nbformat.v4.new_markdown_cell(f"## `{node.name}({arguments})`"))
            cells.append(nbformat.v4.new_code_cell(ast.get_source_segment(template, node)))
    cells.append(nbformat.v4.new_markdown_cell("## Try it on the lesson's worked example"))
    cells.append(nbformat.v4.new_code_cell(WORKED_EXAMPLE))
    cells.append(nbformat.v4.new_markdown_cell(CHECK_YOUR_WORK))
    quoted = install.replace('"', '\\"')
    cells.append(nbformat.v4.new_code_cell(f'!pip install --quiet "{quoted}"\n!grader check attention.ipynb --rubric {rubric}'))
    notebook = nbformat.v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
    )
    # Fixed cell ids: the same template and grader give the same bytes.
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number:02d}"
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"
