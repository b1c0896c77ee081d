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

An assignment folder (the docs' page "Write a new assignment")::

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

What this module exports:

- :class:`Assignment`: everything the grader knows of one lesson, ``ASSIGNMENT`` in the
  folder's ``__init__.py``;
- :class:`Function`: one function students write;
- :class:`Picture`: a call whose attention weights the HTML report draws;
- :class:`Convention`: a course's own reading of some arguments (a mask that is True where
  a query may *not* attend);
- :func:`extend`: a course's version of a shipped assignment;
- :func:`reference_module`, :func:`here` and :func:`functions_of`: load the course's
  reference head into the grader's process and pick its functions.

A course's ``__init__.py`` imports no numpy (the grader reads it to score a report
without numpy): the callables an :class:`Assignment` holds import what they need when
called. ``tests/courses/layer_norm/`` is a complete course folder, and
``tests/courses/attention_plus/`` and ``tests/courses/attention_blocked/`` extend the
shipped ``attention_head``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from grader.assignments import Assignment, Convention, Function, Picture, get, reference_module

__all__ = ["Assignment", "Convention", "Function", "Picture", "extend", "functions_of", "here", "reference_module"]


def extend(base: str, *, more_mistakes: Callable[[], Iterable[Any]] | None = None, **changes: Any) -> Assignment:
    """A course's own version of the shipped assignment ``base``: the same functions,
    checks, mistakes and reference, with ``changes`` (any :class:`Assignment` field:
    ``name`` at least, and for instance its own ``rubric``, ``worked_example`` or
    ``template``, named relative to the course's folder). Checks in the course folder's
    ``checks/`` are added to the base's; their modules need names of their own.

    Parameters:

    base
        The name of the assignment extended, as ``--assignment`` takes it (a shipped one:
        ``"attention_head"``, ``"multi_head"``). Its files are kept where they are (by
        their full paths), unless ``changes`` gives the course's own.
    changes
        Keyword arguments, each an :class:`Assignment` field and its new value. ``name`` is
        required (a ``TypeError`` otherwise) and must not be a shipped assignment's. Files
        (``reference``, ``rubric``, ``template``) are named relative to the course's folder.
        The base's reference *functions* stay what the checks and diagnoses compare with: a
        ``reference`` of the course's own is the head ``grader validate`` grades. Example:
        ``rubric="rubric.toml"``, ``convention=BLOCKED``. A ``mistakes`` of the course's own
        *replaces* the base's whole catalogue; to add to it, use ``more_mistakes``.
    more_mistakes
        Known mistakes of the course's own, told beside the base's: a function with no
        argument that returns :class:`~grader.diagnoses.Mistake` objects (it runs only when
        a head is diagnosed, so the folder's ``__init__.py`` imports no numpy). They are
        tried before the base's, on the base's probes, and ``grader validate`` checks each
        as it checks the base's. Default ``None``: the base's catalogue as it is. A function
        the base reads as unfinished (one of its placeholders, such as a half-written
        normalisation) is told that, never a mistake. Example::

            def _mistakes():
                from .mistakes import MISTAKES  # a tuple of Mistake(...), variants and all
                return MISTAKES

            ASSIGNMENT = extend("attention_head", name="attention_plus", more_mistakes=_mistakes)

    Returns the :class:`Assignment` to assign to ``ASSIGNMENT``. Example::

        ASSIGNMENT = extend("attention_head", name="attention_plus", rubric="rubric.toml",
                            worked_example=("Try it on the course's example", "Q = K = V = np.eye(3)"))
    """
    if "name" not in changes:
        raise TypeError("extend() needs the course's own name for the assignment: extend(base, name=...)")
    shipped = get(base)
    # The base's files are named relative to the grader; the course's, to its folder.
    own_files = {
        "reference": str(shipped.path(shipped.reference)),
        "rubric": str(shipped.path(shipped.rubric)),
        "template": {exported: str(shipped.path(source)) for exported, source in shipped.template.items()},
        # The base's variant files were written for its rubric and catalogue, which a course changes.
        "variants": "",
    }
    if more_mistakes is not None:
        changes.setdefault("mistakes", _with_more(shipped.mistakes, more_mistakes))
    return dataclasses.replace(shipped, **{**own_files, **changes, "spec": "", "digest": ""})


def _with_more(base: Callable[[], Any], more: Callable[[], Iterable[Any]]) -> Callable[[], Any]:
    """The base's catalogue with the course's mistakes first, built once per process (as a
    shipped assignment's is: the reference's answers to its probes are worked out once)."""

    @functools.cache
    def mistakes() -> Any:
        known = base()
        return dataclasses.replace(known, mistakes=(*more(), *known.mistakes))

    return mistakes


def functions_of(module: ModuleType, names: Iterable[str]) -> dict[str, Callable[..., Any]]:
    """``names`` -> the functions a (reference) module defines by those names.

    ``module``: a module, usually the reference head from :func:`reference_module`;
    ``names``: the function names to pick (an ``AttributeError`` for one it lacks).
    Returns a dict, name -> function, as :attr:`Assignment.reference_functions` and
    :attr:`Mistakes.reference <grader.diagnoses.Mistakes.reference>` want it, where the
    reference needs no wrapping. Example::

        FUNCTIONS = functions_of(reference_module(here(__file__, "solution.py")), ("row_stats", "layer_norm"))
    """
    return {name: getattr(module, name) for name in names}


def here(file: str, relative: str) -> Path:
    """The path of ``relative`` beside the module whose ``__file__`` is ``file`` (an
    assignment's reference wrappers: ``reference_module(here(__file__, "solution.py"))``).

    ``file``: the calling module's ``__file__``; ``relative``: a path relative to that
    module's folder. Returns an absolute :class:`~pathlib.Path`, wherever the grader runs
    from (the course's folder is imported under a name of its own). A path that leaves the
    course's folder (``"../shared/solution.py"``, or a link out of it) is refused with a
    :class:`~grader.errors.UsageError`: what the assignment reads must be in its folder,
    which its digest, caches and bundles cover. Example::

        SOLUTION = here(__file__, "solution.py")
    """
    from grader.assignments import outside

    found = Path(file).resolve().parent / relative
    folder = outside.course_folder_of(Path(file))
    if folder is not None:  # a course's file names only files of its own folder
        outside.refuse_outside(folder, found, f"{relative!r}, named in {Path(file).name},", folder)
        outside.named_with_here(folder, found)
    return found

