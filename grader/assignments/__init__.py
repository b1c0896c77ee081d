"""Assignments: everything the grader knows of one lesson lives in one folder.

The rest of the grader (sandbox, worker, wire, proxy, executors, batch, sources, scoring,
reports and formats, similarity, the diagnoses engine) names no student function: it asks
the :class:`Assignment` selected with ``--assignment`` (default :data:`DEFAULT`).

An assignment is a Python package whose ``__init__.py`` defines ``ASSIGNMENT``, an
:class:`Assignment`, and which holds its property checks in ``checks/`` (a check is
``test_<name>`` in ``checks/<module>.py``, id ``<module>.<name>``), the reference
wrappers and strategies the checks use, and its known mistakes. Three places hold one:

- shipped with the grader: ``grader/assignments/<name>/`` (:data:`NAMES`); their data
  files (reference head, template, rubric) sit at the top of the repository;
- a folder in a course's repository, given by path (``--assignment path/to/folder``):
  its files are named relative to the folder, and its modules import each other
  relatively (``from .reference import FUNCTIONS``), since the grader imports it under a
  name of its own (:mod:`grader.assignments.outside`);
- an installed package that declares it under the entry point group
  ``grader.assignments`` (``layer_norm = "course_pkg.layer_norm"``), as pytest finds plugins.

What an assignment may import from the grader is :mod:`grader.authoring` (see there);
The docs' page "Write a new assignment" walks through writing one.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
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


@dataclass(frozen=True)
class Function:
    """One function students write: its parameters as the handout names them, the
    signature feedback quotes, and the check modules that test it (its own name's, and
    any of properties only it has, such as masking for attention).

    Fields:

    name
        The function's name, as the handout and the student's file spell it; the name the
        checks call (``submission.<name>(...)``), and the key of the reference functions,
        of :attr:`Mistakes.probes <grader.diagnoses.Mistakes.probes>` and of
        :attr:`Mistake.function <grader.diagnoses.Mistake.function>`. Required. Example:
        ``"layer_norm"``.
    parameters
        Its parameter names, in order, as the handout names them: the report's
        counterexamples name each argument by them, and a :class:`Convention` names the
        arguments it turns by them. Required. Example: ``("X", "gamma", "beta", "eps")``.
    signature
        The signature as the handout quotes it: feedback quotes it to a student whose
        function is called with arguments it does not take ("the grader calls it as the
        lesson defines it: ..."), and a notebook handout heads the function's cell with
        it. Required. Example: ``"layer_norm(X, gamma, beta, eps=1e-5)"``.
    check_modules
        The check modules (``checks/<module>.py``, without ``.py``) that test it. A check
        of one of them that fails makes the function's mistakes told, and ``%grade
        <name>`` in a notebook runs those checks. Default ``()``: the module of its own
        name. Example: ``("layer_norm", "rows")`` for a ``layer_norm`` also tested by
        ``checks/rows.py``.

    Example::

        Function("layer_norm", ("X", "gamma", "beta", "eps"), "layer_norm(X, gamma, beta, eps=1e-5)")
    """

    name: str
    parameters: tuple[str, ...]
    signature: str
    check_modules: tuple[str, ...] = ()

    @property
    def checked_by(self) -> tuple[str, ...]:
        """The check modules that test it: :attr:`check_modules`, or its own name's."""
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
    returns, ``weights_index`` into them (a head of a stack), a small 2-D matrix.

    An assignment's :attr:`Assignment.pictures` returns them by name. Where the student's
    call does not return such weights (it raised, or returned no pair), the report says
    there are no weights to show.

    Fields:

    function
        The function called, one that returns a pair whose second value is the weights.
        Example: ``"attend"``.
    args
        Its positional arguments, fixed arrays (as a probe's). Example:
        ``(Q, K, V, np.tril(np.ones((4, 4), dtype=bool)))``.
    caption
        The sentence shown above the two pictures: the call, and what to look for. Example:
        ``"attend(Q, K, V, mask) with a causal mask: weight above the diagonal must be 0"``.
    weights_index
        An index into the weights that gives a 2-D matrix, at most 8 on a side; default
        ``()``: the weights themselves. Example: ``(0,)`` for head 0 of
        ``(n_heads, n, n)`` weights.

    Example::

        Picture("attend", (Q, Q, V), "The handout's worked example: attend(Q, Q, V)")
    """

    function: str
    args: tuple[Any, ...]
    caption: str
    weights_index: tuple[int, ...] = ()


@dataclass(frozen=True)
class Convention:
    """A course's own reading of some arguments where the lesson leaves a choice (a boolean
    mask that is True where a query may *not* attend, as some of PyTorch's APIs read it).

    The checks, the reference and its recorded examples stay in the lesson's convention:
    each argument named here is turned into the course's (``to_course``) as it is sent to
    the student's code, and read back (``to_lesson``) where a check reads what the call left
    of it; the calls feedback shows are the ones the student's code received. The functions
    it governs are told no sentence of the diagnosis that speaks of the convention (one with
    any of ``words``: the diagnoses are worded in the lesson's); the functions in ``answers``,
    whose answers follow the course's convention and which the course grades with checks
    of its own, are told no named mistake at all.

    Given to :func:`~grader.authoring.extend` (or an :class:`Assignment`) as
    ``convention``. Every call of the student's code is turned, the diagnosis's probes
    too; the checks then run live (the recorded examples are the lesson's calls), and
    ``grader validate`` leaves out the mistakes of the functions it governs.

    Fields:

    description
        What the course's convention is, in one sentence, for the handout and the course's
        readers (the grader itself does not print it). Required. Example: ``"a boolean mask
        is True where a query may not attend"``.
    parameters
        Function name -> the names of its parameters (as :attr:`Function.parameters` names
        them) read the course's way: each such argument, positional or by keyword, unless
        None, is turned with ``to_course`` as it is sent. Required. Example:
        ``{"attend": ("mask",)}``.
    to_course
        Turns one argument's value from the lesson's convention into the course's.
        Required. Example: a function that flips a boolean mask, importing numpy itself
        (an assignment's ``__init__.py`` imports no numpy at load).
    to_lesson
        Turns it back: applied to the arguments named in ``parameters`` as the student's
        call left them, before a check reads them (``args_after``). Required. Example: the
        same function, for a flip.
    answers
        Functions whose answers follow the course's convention (a function that makes a
        mask, returning True where a query may not attend): no diagnosis of them is told,
        and their shipped checks, which compare with the lesson's answers, are for the
        course's rubric to leave out (its own checks grade them). Default ``()``. Example:
        ``("lower_mask",)``.
    words
        Beginnings of words that make a diagnosis speak of the convention: a sentence told
        of a function in ``parameters`` (or of no one function) with a word starting with
        one of them is not told. Default ``("mask", "True", "False", "tril", "triu")``.
        Example: ``words=("mask", "True", "False")``.

    Example (``tests/courses/attention_blocked/__init__.py`` is a complete one)::

        def _flipped(mask):
            import numpy as np
            return np.logical_not(mask)

        Convention("a boolean mask is True where a query may not attend",
                   parameters={"attend": ("mask",)},
                   to_course=_flipped, to_lesson=_flipped, answers=("lower_mask",))
    """

    description: str  # for the handout and the course's readers
    parameters: Mapping[str, tuple[str, ...]]  # function -> its parameters read the course's way
    to_course: Callable[[Any], Any]
    to_lesson: Callable[[Any], Any]
    answers: tuple[str, ...] = ()
    words: tuple[str, ...] = ("mask", "True", "False", "tril", "triu")  # each the start of a word

    @property
    def governs(self) -> frozenset[str]:
        """The functions it governs: those of :attr:`parameters` and of :attr:`answers`."""
        return frozenset((*self.parameters, *self.answers))

    def silences(self, function: str | None, sentence: str) -> bool:
        """Whether a diagnosis of ``function`` (None: of no one function) saying ``sentence``
        is worded in the lesson's convention for this course, and so is not told."""
        import re

        if function in self.answers:
            return True
        speaks = re.search(rf"\b(?:{'|'.join(map(re.escape, self.words))})", sentence) is not None
        return speaks and (function is None or function in self.parameters)

    def sent(self, function: Function, args: list[Any], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """A call of the lesson's convention as the course's code receives it.

        ``function``: the :class:`Function` called; ``args`` and ``kwargs``: the call's
        arguments, in the lesson's convention. Returns them with each argument named in
        :attr:`parameters` (not None) turned by :attr:`to_course`."""
        return self._turned(function, args, kwargs, self.to_course)

    def read_back(self, function: Function, args_after: list[Any]) -> list[Any]:
        """The arguments a call left, in the lesson's convention again.

        ``function``: the :class:`Function` called; ``args_after``: its positional arguments
        as the student's call left them, each one named in :attr:`parameters` turned back
        by :attr:`to_lesson`."""
        return self._turned(function, args_after, {}, self.to_lesson)[0]

    def _turned(
        self, function: Function, args: list[Any], kwargs: dict[str, Any], turn: Callable[[Any], Any]
    ) -> tuple[list[Any], dict[str, Any]]:
        governed = self.parameters.get(function.name, ())
        if not governed:
            return args, kwargs
        positional = [
            turn(value) if index < len(function.parameters) and function.parameters[index] in governed and value is not None
            else value
            for index, value in enumerate(args)
        ]
        keywords = {key: turn(value) if key in governed and value is not None else value for key, value in kwargs.items()}
        return positional, keywords


@dataclass(frozen=True, eq=False)
class Assignment:
    """What the grader needs of one lesson (see the module docstring of :mod:`grader.assignments`).

    A course's folder defines one as ``ASSIGNMENT`` in its ``__init__.py`` (or makes one
    with :func:`~grader.authoring.extend`). That module must import no numpy: the four
    callable fields import what needs it when first called. File names are relative to the
    assignment's folder (a shipped assignment's, to the grader's project).

    Fields an author gives (all required but ``convention``):

    name
        The assignment's name: ``--assignment NAME`` finds an installed or loaded one by
        it, a rubric names it, and a notebook handout's ``%grade`` line too. Not a shipped
        one's (``attention_head``, ``multi_head``). Example: ``"layer_norm"``.
    title
        What its report pages are headed with, and a notebook handout's first heading when
        the template's module has no docstring. Example: ``"Layer normalisation"``.
    functions
        The :class:`Function` s students write, in the handout's order (a notebook
        handout's cells follow the template, and its last section names the first).
        Example: ``(Function("row_stats", ("X",), "row_stats(X)"), ...)``.
    handout
        The file students hand in, as the template names it; a notebook handout is the same
        name with ``.ipynb``, and a counterexample's repro imports the module of that name.
        Example: ``"layer_norm.py"``.
    task
        What that file holds, in words that complete "write ... in it" (said of an empty
        file, or a notebook with no code cell). Example: ``"row_stats, layer_norm and
        rms_norm from the handout"``.
    reference
        The reference head, a file like a student's: what ``grader validate`` grades for
        full marks and writes each variant into, and what similarity leaves out. Example:
        ``"solution.py"``.
    rubric
        The default rubric (TOML), used when a command is given none. Example:
        ``"rubric.toml"``.
    template
        Each file handed to students -> its source in the folder. ``template[handout]`` is
        the file they start from (``grader validate`` wants it to get 0, each function told
        it is not written yet); ``export-student`` and the bundles hand these out. Example:
        ``{"layer_norm.py": "template.py", "README.md": "handout.md"}``.
    lesson_code
        Code every student is given (the lesson's own), which similarity leaves out; ``""``
        for none. Example: ``""``.
    worked_example
        ``(heading, code)``: the last section of a notebook handout, a cell to try the
        functions on. Example: ``("Try it on the handout's example", "print(row_stats(X))")``.
    reference_functions
        A function of no arguments returning function name -> the trusted reference
        function the checks and the diagnosis compare with (usually the reference file's
        functions on float copies of their arguments). Example::

            def _reference_functions():
                from .calls import FUNCTIONS
                return FUNCTIONS

    small_calls
        A function of no arguments returning function name -> ``(args, words)``: a call any
        working version answers at once, and how feedback names it. A function that timed
        out in a check is called on it: if it does not return there either, feedback says
        it hangs even there. Example: ``lambda: {"row_stats": ((np.eye(2),),
        "row_stats(np.eye(2))")}``, written as a function that imports numpy itself.
    mistakes
        A function of no arguments returning the :class:`~grader.diagnoses.Mistakes`
        (called only when a submission is diagnosed; return a module constant). Example::

            def _mistakes():
                from .mistakes import KNOWN
                return KNOWN

    pictures
        A function of no arguments returning picture name -> :class:`Picture`: the weights
        the HTML report draws. Example: ``pictures=dict`` for none.
    convention
        A :class:`Convention` of the course's own, where the lesson leaves a choice; default
        ``None``: the lesson's.
    variants
        A folder of the assignment's holding student files that make its known mistakes,
        each a whole file as a student hands it in (``.py``, in subfolders too), with two
        header lines: ``# diagnosis: <id>[, <id>]`` (the mistakes it must be told, or
        ``none``) and ``# must-fail: <check>[, <check>]`` (the checks it must lose points on;
        ``*`` globs allowed). ``grader validate`` grades each and holds it to both. A mistake
        whose variant cannot be written from its ``variants`` functions (a lambda, a
        function made by another, or a mistake the inference names) is validated by such a
        file, and one without ``caught_by`` has its checks declared there. Default ``""``:
        none. Example: ``"variants"``, with ``variants/no_eps.py`` starting::

            # diagnosis: layer_norm_no_eps
            # must-fail: layer_norm.uses_eps, layer_norm.constant_row

    Fields the grader fills in when it loads the assignment (an author leaves them out):
    ``folder`` (the folder its files are named relative to; None: the grader's project),
    ``check_packages`` (the Python packages of its checks, an extension's after its
    base's), ``spec`` (how another process finds it again), ``digest`` (of an outside
    folder's files) and ``package`` (the Python package an outside folder is imported as).

    Example (``tests/courses/layer_norm/__init__.py`` is a complete one)::

        ASSIGNMENT = Assignment(
            name="layer_norm", title="Layer normalisation",
            functions=(Function("layer_norm", ("X", "gamma", "beta", "eps"), "layer_norm(X, gamma, beta, eps=1e-5)"),),
            handout="layer_norm.py", task="layer_norm from the handout",
            reference="solution.py", rubric="rubric.toml",
            template={"layer_norm.py": "template.py", "README.md": "handout.md"},
            lesson_code="", worked_example=("Try it", "print(layer_norm(X, gamma, beta))"),
            reference_functions=_reference_functions, small_calls=_small_calls,
            mistakes=_mistakes, pictures=dict,
        )
    """

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
    # function that timed out (see grader.engine.proxy)
    small_calls: Callable[[], Mapping[str, tuple[tuple[Any, ...], str]]]
    mistakes: Callable[[], Mistakes]  # most runs diagnose nothing
    pictures: Callable[[], Mapping[str, Picture]]
    # A course's own convention where the lesson leaves a choice (None: the lesson's).
    convention: Convention | None = None
    # A folder of student files making its known mistakes, which `grader validate` grades.
    variants: str = ""
    # Filled in by the grader when it loads the assignment (an author leaves them out):
    # the folder its files are named relative to (None: the grader's own project), the
    # Python packages of its checks (a course's extension adds its own to its base's),
    # how another process finds it again (a shipped or installed name, or a folder's
    # path), and a digest of an outside folder's files (what its cached examples depend on).
    folder: Path | None = None
    check_packages: tuple[str, ...] = ()
    spec: str = ""
    digest: str = ""
    package: str = ""  # the Python package an outside folder is imported as ("" for a shipped one)

    def path(self, relative: str) -> Path:
        """The file ``relative`` names (``reference``, ``rubric``, a template's source)."""
        if self.folder is not None:
            return self.folder / relative
        from grader.resources import project_file

        return project_file(relative)

    @functools.cached_property
    def checks_folders(self) -> tuple[Path, ...]:
        """The folders of :attr:`check_packages`, in the same order."""
        return tuple(self._folder_of(package) for package in self.check_packages)

    def _folder_of(self, package: str) -> Path:
        # An outside folder's own packages are found in that folder, not where a package of the
        # same name (the same files, elsewhere) was first imported from: a batch grades a
        # snapshot of the folder, which other processes load by its path.
        if self.folder is not None and self.package and package.startswith(self.package + "."):
            return self.folder.joinpath(*package[len(self.package) + 1:].split("."))
        # A checks/ folder without __init__.py is a namespace package: it has locations, no origin.
        return Path(next(iter(importlib.util.find_spec(package).submodule_search_locations))).resolve()

    @property
    def cache_name(self) -> str:
        """What names its recorded examples' folder: its name, and an outside one's digest."""
        return f"{self.name}-{self.digest}" if self.digest else self.name

    @functools.cached_property
    def by_name(self) -> dict[str, Function]:
        """Each :class:`Function` by its name."""
        return {function.name: function for function in self.functions}

    @property
    def function_names(self) -> tuple[str, ...]:
        """The functions' names, in order."""
        return tuple(function.name for function in self.functions)

    def checks_of(self, name: str, check_ids: tuple[str, ...]) -> tuple[str, ...]:
        """The ids among ``check_ids`` that test the function ``name`` (or that a check
        module ``name`` holds): what a self-check of one function runs."""
        modules = self.by_name[name].checked_by if name in self.by_name else (name,)
        return tuple(check for check in check_ids if check.split(".", 1)[0] in modules)


@functools.cache
def reference_module(relative: str | Path) -> ModuleType:
    """The reference head at ``relative`` (to the project; an outside assignment gives its
    absolute path), loaded once into this trusted process: the reference wrappers call it.

    ``relative``: the file's path, a string or a :class:`~pathlib.Path`; a course's folder
    gives it with :func:`~grader.authoring.here`. Returns the module, loaded under a name of
    its own (never the student's module name), once per process and path. Example::

        _HEAD = reference_module(here(__file__, "solution.py"))

        def layer_norm(X, gamma, beta, eps=1e-5):
            return _HEAD.layer_norm(np.array(X, dtype=float), gamma, beta, float(eps))
    """
    from grader.assignments import outside
    from grader.resources import is_shipped, project_file

    path = project_file(str(relative))
    if outside.course_folder_of(path) is None and not is_shipped(path):
        raise UsageError(
            f"the reference head {path} lies in no assignment's folder: an assignment reads only files in its own "
            "folder (name it with here(__file__, ...))"
        )
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(f"grader_reference_{path.stem}_{digest}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def get(name: str = DEFAULT) -> Assignment:
    """The assignment ``name`` finds: a shipped one, one loaded already in this process, an
    installed one (entry point group ``grader.assignments``), or the folder at that path; a
    :class:`UsageError` says which exist otherwise.

    ``name`` (default :data:`DEFAULT`): what ``--assignment`` takes. Example:
    ``get("attention_head").function_names``.
    """
    if name in NAMES:
        return _load(name)
    from grader.assignments import outside

    return outside.find(name)


@functools.cache
def _load(name: str) -> Assignment:
    package = f"{__name__}.{name}"
    declared = importlib.import_module(package).ASSIGNMENT
    return dataclasses.replace(declared, check_packages=(f"{package}.checks",), spec=name)


def known(name: object) -> bool:
    """Whether ``name`` is a shipped assignment's, one this process loaded from outside, or
    an installed one's (entry point group ``grader.assignments``)."""
    from grader.assignments import outside

    return isinstance(name, str) and (name in NAMES or outside.loaded(name) or outside.installed(name))


def reference_heads() -> list[str]:
    """Every assignment's reference head, relative to the project (what cached draws and
    traces depend on, besides the grader's own sources)."""
    return [get(name).reference for name in NAMES]


def of_file(path: Path) -> Assignment | None:
    """The assignment whose handout has ``path``'s name (``multi_head.ipynb``), if one has:
    a shipped one, or an installed one named as the file is (a course's ``layer_norm``)."""
    from grader.assignments import outside

    for name in NAMES:
        if Path(get(name).handout).stem == path.stem:
            return get(name)
    if outside.installed(path.stem) and Path(get(path.stem).handout).stem == path.stem:
        return get(path.stem)
    return None


def refuse_a_file_of_no_known_assignment(name: str, functions: frozenset[str], assignment: Assignment) -> None:
    """A :class:`UsageError` for a file named ``name`` that defines the top-level
    ``functions``, checked without --assignment and named as no handout is, when it is not
    written for ``assignment`` (the default) either: it defines functions of its own, more of
    them than of the lesson's (a helper that shares a lesson function's name does not make a
    course's file the lesson's). A file with none of its own is the lesson's,
    half-written: it is graded, and told what is missing."""
    lesson = set(assignment.function_names)
    shared, own = functions & lesson, functions - lesson
    if shared == lesson or len(shared) >= len(own) or written_for_another(functions, assignment) is not None:
        return  # written for it, or for another shipped one (its report says which)
    handouts = " or ".join(get(known).handout for known in NAMES)
    raise UsageError(
        f"{name} is not named {handouts} and is not written for {assignment.name} (it defines "
        f"{', '.join(sorted(own))}, not {', '.join(sorted(lesson - shared))}): name its assignment with --assignment "
        "(a course's folder, or an installed course's name)"
    )


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
