"""``grader new-assignment NAME DIR --reference FILE``: a working assignment folder to start from.

From the reference file's public top-level functions it writes ``DIR/NAME/``: the
``Assignment`` (``__init__.py``), the reference (``solution.py``), the template students
start from (each function raises ``NotImplementedError``), the reference wrappers
(``calls.py``), one first property check per function (``checks/<function>.py``: it
matches the reference on drawn arguments), a rubric naming them, an empty list of known
mistakes, and a handout stub. Each required argument is drawn as a float matrix, or as a
number where the reference annotates it ``int`` (1 to the matrices' smaller side),
``float`` or ``bool``. ``grader validate DIR/NAME`` passes on it as written when the
reference accepts such arguments, and lists the ``TODO`` lines left to write (the example,
the quick calls, the handout); the TA then writes the real checks, strategies and mistakes.
"""

from __future__ import annotations

import ast
import keyword
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError


# What a required argument annotated so is drawn as (every other one is a float matrix),
# and the value the skeleton's quick calls and probes give it.
NUMBERS = {
    "int": ("draw(sides(min(rows, cols)))", "1"),
    "float": ("draw(st.floats(0.5, 4.0))", "0.5"),
    "bool": ("draw(st.booleans())", "True"),
}
MATRIX = ("source.floats((rows, cols))", "EXAMPLE")


@dataclass(frozen=True)
class Signature:
    name: str
    required: tuple[str, ...]  # the parameters without defaults: each gets a drawn argument
    parameters: tuple[str, ...]
    text: str  # as the handout quotes it: "layer_norm(X, gamma, beta, eps=1e-05)"
    docstring: str
    kinds: tuple[str, ...] = ()  # each required parameter's annotation, where NUMBERS knows it ("" else)

    def drawn(self) -> list[tuple[str, str]]:
        """For each required parameter: how the first check draws it, and its quick value."""
        return [NUMBERS.get(kind, MATRIX) for kind in self.kinds or ("",) * len(self.required)]


def signatures(source: str, path: Path) -> list[Signature]:
    """The public top-level functions of a reference file."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise UsageError(f"--reference {path} is not valid Python: {error.msg} (line {error.lineno})") from None
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            arguments = node.args
            if arguments.vararg or arguments.kwarg or arguments.posonlyargs:
                raise UsageError(f"--reference {path}: {node.name} takes *args, **kwargs or positional-only parameters")
            names = tuple(arg.arg for arg in (*arguments.args, *arguments.kwonlyargs))
            defaults = len(arguments.defaults)
            required = names[: len(arguments.args) - defaults]
            header = ast.unparse(node.args)
            kinds = tuple(_annotation(arg) for arg in arguments.args[: len(required)])
            found.append(Signature(node.name, required, names, f"{node.name}({header})", ast.get_docstring(node) or "", kinds))
    if not found:
        raise UsageError(f"--reference {path} defines no public top-level function")
    return found


def _annotation(arg: ast.arg) -> str:
    """``int`` of ``k: int``; "" where there is none, or it is not a plain name."""
    return arg.annotation.id if isinstance(arg.annotation, ast.Name) else ""


def write_skeleton(name: str, out: Path, reference: Path) -> list[str]:
    """Write the folder ``out/name``; return its files."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise UsageError(f"NAME {name!r} must be a Python identifier, such as layer_norm")
    folder = out / name
    if folder.exists():
        raise UsageError(f"{folder} exists already: name a new folder")
    try:
        source = reference.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read --reference {reference}: {error}") from None
    functions = signatures(source, reference)
    files = {
        "__init__.py": _assignment(name, functions),
        "solution.py": source,
        "template.py": _template(source, functions),
        "calls.py": _calls(functions),
        "mistakes.py": _mistakes(functions),
        "rubric.toml": _rubric(name, functions),
        "handout.md": _handout(name, functions),
        **{f"checks/{function.name}.py": _check(function) for function in functions},
    }
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)


def _assignment(name: str, functions: list[Signature]) -> str:
    listed = "\n".join(
        f"        Function({f.name!r}, {f.parameters!r}, {f.text!r})," for f in functions
    )
    names = ", ".join(f.name for f in functions)
    return f'''"""{name}: a course's assignment (written by `grader new-assignment`; see the docs' page "Write a new assignment")."""

from __future__ import annotations

from grader.authoring import Assignment, Function


def _reference_functions():
    from .calls import FUNCTIONS

    return FUNCTIONS


def _small_calls():
    from .calls import SMALL_CALLS

    return SMALL_CALLS


def _mistakes():
    from .mistakes import KNOWN

    return KNOWN


ASSIGNMENT = Assignment(
    name={name!r},
    title={name.replace("_", " ").capitalize()!r},
    functions=(
{listed}
    ),
    handout={name + ".py"!r},
    task={names + " from the handout"!r},
    reference="solution.py",
    rubric="rubric.toml",
    template={{{name + ".py"!r}: "template.py", "README.md": "handout.md"}},
    lesson_code="",
    # TODO: the handout's own example (a notebook handout's last cell runs it).
    worked_example=("Try it on a small example", "X = np.arange(1.0, 7.0).reshape(2, 3)\\nprint({functions[0].name}({", ".join(_shown(value) for _, value in functions[0].drawn())}))"),
    reference_functions=_reference_functions,
    small_calls=_small_calls,
    mistakes=_mistakes,
    pictures=dict,
)
'''


