"""The authoring surface: what an assignment may import from the grader.

These modules, and only these, are public: their names keep their meaning across minor
versions of the grader, and the shipped assignments (``grader/assignments/``) import
nothing else from it. Everything else in the ``grader`` package is internal and changes
without notice.

- :mod:`grader.authoring` (this module, which imports no numpy): describing an
  assignment (:class:`Assignment`, :class:`Function`, :class:`Picture`), extending a
  shipped one (:func:`extend`, with a :class:`Convention` of the course's own), and loading a reference head (:func:`reference_module`,
  :func:`functions_of`);
- :mod:`grader.authoring.checks`: writing property checks (:func:`check`, the
  assertions of ``expect``, and the strategies :func:`arrays`, :func:`sides`, :func:`values`);
- :mod:`grader.authoring.mistakes`: declaring known mistakes (:class:`Mistakes`,
  :class:`Mistake`, :class:`Probe`) so that feedback names them;
- :mod:`grader.authoring.steps`: inferring, step by step, what a wrong function computes
  (the engine behind the shipped assignments' finer diagnoses; optional).

An assignment folder (README, "Adding an assignment")::

    layer_norm/
        __init__.py      ASSIGNMENT = Assignment(...)
        solution.py      the reference the checks compare with (``reference``)
        template.py      what students start from (``template``)
        handout.md
        rubric.toml
        checks/<module>.py   test_<name> decorated with check(...): id <module>.<name>
        mistakes.py      optional: Mistakes(...)

Its modules import each other relatively (``from .solution_calls import FUNCTIONS``): the
grader imports the folder under a name of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from grader.assignments import Assignment, Convention, Function, Picture, get, reference_module

__all__ = ["Assignment", "Convention", "Function", "Picture", "extend", "functions_of", "here", "reference_module"]


def extend(base: str, **changes: Any) -> Assignment:
    """A course's own version of the shipped assignment ``base``: the same functions,
    checks, mistakes and reference, with ``changes`` (any :class:`Assignment` field:
    ``name`` at least, and for instance its own ``rubric``, ``worked_example`` or
    ``template``, named relative to the course's folder). Checks in the course folder's
    ``checks/`` are added to the base's; their modules need names of their own."""
    if "name" not in changes:
        raise TypeError("extend() needs the course's own name for the assignment: extend(base, name=...)")
    shipped = get(base)
    # The base's files are named relative to the grader; the course's, to its folder.
    own_files = {
        "reference": str(shipped.path(shipped.reference)),
        "rubric": str(shipped.path(shipped.rubric)),
        "template": {exported: str(shipped.path(source)) for exported, source in shipped.template.items()},
    }
    return dataclasses.replace(shipped, **{**own_files, **changes, "spec": "", "digest": ""})


def functions_of(module: ModuleType, names: Iterable[str]) -> dict[str, Callable[..., Any]]:
    """``names`` -> the functions a (reference) module defines by those names."""
    return {name: getattr(module, name) for name in names}


def here(file: str, relative: str) -> Path:
    """The path of ``relative`` beside the module whose ``__file__`` is ``file`` (an
    assignment's reference wrappers: ``reference_module(here(__file__, "solution.py"))``)."""
    return Path(file).resolve().parent / relative

