"""Assignments: everything the grader knows of one lesson lives in its own folder here.

The rest of the grader (sandbox, worker, wire, proxy, executors, batch, sources, scoring,
reports and formats, similarity, the diagnoses engine) names no student function: it asks
the :class:`Assignment` selected with ``--assignment`` (default :data:`DEFAULT`).

An assignment is a package ``grader/assignments/<name>/`` whose ``__init__.py`` defines
``ASSIGNMENT``, an :class:`Assignment`, and which holds:

- ``checks/``: the property checks, one module per function or property family; a check
  is ``test_<name>`` in ``checks/<module>.py``, with the id ``<module>.<name>``, decorated
  with :func:`grader.checking.check` (see that module for how to write one);
- the trusted reference wrappers the checks compare against, and the strategies that draw
  their inputs (built on :mod:`grader.strategies`, so the course secret applies);
- its known mistakes (see :class:`Mistakes`): probe inputs, variants of the reference
  that make each mistake, and optionally an inference of unnamed steps;
- its lesson code (what the similarity report leaves out) and the pictures its pages draw.

The files people open by hand stay at the top of the repository, one per assignment:
the reference head (``reference/``), the student template and handout
(``student_template/``), and the rubric (``rubrics/``); the assignment names them.

To add an assignment: write its folder, and add its name to :data:`NAMES`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from grader.errors import UsageError

if TYPE_CHECKING:
    from grader.diagnoses import Mistakes

NAMES = ("attention_head", "multi_head")
DEFAULT = "attention_head"
FOLDER = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Function:
    """One function students write: its parameters as the handout names them, the
    signature feedback quotes, and the check modules that test it (its own name's, and
    any of properties only it has, such as masking for attention)."""

    name: str
    parameters: tuple[str, ...]
    signature: str
    check_modules: tuple[str, ...] = ()

    @property
    def checked_by(self) -> tuple[str, ...]:
        return self.check_modules or (self.name,)

    def request(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """The call a check's ``submission.<name>(*args, **kwargs)`` sends: an optional
        argument the check leaves at None is not sent (trailing positional ones, keyword ones)."""
        positional = list(args)
        while positional and positional[-1] is None:
            positional.pop()
        return positional, {key: value for key, value in kwargs.items() if value is not None}


@dataclass(frozen=True)
class Picture:
    """A call whose attention weights the HTML report draws, the submission's beside the
    reference's, with the sentence shown above them: the weights are the second value it
    returns, ``weights_index`` into them (a head of a stack), a small 2-D matrix."""

    function: str
    args: tuple[Any, ...]
    caption: str
    weights_index: tuple[int, ...] = ()


@dataclass(frozen=True, eq=False)
class Assignment:
    """What the grader needs of one lesson (see the module docstring)."""

    name: str
    title: str  # what its pages are headed with: "Attention head"
    functions: tuple[Function, ...]
    handout: str  # the file students hand in, as the template names it: "attention.py"
    task: str  # what that file holds, for a sentence: "the four functions from the lesson"
    reference: str  # the reference head, relative to the project: "reference/attention.py"
    rubric: str  # the default rubric, relative to the project
    template: Mapping[str, str]  # exported file -> its source, relative to the project
    lesson_code: str  # code every student is given, which similarity leaves out
    worked_example: tuple[str, str]  # a notebook handout's heading and cell to try the functions on
    # The parts that need numpy are made when first asked for: the command that reads a
    # file and scores it never imports numpy (about 60 ms).
    reference_functions: Callable[[], Mapping[str, Callable[..., Any]]]  # name -> the trusted reference
    # name -> a call any working version answers at once, and its words: the probe of a
    # function that timed out (see grader.proxy)
    small_calls: Callable[[], Mapping[str, tuple[tuple[Any, ...], str]]]
    mistakes: Callable[[], Mistakes]  # most runs diagnose nothing
    pictures: Callable[[], Mapping[str, Picture]]

    @property
    def package(self) -> str:
        return f"grader.assignments.{self.name}"

    @property
    def checks_package(self) -> str:
        return f"{self.package}.checks"

    @property
    def checks_folder(self) -> Path:
        return FOLDER / self.name / "checks"

    @functools.cached_property
    def by_name(self) -> dict[str, Function]:
        return {function.name: function for function in self.functions}

    @property
    def function_names(self) -> tuple[str, ...]:
        return tuple(function.name for function in self.functions)

    def checks_of(self, name: str, check_ids: tuple[str, ...]) -> tuple[str, ...]:
        """The ids among ``check_ids`` that test the function ``name`` (or that a check
        module ``name`` holds): what a self-check of one function runs."""
        modules = self.by_name[name].checked_by if name in self.by_name else (name,)
        return tuple(check for check in check_ids if check.split(".", 1)[0] in modules)


@functools.cache
def reference_module(relative: str) -> ModuleType:
    """The reference head at ``relative`` (to the project), loaded once into this trusted
    process: the assignments' reference wrappers call it."""
    from grader.resources import project_file

    spec = importlib.util.spec_from_file_location(f"grader_reference_{Path(relative).stem}", project_file(relative))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def get(name: str = DEFAULT) -> Assignment:
    """The assignment called ``name``; a :class:`UsageError` names the known ones otherwise."""
    if name not in NAMES:
        raise UsageError(f"no assignment is called {name!r}: the grader knows {', '.join(NAMES)}")
    return _load(name)


@functools.cache
def _load(name: str) -> Assignment:
    return importlib.import_module(f"{__name__}.{name}").ASSIGNMENT


def reference_heads() -> list[str]:
    """Every assignment's reference head, relative to the project (what cached draws and
    traces depend on, besides the grader's own sources)."""
    return [get(name).reference for name in NAMES]


def of_file(path: Path) -> Assignment | None:
    """The assignment whose handout has ``path``'s name (``multi_head.ipynb``), if one has."""
    for name in NAMES:
        if Path(get(name).handout).stem == path.stem:
            return get(name)
    return None


WRITTEN_FOR_ANOTHER = "This file defines the functions of the assignment "


def another_assignments_note(defined: set[str], assignment: Assignment) -> str | None:
    """What a report says of a file written for another assignment (None: it is not one)."""
    other = written_for_another(defined, assignment)
    if other is None:
        return None
    return (
        f"{WRITTEN_FOR_ANOTHER}{other.name} ({', '.join(other.function_names)}), not all of {assignment.name}'s: "
        f"grade it with --assignment {other.name}."
    )


def written_for_another(defined: set[str], assignment: Assignment) -> Assignment | None:
    """The assignment a file that defines ``defined`` was written for, when it lacks some of
    ``assignment``'s functions and defines every one of another's."""
    if set(assignment.function_names) <= defined:
        return None
    for name in NAMES:
        other = get(name)
        if other is not assignment and set(other.function_names) <= defined:
            return other
    return None
