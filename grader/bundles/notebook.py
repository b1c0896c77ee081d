"""The student template as a Jupyter notebook, for courses that hand out notebooks.

Built from the assignment's template (``attention.py``) itself, so the two handouts
cannot drift apart: its docstring becomes the first Markdown cell, its imports one code
cell, each function a code cell of its own under a heading, then the assignment's worked
example to try and the cells that run the grader's self-check in the kernel (``%grade``).
"""

from __future__ import annotations

import ast

import nbformat

from grader.assignments import Assignment

NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
HOW_IT_IS_GRADED = """The grader reads this notebook's code cells top to bottom, as *Restart & Run All* would,
and grades the {count} functions they define. It runs only imports, definitions and constants:
your own experiments, prints, plots and asserts are left out of grading (the report lists
what it left out, and why), so they can stay. Keep the functions' names and signatures."""

CHECK_YOUR_WORK = """## Check your work

Run your cells, then the cell below: `%grade` grades the functions as this notebook's kernel
has them (the latest version of each you ran), in the grader's sandbox, and shows your score
and, for each check that fails, what broke and a cell you can paste here to see it yourself.
Run `%grade` again after each change; `%grade {first}` checks one function only.
`rubric.toml` comes with this notebook; where it is not beside it (a notebook opened in
Colab), upload it, or run `%grade --assignment {assignment}` instead: the grader's own rubric.{wheel}"""


def handout_notebook(template: str, install: str, assignment: Assignment, rubric: str = "rubric.toml") -> str:
    """The notebook for the template source ``template`` of ``assignment``; ``install`` is
    the pip requirement of the grader, ``rubric`` the public rubric's file name."""
    module = ast.parse(template)
    docstring = ast.get_docstring(module) or ""
    introduction = docstring.split("\n\nCheck your work")[0].strip() or assignment.title
    count = len(assignment.functions)
    how = HOW_IT_IS_GRADED.format(count=NUMBERS[count] if count < len(NUMBERS) else count)
    cells = [nbformat.v4.new_markdown_cell(f"# {introduction}\n\n{how}")]
    imports = [node for node in module.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    cells.append(nbformat.v4.new_code_cell("\n".join(ast.get_source_segment(template, node) for node in imports)))
    for node in module.body:
        if isinstance(node, ast.FunctionDef):
            # As the handout quotes it (eps=1e-5, where the code's default reads back as 1e-05).
            known = assignment.by_name.get(node.name)
            signature = known.signature if known is not None else f"{node.name}({ast.unparse(node.args)})"
            cells.append(nbformat.v4.new_markdown_cell(f"## `{signature}`"))
            cells.append(nbformat.v4.new_code_cell(ast.get_source_segment(template, node)))
    heading, example = assignment.worked_example
    cells.append(nbformat.v4.new_markdown_cell(f"## {heading}"))
    cells.append(nbformat.v4.new_code_cell(example))
    cells.append(nbformat.v4.new_markdown_cell(
        CHECK_YOUR_WORK.format(first=assignment.functions[0].name, assignment=assignment.name, wheel=_wheel_note(install))
    ))
    quoted = install.replace('"', '\\"')
    cells.append(nbformat.v4.new_code_cell(f'%pip install --quiet "{quoted}"\n%load_ext grader\n%grade --rubric {rubric}'))
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


def _wheel_note(install: str) -> str:
    """What the check cell needs beside the notebook when the grader is a wheel file."""
    if not install.endswith(".whl"):
        return ""
    return (
        f"\nThe cell below installs the grader from `{install.removeprefix('./')}`, which comes with this notebook: "
        "in Colab, upload it too (the Files panel) before you run the cell."
    )