def _template(source: str, functions: list[Signature]) -> str:
    imports = [ast.unparse(node) for node in ast.parse(source).body if isinstance(node, (ast.Import, ast.ImportFrom))]
    names = ", ".join(function.name for function in functions)
    parts = [f'"""Write {names} as the handout says: each raises NotImplementedError until you do."""']
    parts += ["\n".join(imports)] if imports else []
    for function in functions:
        docstring = function.docstring.replace('"""', "'''").replace("\n", "\n    ")
        body = f'    """{docstring}"""\n' if docstring else ""
        parts.append(f"def {function.text}:\n{body}    raise NotImplementedError")
    return "\n\n\n".join(parts) + "\n"


def _shown(value: str) -> str:
    """A quick value as the example and the feedback quote it: EXAMPLE is X."""
    return "X" if value == MATRIX[1] else value


def _calls(functions: list[Signature]) -> str:
    small = "\n".join(
        f"    {f.name!r}: (({''.join(value + ', ' for _, value in f.drawn())}), "
        f"{f.name + '(' + ', '.join(_shown(value) for _, value in f.drawn()) + ') with X = np.arange(1.0, 7.0).reshape(2, 3)'!r}),"
        for f in functions
    )
    return f'''"""The reference as the checks call it: loaded once, in the grader's trusted process."""

from __future__ import annotations

import numpy as np

from grader.authoring import functions_of, here, reference_module

FUNCTIONS = functions_of(reference_module(here(__file__, "solution.py")), {[f.name for f in functions]!r})

EXAMPLE = np.arange(1.0, 7.0).reshape(2, 3)
# TODO: a call every working version answers at once, with the words feedback quotes it
# by (a function that hangs is tried on it again): arguments of the kinds the handout says.
SMALL_CALLS = {{
{small}
}}
'''


def _check(function: Signature) -> str:
    drawn = ", ".join(function.required)
    shown = f"{function.name}({drawn})"
    drawn_as = list(zip(function.required, function.drawn()))
    # Numbers are drawn before the arrays' source, as every size is (see grader.authoring.checks.arrays).
    numbers = "".join(f"    {name} = {how}\n" for name, (how, value) in drawn_as if value != MATRIX[1])
    parts = "".join(
        f"        {how},  # {name}\n" if value == MATRIX[1] else f"        {name},\n" for name, (how, value) in drawn_as
    )
    annotated = ", and the numbers the solution annotates" if numbers else ""
    return f'''"""Checks of {function.name}. Write one test_<name> per property the handout states."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from grader.authoring.checks import arrays, check, expect, sides

from ..calls import FUNCTIONS


@st.composite
def arguments(draw):
    """The arguments of {shown}: float matrices of one shape, 1 to 6
    rows and columns{annotated}."""
    # TODO: the kinds and shapes of the arguments of {function.name}, as the handout says.
    rows, cols = draw(sides()), draw(sides())
{numbers}    source = arrays(draw)  # drawn after every size and number
    return (
{parts}    )


@check(inputs=arguments())
def test_matches_reference(submission, inputs):  # inputs: {drawn or "none"}
    got = submission.{function.name}(*inputs)
    expected = FUNCTIONS[{function.name!r}](*inputs)
    expect.close(expect.array(got, {shown!r}), np.asarray(expected, dtype=float), {shown!r})
'''


def _mistakes(functions: list[Signature]) -> str:
    probes = "\n".join(f"    {f.name!r}: [Probe({f.name!r}, ({''.join(value + ', ' for _, value in f.drawn())}))]," for f in functions)
    return f'''"""Known mistakes: each a variant of the reference that makes it (a top-level def that
`grader validate` grades as a student's file), and the checks meant to catch it."""

from __future__ import annotations

from grader.authoring.mistakes import Mistakes, Probe

from .calls import EXAMPLE, FUNCTIONS

PROBES = {{
{probes}
}}

KNOWN = Mistakes(probes=PROBES, reference=FUNCTIONS, mistakes=())
'''


def _rubric(name: str, functions: list[Signature]) -> str:
    points = 100 // len(functions)
    checks = "\n".join(
        f'[[checks]]\nid = "{f.name}.matches_reference"\npoints = {points + (100 - points * len(functions) if i == 0 else 0)}\n'
        f'description = "{f.name} gives the reference\'s values"\nvisibility = "visible"\n'
        for i, f in enumerate(functions)
    )
    return f'name = "{name}"\ntitle = "{name.replace("_", " ").capitalize()}"\n\n{checks}'


def _handout(name: str, functions: list[Signature]) -> str:
    listed = "\n".join(f"- `{f.text}`: {_summary(f.docstring) or 'TODO: what it computes.'}" for f in functions)
    return f"""# {name.replace("_", " ").capitalize()}

Write these functions in `{name}.py`:

{listed}

## What is checked

TODO: each property the checks grade, in the students' words.
"""


def _summary(docstring: str) -> str:
    """A docstring's first paragraph on one line: what the handout says a function computes."""
    return " ".join(docstring.split("\n\n")[0].split())
