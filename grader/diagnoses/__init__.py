"""Named mistakes: which known mistake a failing head's answers match, in a student's words.

An assignment describes its known mistakes (:class:`Mistakes`) by what they do: most by
a *variant* of the reference that makes exactly that mistake (some have several common
spellings), a few by a property of the answers (:attr:`Mistake.shows_in`). After the
checks, a head that failed one is called on a few fixed probe inputs per function; a
mistake is diagnosed when the head's answers match the variant's on every probe of that
function and the variant differs from the reference on at least one of them. So a
correct head, which matches the reference, is never diagnosed, and a function with two
mistakes at once matches neither variant and gets no diagnosis: one is given only when
the behaviour really matches.

Where no variant matches a function, the assignment's inference (see
:mod:`grader.diagnoses.inference`) may work out from the same answers what the function
computes step by step, name each step that differs from the lesson, or say what the
probes showed (an ``observed`` entry) when no combination of known steps explains every
answer.

To add a mistake to an assignment: write its variant in the assignment's ``mistakes.py``
and add a :class:`Mistake` to its list; then add a head with that mistake to the
assignment's test heads with a ``# diagnosis:`` line.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grader.diagnoses import inference, located, unfinished
from grader.report import OBSERVED, UNFINISHED

#: What :attr:`Answer.value` holds for a call that raised (the string ``"raised"``): compare
#: with ``answer.value is RAISED``; :attr:`Answer.raised` then names the exception's type.
RAISED = "raised"  # the answer of a call that raised


@dataclass(frozen=True)
class FailedCheck:
    """A check of the submission that failed and costs points: the functions its failing
    example called, and what its feedback says."""

    called: frozenset[str]
    feedback: str = ""


class Unanswered(Exception):
    """A call whose outcome tells nothing of the function: it hung, its worker crashed, or
    the diagnosis's time is spent. The function it probed (or whose inference made it) is
    then not read."""


@dataclass(frozen=True)
class Probe:
    """One call made to diagnose: the function, its positional and keyword arguments.

    The diagnosis sends it to the student's code (in the sandbox) and, in the grader's own
    process, to the reference and to each variant, always on copies of its arrays: nothing
    a probe holds is ever changed. Probes are fixed inputs built once, at import, from
    :func:`fixed_matrix` or literal arrays (never random draws), so every machine and every
    submission gets the same calls.

    Fields:

    function
        The name of the function to call, as the handout names it. It must be the key of
        :attr:`Mistakes.probes` the probe is listed under: the student's function of this
        name answers it, the reference of that key does. Example: ``"layer_norm"``.
    args
        The positional arguments, a tuple (arrays, numbers, ``None``); a call with one
        argument is ``(X,)``. They are what :attr:`Answer.args_after` is compared with.
        Example: ``(X, gamma, beta)``.
    kwargs
        Keyword arguments, default ``{}`` (none): a probe of an optional argument passed by
        name. Example: ``{"eps": 0.5}``.

    Example::

        X = fixed_matrix(1, 3, 4)
        Probe("layer_norm", (X, np.ones(4), np.zeros(4)), {"eps": 0.5})
    """

    function: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """What a call gave back (RAISED if it raised), its arguments after the call, and for a
    call that raised the exception's type and message (read to tell what kind of failure it
    is, never shown).

    The diagnosis makes one per probe; an author reads them in a ``shows_in`` test, a
    ``consequence``, a placeholder or an inference (as ``answers``, ``got`` or
    ``expected``), and never builds one, except to test those functions.

    Fields:

    value
        What the call returned, or :data:`RAISED` if it raised. The student's values come
        back from the sandbox as arrays: a number is a 0-d array, a tuple stays a tuple
        (``(out, A)``), and so does a list of arrays (``return [out, A]``); any other list
        becomes an array. Example: ``answer.value is RAISED`` tells a raise.
    args_after
        The positional arguments as the call left them, in order, for the student's calls
        (what :func:`changes_its_inputs` compares with :attr:`Probe.args`); default ``()``,
        as for a call that raised or one made in the grader's process (reference,
        variants). Example: ``same(answer.args_after[0], probe.args[0])`` is False when
        the call changed its first argument in place.
    raised
        For a call that raised, the exception's type name (``"ValueError"``,
        ``"NotImplementedError"``), when known; default ``None``. Example:
        ``answer.raised == "AssertionError"``: an ``assert`` of the student's failed.
    text
        For a student's call that raised, the exception's own message (never shown to the
        student); default ``""``. Example: ``"axes don't match array" in answer.text``.
    line
        The line of the student's file the exception was raised at, if known; default
        ``None``.
    """

    value: Any
    args_after: tuple[Any, ...] = ()
    raised: str | None = None
    text: str = ""
    line: int | None = None  # the line of the submission the exception was raised at


@dataclass(frozen=True)
class Evidence:
    """Every function's probes and the head's answers to them (a function whose probes went
    unanswered has none).

    What a :attr:`Mistake.consequence` is given, to say what a mistake does to this very
    student's code from any of their answers.

    Fields:

    probes
        :attr:`Mistakes.probes`: function name -> its probes, in order.
    answers
        Function name -> the student's answers, one per probe in the same order. A function
        whose calls hung or crashed has no entry (read it with ``.get(name, [])``). A
        function read through a batch of one (:attr:`Mistakes.batch_axis`) holds, once it
        is read, the answers given through the batch axis, with that axis taken off.
        Example: ``evidence.answers.get("row_stats", [])``.
    unbatched
        Function name -> its answers to the probes as they are, for a function read through
        a batch of one (what it raised on the lesson's inputs); default ``{}``. Example:
        ``evidence.unbatched.get("layer_norm", [])[0].raised``.
    batch_axes
        Function name -> how many leading axes of one it answered through, for a function
        read through a batch of one: 1 (``(batch, n, d)`` code), or 2 (``(batch, heads, n,
        d)`` code); default ``{}``. Example: ``evidence.batch_axes.get("layer_norm", 1)``.

    Example::

        def changed_arguments(evidence):
            calls = zip(evidence.probes["layer_norm"], evidence.answers.get("layer_norm", []))
            changed = {index for probe, answer in calls
                       for index, after in enumerate(answer.args_after) if not same(after, probe.args[index])}
            return " and ".join(("X", "gamma", "beta")[i] for i in sorted(changed) if i < 3) or "an argument"
    """

    probes: Mapping[str, list[Probe]]
    answers: Mapping[str, list[Answer]]
    # A function read through a batch of one (Mistakes.batch_axis): what it gave the probes as they are.
    unbatched: dict[str, list[Answer]] = field(default_factory=dict)
    batch_axes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Mistake:
    """A known mistake: its id, what to tell the student, the function it shows in, and
    either the variants that make it or a test of the answers for it. A mistake with
    neither is one the inference alone names (a step of a function, :mod:`inference`), or
    the one a :class:`BatchAxis` names.

    How it is found: the functions are read in the order of
    :attr:`Mistakes.probes`. For a function whose answers differ from the reference's, each
    of its mistakes, in the order of :attr:`Mistakes.mistakes`, is skipped unless every
    function in ``builds_on`` was found right, then tested with ``shows_in`` if it has one,
    else with its ``variants``. Unless one that matched is other than ``beside_answers``,
    the function's inference (:attr:`Mistakes.inferred`) may then name more mistakes by
    their ids. A mistake found is told (:meth:`told`) only if a check of its function
    failed, and not if one of its ``echoes`` (or ``same_as``) was told before it.

    Fields (the first three are required, the others have defaults):

    id
        The mistake's stable id, unique in the assignment: reports, the class page,
        :attr:`Mistakes.by_id`, ``caught_by`` and ``grader validate`` name it so; a
        :class:`~grader.diagnoses.inference.Step` or a :class:`BatchAxis` names it by it.
        Example: ``"layer_norm_no_eps"``.
    message
        What the student reads, in their words: what their code does, why it is wrong, and
        the fix, with the handout's section. It is filled in with :meth:`str.format` and two
        fields, ``{consequence}`` (see ``consequence``) and ``{words}`` (see ``words``);
        any other brace must be doubled (``{{`` and ``}}``): a stray ``{eps}`` raises
        ``KeyError`` when the mistake is told, and then the student is told no diagnosis at
        all (the grade stands). Example::

            "layer_norm divides by sqrt(var) and never adds eps{consequence}. Divide by np.sqrt(var + eps)."

    function
        The name of the function whose code makes the mistake, a key of
        :attr:`Mistakes.probes`: the mistake is tested on that function's answers to its
        own probes only, and told only when one of that function's checks failed
        (:attr:`~grader.assignments.Function.check_modules`). Example: ``"layer_norm"``.
    variants
        Functions that make exactly this mistake, each called as the student's function is
        (the same arguments), written as a student would; a mistake with several common
        spellings gives each. Default ``()``. The mistake is named when, for one of them,
        the variant's answers differ from the reference's on at least one probe, the
        student's answers equal the variant's on *every* probe (:func:`same`: within the
        checks' tolerance; a raise matches a raise of any kind), and none of the student's
        answers is a raise on purpose (``NotImplementedError``, a failed ``assert``). A
        student's function that raises on some probes where the reference answers (an
        assert of its own, a shape it refuses) is read on the others: the mistake is named
        when its variant is the only one that gives every other answer, a raise where the
        reference raises too (an input the handout refuses) included. So a
        variant that answers every probe as the reference does is never named: add a probe
        that tells them apart (``grader validate`` says so). Variants run in the grader's
        process on copies of the probes, once per process (their answers are kept), so
        each must be deterministic. The diagnosis ignores them when ``shows_in`` is given.
        ``grader validate`` grades each as a student's file (the reference with the
        variant in place of ``function``): for that it must be a top-level ``def`` (not a
        lambda, nor a function made by another) that uses only the names the reference's
        file defines (``np``, the other functions by their students' names); validation
        lists any other variant as not validated, and it still diagnoses. Example::

            def layer_norm_no_eps(X, gamma, beta, eps=1e-5):
                mean, var = row_stats(X)
                return gamma * (X - mean) / np.sqrt(var) + beta

            Mistake("layer_norm_no_eps", "layer_norm never adds eps ...", "layer_norm",
                    variants=(layer_norm_no_eps,))

    shows_in
        A test of the answers, for a mistake no variant stands for (what it answers depends
        on memory or chance, or it shows in what a call did to its arguments). It is
        called as ``shows_in(probes, answers, expected)``: the function's probes
        (``list[Probe]``), the student's answers to them (``list[Answer]``, in the same
        order, with ``args_after``) and, third, the *reference's* answers to the same probes
        (``list[Answer]``, computed in the grader's process: ``expected[i].value`` is what
        the reference returned for ``probes[i]``, or :data:`RAISED`; they have no
        ``args_after``). The mistake is named when it returns True. Default ``None``: the
        ``variants`` decide. When it is given, the diagnosis does not use ``variants``
        (``grader validate`` still grades them). Nothing checks that correct code fails the
        test, as a variant's difference from the reference does: it is called only for a
        function whose answers are wrong on some probe, or, with ``beside_answers``, right
        on all of them; so make sure it is False for the reference's own answers. Example::

            def answers_differ_on_repeat(probes, answers, expected):
                # probes 1 and 2 are the same call: code computed from its inputs answers them alike
                return not identical(answers[1].value, answers[2].value)

            Mistake("layer_norm_nondeterministic", "layer_norm gives different answers to the same call ...",
                    "layer_norm", shows_in=answers_differ_on_repeat)

    builds_on
        Names of *functions* (keys of :attr:`Mistakes.probes`, never mistake ids) that must
        be right for this mistake to be tested: usually the helpers the function calls,
        whose own mistakes would make a correct function's answers look like this one.
        Default ``()``: tested whatever the other functions do. When any function named
        here is not right in this run (wrong, unfinished, unanswered, or answering only
        through a batch axis), the mistake is skipped without a word (the helper's own
        mistakes are told, where they are known). "Right" is known only of functions read
        *before* this one:
        a mistake id, a misspelt name, a function listed after this one in
        :attr:`Mistakes.probes`, or the mistake's own function is never right, so a mistake
        that names one is **never** told. Copy it from an example only for a function that
        calls that helper, and only if a student who makes this mistake has a right helper:
        one who also gets the helper wrong is not told it. Example (told only where the
        student's ``row_stats`` is right)::

            Mistake("layer_norm_no_eps", "layer_norm never adds eps ...", "layer_norm",
                    variants=(layer_norm_no_eps,), builds_on=("row_stats",))

    consequence
        A function of the :class:`Evidence` (every function's probes and this student's
        answers) whose text replaces ``{consequence}`` in ``message``: what the mistake does
        to this very student's code, read from their own answers, so that a consequence is
        told only where the answers show it (return ``""`` where they do not). Default
        ``None``: ``{consequence}`` becomes ``""``. It is called each time the mistake is
        told, by a variant, a test or a step of the inference. A function whose calls hung
        has no answers: read them with ``evidence.answers.get(name, [])``. If it raises,
        the student is told no diagnosis at all. Example::

            def constant_row_nan(evidence):
                answers = evidence.answers.get("layer_norm", [])
                if any(a.value is not RAISED and np.isnan(a.value).any() for a in answers):
                    return ", so a row whose entries are all equal gives 0 / 0 = nan"
                return ""

            Mistake("layer_norm_no_eps", "layer_norm never adds eps{consequence}. ...",
                    "layer_norm", variants=(layer_norm_no_eps,), consequence=constant_row_nan)

    beside_answers
        True for a mistake in what the function does *besides* its answers (it changes its
        input arrays in place), which wrong answers may come with or not. Default
        ``False``. It changes three things: the mistake is also tested on a function whose
        answers are all right (only ``beside_answers`` mistakes are, and only by
        ``shows_in``: no variant matches right answers); where it matches a function whose
        answers are wrong too, the function's inference still reads them and may name more
        mistakes (any other mistake that matched stops the inference); and where
        ``grader validate`` finds it not named, it does not blame a variant that answers
        every probe as the reference does (changing the inputs shows in no answer).
        Example::

            Mistake("layer_norm_changes_inputs", "layer_norm changes {consequence} in place ...",
                    "layer_norm", shows_in=changes_its_inputs, beside_answers=True,
                    consequence=changed_arguments)

    same_as
        The id of a helper's mistake (one of another function, read before this one) that
        this one repeats in the function's own code: the step of the helper, made where the
        function computes the helper's work itself (``layer_norm`` taking the sample
        variance itself, as ``row_stats_sample_variance`` does in ``row_stats``). Default
        ``None``. Where that mistake was told already in this run, this one is not told,
        as the function may be calling that helper, and the student would read the same
        fix twice; where it was not (the helper is right, or none of its checks failed),
        this one is told as usual. The diagnosis reads it as one more id of ``echoes``;
        the two differ in what they tell a reader of ``mistakes.py``. It changes nothing
        when ``builds_on`` names the helper already (the helper is then right, and its
        mistake never told). Example::

            Mistake("layer_norm_sample_variance", "layer_norm normalises with the sample variance ...",
                    "layer_norm", variants=(layer_norm_sample_variance,),
                    same_as="row_stats_sample_variance")

    echoes
        Ids of other functions' mistakes (read before this one, usually its helpers') that
        give this function this mistake's answers when it calls that helper: a normalisation
        along the wrong axis in the helper makes the calling function look as if it took the
        wrong axis itself. Default ``()``. Where any of them was told already in this run,
        this mistake is not told (it may not be the student's own); where none was, it is
        told as usual. It applies whether the mistake was found by a variant, a test or a
        step of the inference; unlike ``builds_on``, it hides the mistake only behind a
        helper's mistake that is actually told. Example::

            Mistake("layer_norm_over_columns", "layer_norm normalises each column of X ...", "layer_norm",
                    variants=(layer_norm_over_columns,),
                    echoes=("row_stats_over_columns", "row_stats_over_columns_flat"))

    words
        What ``{words}`` in ``message`` says when no step of the inference gave words of its
        own: when a variant or ``shows_in`` found the mistake, or a step whose words
        :func:`~grader.diagnoses.search.proven` left out (two ways of the mistake explain the
        answers alike). Default ``""``. A mistake the inference names from a
        :class:`~grader.diagnoses.inference.Step` is told that step's ``words`` instead.
        It matters only for a message that holds ``{words}``. Example::

            Mistake("layer_norm_eps_misplaced", "layer_norm adds eps {words}: divide by np.sqrt(var + eps).",
                    "layer_norm", words="in the wrong place")   # a Step("outside the square root", ...) says more

    caught_by
        Ids of the checks meant to catch the mistake (``"<module>.<name>"``, as the rubric
        names them). Only ``grader validate`` reads it, never grading: it grades each
        variant as a submission and fails unless each check named here is in the rubric and
        does not pass (besides the mistake being named, and no other). Default ``()``:
        validation then wants the variant to lose points on some check, and warns that the
        mistake names no check. It matters only for a mistake with variants. Example::

            Mistake("layer_norm_no_eps", "layer_norm never adds eps ...", "layer_norm",
                    variants=(layer_norm_no_eps,),
                    caught_by=("layer_norm.constant_row", "layer_norm.uses_eps"))
    """

    id: str
    message: str
    function: str
    variants: tuple[Callable, ...] = ()
    shows_in: Callable[[list[Probe], list[Answer], list[Answer]], bool] | None = None
    # Functions it calls: a mistake there would show here too, so it must be right.
    builds_on: tuple[str, ...] = ()
    # What the mistake does to this very head, read from its answers (any function's): the
    # message's "{consequence}". A consequence is told only as the head's answers show it.
    consequence: Callable[[Evidence], str] | None = None
    # A mistake in what the function does besides its answers (it changes its inputs): the
    # answers may still be wrong in other ways, which the inference then reads.
    beside_answers: bool = False
    # The mistake of a helper this one repeats in the function's own code (a step of the
    # helper, made where the function computes the helper's work itself): not told where the
    # helper is told it, as the function may be calling that helper.
    same_as: str | None = None
    # Mistakes of its helpers that would give the same answers when the function calls them
    # (a normalisation along the wrong axis, in a function that calls it): where the head is told one,
    # this one is not proven, and not told.
    echoes: tuple[str, ...] = ()
    # What a message's "{words}" says when no step of the inference gave its own (a variant matched).
    words: str = ""
    # The checks meant to catch it: ``grader validate`` grades its variant and wants points
    # lost on each of them (none named: any check will do).
    caught_by: tuple[str, ...] = ()

    def told(self, evidence: Evidence, words: str = "") -> str:
        """The message for a head whose answers are ``evidence`` (``words``: the step the
        inference found, for a message that names it).

        ``message`` with ``{consequence}`` replaced by ``consequence(evidence)`` (``""``
        without one) and ``{words}`` by ``words``, or by :attr:`words` where ``words`` is
        empty. Handy to read a message as a student will::

            mistake.told(Evidence(PROBES, {}), "the step's words")
        """
        consequence = self.consequence(evidence) if self.consequence is not None else ""
        return self.message.format(consequence=consequence, words=words or self.words)


# The student's own function as the diagnosis calls it: arguments in, its value out; a call
# that raised raises :class:`HelperRaised`.
#: The type of the student's own function as the diagnosis calls it (what
#: :func:`student_function` returns, and what :attr:`Mistakes.over_helpers` is given):
#: positional arguments in, the student's value out, each call made in the student's
#: sandbox; a call that raised raises in turn, so the lesson's code around it raises too.
StudentCall = Callable[..., Any]


class HelperRaised(Exception):
    """The student's helper raised, when the lesson's function called it (see
    :attr:`Mistakes.over_helpers`): the lesson's function raises the same."""

    def __init__(self, raised: str | None) -> None:
        super().__init__(raised)
        self.raised = raised


@dataclass(frozen=True)
class BatchAxis:
    """A function that code written for a batch may be: the id of that mistake, and which of
    its arguments take the batch axis (the sequences, not the weights).

    Given in :attr:`Mistakes.batch_axis`, under the function's name. A student who copied
    code written for ``(batch, n, d)`` arrays (``X.transpose(0, 2, 1)``) raises on every
    probe; the diagnosis then calls each probe again with a leading axis of one on the
    arrays named here (``X[None]``), and if every answer comes back with a leading axis of
    one, it names the mistake and reads the function's other mistakes from those answers.

    Fields:

    mistake
        The id of the :class:`Mistake` to name (usually one with a ``consequence`` and no
        variant); it must be in :attr:`Mistakes.mistakes`, or the student is told no
        diagnosis at all. Example: ``"attention_needs_batch_axis"``.
    arguments
        The indices of the positional arguments that take the batch axis: the sequences,
        not the weights (a mask broadcasts). Only arrays among them are given the axis.
        Example: ``(0,)`` for ``layer_norm(X, gamma, beta)``, ``(0, 1, 2)`` for a function of
        ``(Q, K, V, mask)``.

    Example::

        BatchAxis("layer_norm_needs_batch_axis", (0,))   # X, not gamma nor beta
    """

    mistake: str
    arguments: tuple[int, ...]

    def batched(self, probe: Probe, axes: int = 1) -> Probe:
        """``probe`` with ``axes`` leading axes of one on each array among :attr:`arguments`
        (``X`` becomes ``X[None]``, or ``X[None, None]``); the other arguments and the
        keywords as they are."""
        leading = (None,) * axes
        args = tuple(arg[leading] if i in self.arguments and isinstance(arg, np.ndarray) else arg for i, arg in enumerate(probe.args))
        return Probe(probe.function, args, probe.kwargs)


# An assignment's inference of one function: from the head's answers to its probes, a way
# to call the head (its own helpers, on inputs the inference chooses), how its helpers stand
# (RIGHT, WRONG: read over the head's own, UNREADABLE: unfinished or unanswered), and how
# every function read before it stands.
#: The type of one function's inference (:attr:`Mistakes.inferred`):
#: ``inferred(got, call, helpers, standing) -> Finding``, with ``got`` the student's answers
#: to the function's probes, ``call`` a way to call the student's code on any
#: :class:`Probe`, ``helpers`` how the function's helpers stand (:data:`RIGHT`,
#: :data:`WRONG` or :data:`UNREADABLE`) and ``standing`` how each function read before it
#: stands.
Inferred = Callable[[list[Answer], Callable[[Probe], Answer], str, Mapping[str, str]], inference.Finding]
#: How a function stands once read, as an inference is told (its ``helpers`` and
#: ``standing`` arguments): :data:`RIGHT` (every answer the reference's), :data:`WRONG`
#: (wrong answers, right only through a batch of one, right only over wrong helpers of the
#: student's, or an unfinished function that still follows its input) and
#: :data:`UNREADABLE` (unanswered, unfinished and no longer following its input, or right
#: only over helpers that are unreadable themselves).
RIGHT, WRONG, UNREADABLE = "right", "wrong", "unreadable"


@dataclass(frozen=True, eq=False)
class Mistakes:
    """An assignment's known mistakes: the probes of each function, the reference that
    answers them, the mistakes in the order they are told, and optionally: each function's
    parameters and helpers (the functions it calls in the lesson), the lesson's function
    over the student's own helpers, an inference of each function, and the placeholders of
    the lesson that an unfinished function returns.

    What an assignment's ``mistakes`` callable returns (:attr:`Assignment.mistakes
    <grader.assignments.Assignment.mistakes>`): build it once, as a module constant of
    ``mistakes.py`` (the reference's and the variants' answers are kept per
    :class:`Mistakes` object), and a course's ``mistakes.py`` that fails is refused when
    the assignment loads. When a diagnosis runs (a check failed on a wrong or raising
    answer, and none timed out or crashed), every function in ``probes`` is called on its
    probes and read in turn, and what is found is told of the functions whose checks
    failed: nothing of a function right on every probe (except a ``beside_answers``
    mistake), a sentence for an unfinished one, else its mistakes and what the inference
    proves or observes.

    Fields (the first three are required, the others default to ``{}``: none):

    probes
        Function name -> the :class:`Probe` s it is called on, in order. Only the functions
        listed here are diagnosed. The keys' order is the order they are read in: list a
        function after the functions it calls (``row_stats`` before ``layer_norm``), since
        ``builds_on``, ``echoes``, ``same_as``, ``helpers`` and the inference see only
        functions read before. Each probe's ``function`` is its key. Choose probes that tell
        each variant apart from the reference and from the other variants (a wide, a square
        and a tall matrix, a constant row, an optional argument passed). Example::

            probes={
                "row_stats": [Probe("row_stats", (WIDE,)), Probe("row_stats", (SQUARE,))],
                "layer_norm": [Probe("layer_norm", (WIDE, GAMMA, BETA)),
                               Probe("layer_norm", (WIDE, GAMMA, BETA), {"eps": 0.5})],
            }

    reference
        Function name -> the trusted function that answers the probes, for every key of
        ``probes`` (usually the assignment's reference wrappers). A function whose answers
        equal the reference's on every probe (:func:`same`) is right: no mistake of it is
        told, except a ``beside_answers`` one. Example: ``reference=FUNCTIONS``, with
        ``FUNCTIONS = {"row_stats": row_stats, "layer_norm": layer_norm}``.
    mistakes
        Every known :class:`Mistake`, of every function, in the order they are tested and
        told (a report lists one function's mistakes in this order); each ``id`` once.
        Example: ``mistakes=(row_stats_over_columns, layer_norm_no_eps)``, or a tuple of
        ``Mistake(...)`` written in place.
    parameters
        Function name -> its parameter names in order, as the handout names them. Used only
        to tell an unfinished function that returns one of its arguments unchanged ("layer_norm
        returns its input X unchanged: is it written yet?"); without it, such a function is
        read as a wrong one (its mistakes tested, its inference run). Example::

            parameters={function.name: function.parameters for function in ASSIGNMENT.functions}

    helpers
        Function name -> the functions it calls in the lesson, each read before it.
        It changes four things: ``over_helpers`` is tried only for a function whose helpers
        are not all right; the inference is told how the helpers stand (the worst of them:
        :data:`RIGHT` when a function has none, :data:`UNREADABLE` for a helper not read
        before it); a stub's sentence is not said where a stub among the helpers, and
        theirs, may be what the function passes on (:attr:`Stub.comes_from`); and a
        function that answers only through a batch of one is not told so where a helper of
        it needed the batch too. Example: ``helpers={"layer_norm": ("row_stats",)}``.
    over_helpers
        Function name -> the lesson's function written over the student's own helpers:
        ``over_helpers[name](student)`` returns a list of functions, one per way the lesson
        may call them, where ``student(helper, **kwargs)`` is the student's ``helper`` as a
        :data:`StudentCall` (each call made in the sandbox, with ``kwargs`` added). Where a
        function is wrong, its helpers (``helpers``) are not all right, and one of these
        gives every answer the student's function gave (raises of the same kind included),
        the function is taken to be right over wrong helpers: none of its mistakes is told
        (its helpers' are, where they are made), and the functions that call it see it
        :data:`WRONG` (or :data:`UNREADABLE`, over unreadable helpers). Without ``helpers``
        for the function, it is never tried. Example::

            def layer_norm_over(student):
                def layer_norm(X, gamma, beta, eps=1e-5):
                    mean, var = student("row_stats")(X)
                    return gamma * (X - mean) / np.sqrt(var + eps) + beta
                return [layer_norm]

            over_helpers={"layer_norm": layer_norm_over}

    inferred
        Function name -> its inference (an :data:`Inferred`), called for a wrong function
        when no mistake other than a ``beside_answers`` one matched: ``inferred(got, call,
        helpers, standing)``, with ``got`` the student's answers to the function's probes,
        ``call(probe)`` the student's :class:`Answer` to any probe (to call their helpers
        on inputs of its choosing), ``helpers`` how the function's helpers stand, and
        ``standing`` how each function read before it stands. It returns a
        :class:`~grader.diagnoses.inference.Finding`: each step's ``mistake`` must be an id
        of ``mistakes`` (it is told with the step's words), and each observed sentence is
        told as an ``observed`` entry. See :mod:`grader.authoring.steps`. Example::

            def infer_layer_norm(got, call, helpers, standing):
                probes = [(probe.args, probe.kwargs) for probe in PROBES["layer_norm"]]
                wrong = proven(explain(LAYER_NORM, probes, values_read(got)))
                return finding(wrong, "layer_norm divides by") if wrong is not None else Finding([], [])

            inferred={"layer_norm": infer_layer_norm}

    placeholders
        Function name -> ``placeholder(probes, answers)``, which returns a :class:`Stub`
        for an unfinished function of the lesson's own kind (``X - mean`` not yet divided,
        uniform weights), else None. It is asked only for a wrong function that none of the
        generic placeholders fits (:mod:`grader.diagnoses.unfinished`: NotImplementedError,
        None, zeros, an argument returned, one answer whatever the input). A stub's sentence
        is told (id ``unfinished``), and nothing else of the function. Example::

            def layer_norm_placeholder(probes, answers):
                centred = [p.args[0] - p.args[0].mean(axis=-1, keepdims=True) for p in probes]
                if all(a.value is not RAISED and same(a.value, c) for a, c in zip(answers, centred)):
                    return Stub("layer_norm returns X - mean, not yet divided by np.sqrt(var + eps): is it finished?",
                                follows_input=True, kind="centred")
                return None

            placeholders={"layer_norm": layer_norm_placeholder}

    batch_axis
        Function name -> a :class:`BatchAxis`, for a function students may write for a
        leading batch axis. Where it raised on every probe (not ``NotImplementedError``),
        each probe is sent again with those arguments given a leading axis of one; if every
        answer comes back with that axis, the BatchAxis's mistake is named, and the function
        is read on from those answers (that axis taken off): its other mistakes are told as
        usual, and ``Evidence.unbatched`` keeps what it raised. It then stands
        :data:`WRONG`, even where those answers are right. Example::

            batch_axis={"layer_norm": BatchAxis("layer_norm_needs_batch_axis", (0,))}

    atol
        How far apart two answers may be and still be the same (with a relative tolerance
        of 1e-4, as :func:`same`), default ``1e-5``, the checks' own: whether a function is
        right, and whether a student's answers are a variant's. Lower it for an assignment
        whose answers are tiny where a mistake shows (a norm of a row of 1e-8, which a
        constant added inside the square root changes by 1e-6): ``validate`` says when a
        variant answers every probe as the reference does within it. Example: ``atol=1e-12``.

    A complete small one (``tests/courses/layer_norm/mistakes.py`` is a worked example)::

        KNOWN = Mistakes(
            probes={"layer_norm": [Probe("layer_norm", (fixed_matrix(1, 3, 4), GAMMA, BETA))]},
            reference=FUNCTIONS,
            mistakes=(
                Mistake("layer_norm_no_eps", "layer_norm never adds eps ...", "layer_norm",
                        variants=(layer_norm_no_eps,), caught_by=("layer_norm.uses_eps",)),
            ),
        )
    """

    probes: Mapping[str, list[Probe]]
    reference: Mapping[str, Callable]
    mistakes: tuple[Mistake, ...]
    parameters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    helpers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The lesson's function with the student's helpers in their place, once per way it may
    # call them, given the student's functions by name: a function whose answers one of
    # these gives is right, whatever its helpers do, and is told nothing.
    over_helpers: Mapping[str, Callable[[Callable[[str], StudentCall]], list[Callable]]] = field(default_factory=dict)
    inferred: Mapping[str, Inferred] = field(default_factory=dict)
    # An unfinished function's sentence beyond the generic ones (grader.diagnoses.unfinished).
    placeholders: Mapping[str, Callable[[list[Probe], list[Answer]], unfinished.Stub | None]] = field(default_factory=dict)
    # Functions that may be written for a leading batch axis: they raise on every probe and
    # answer each with a batch of one; the mistake is named, and the function read through it.
    batch_axis: Mapping[str, BatchAxis] = field(default_factory=dict)
    atol: float = 1e-5

    @functools.cached_property
    def by_id(self) -> dict[str, Mistake]:
        """Each mistake by its id (``known.by_id["layer_norm_no_eps"]``); of two with one id,
        the last."""
        return {mistake.id: mistake for mistake in self.mistakes}


MAX_PICTURE_SIDE = 8


def fixed_matrix(seed: int, rows: int, cols: int, scale: float = 1.0) -> np.ndarray:
    """A probe's matrix: fixed, one-decimal values, the same on every machine and readable.

    ``seed``: which matrix (any int; give each probe matrix its own, so none equals another
    by chance); ``rows`` and ``cols``: its shape; ``scale`` (default 1.0): a factor applied
    after rounding (values about N(0, 1) rounded to one decimal, times ``scale``: large
    scores for a probe of overflow). Returns a float64 array. Example::

        WIDE, SQUARE, LARGE = fixed_matrix(1, 3, 4), fixed_matrix(2, 3, 3), fixed_matrix(3, 2, 4, 30.0)
    """
    return np.round(np.random.default_rng(seed).normal(size=(rows, cols)), 1) * scale


def weights(answer: Answer, index: tuple[int, ...] = ()) -> list[list[float | None]] | None:
    """A from an answer ``(out, A)`` (``A[index]``) as rows of numbers (None for nan or inf),
    or None when the answer holds no small 2-D A there.

    ``answer``: an :class:`Answer` whose value is a pair (the weights second); ``index``
    (default ``()``: A itself): picks a 2-D matrix out of a stack, ``(0,)`` for head 0 of
    ``(n_heads, n, n)`` weights. "Small" is at most 8 on a side; entries are rounded to 4
    decimals. It is what the report draws for a :class:`~grader.assignments.Picture`, and
    a consequence may read the student's weights with it. Example::

        A = weights(answer)            # [[0.5, 0.5], [0.1, 0.9]], or None
        head_0 = weights(answer, (0,))
    """
    value = answer.value
    if not isinstance(value, tuple) or len(value) != 2:
        return None
    try:
        A = np.asarray(value[1], dtype=float)
        A = A[index] if index else A
    except (TypeError, ValueError, IndexError):
        return None
    if A.ndim != 2 or max(A.shape) > MAX_PICTURE_SIDE:
        return None
    return [[round(float(v), 4) if np.isfinite(v) else None for v in row] for row in A]


def run(function: Callable, probe: Probe) -> Answer:
    """What ``function`` (the reference, a variant, or the lesson's function over the
    student's helpers) answers to ``probe``, in this process."""
    args = tuple(np.copy(arg) if isinstance(arg, np.ndarray) else arg for arg in probe.args)
    try:
        with np.errstate(all="ignore"):
            return Answer(function(*args, **probe.kwargs))
    except HelperRaised as raised:
        return Answer(RAISED, raised=raised.raised)
    except Exception as error:
        return Answer(RAISED, raised=type(error).__name__)


def same(got: Any, expected: Any, atol: float = 1e-5) -> bool:
    """Equal answers: both raised, or the same structure of arrays with the same kind
    (bool or number) and shape, equal within tolerance, nan where nan.

    How the diagnosis compares answers (a student's with the reference's or a variant's),
    as the checks do: ``got`` and ``expected`` are answer values (arrays, tuples of them,
    numbers, None, or :data:`RAISED`). Strings are equal only to the same string (two
    raises are equal, whatever their exceptions); tuples part by part; None only to None;
    else arrays of one shape, both bool or both not, within
    ``atol + 1e-4 * abs(expected)`` (``atol`` default 1e-5), nan where nan, and an infinite
    expected value only to itself. A float32 answer is the same as a float64 one.
    Example::

        same(answer.value, reference(*probe.args))
        same(answer.args_after[0], probe.args[0])    # False: the call changed its first argument
    """
    if isinstance(got, str) or isinstance(expected, str):
        return isinstance(got, str) and isinstance(expected, str) and got == expected
    if isinstance(got, tuple) or isinstance(expected, tuple):
        return (
            isinstance(got, tuple) and isinstance(expected, tuple) and len(got) == len(expected)
            and all(same(a, b, atol) for a, b in zip(got, expected))
        )
    if got is None or expected is None:
        return got is None and expected is None
    try:
        got, expected = np.asarray(got), np.asarray(expected)
    except Exception:
        return False
    if got.shape != expected.shape or (got.dtype == bool) != (expected.dtype == bool):
        return False
    if got.dtype == object or expected.dtype == object:
        return False
    # The checks' tolerance: a float32 head's answers are "the same" as float64 ones.
    return inference.near(got.astype(float), expected.astype(float), atol)


def same_answer(got: Answer, expected: Answer, atol: float = 1e-5) -> bool:
    """:func:`same`, and where both raised, the same kind of exception (when both are known)."""
    if got.value is RAISED and expected.value is RAISED and got.raised and expected.raised:
        return got.raised == expected.raised
    return same(got.value, expected.value, atol)


def identical(a: Any, b: Any) -> bool:
    """The same answer bit for bit (nan where nan).

    ``a`` and ``b``: answer values; tuples and lists compare item by item, strings and None
    only to themselves, arrays with :func:`numpy.array_equal` (no tolerance). For a
    ``shows_in`` test that tells the very same call answered twice apart, where :func:`same`
    would forgive a small difference. Example::

        identical(answers[1].value, answers[2].value)   # probes 1 and 2 are the same call
    """
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return a is b or (isinstance(a, str) and a == b)
    if hasattr(a, "description") or hasattr(b, "description"):  # a value the sandbox could not send back
        return getattr(a, "description", a) == getattr(b, "description", b)
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except (TypeError, ValueError):
        return False


def changes_its_inputs(probes: list[Probe], answers: list[Answer], _: list[Answer]) -> bool:
    """A :attr:`Mistake.shows_in` test: some call left an argument changed.

    ``probes`` and ``answers``: the function's probes and the student's answers to them.
    True when, for some probe, an argument the student's call left (``args_after``)
    differs from what the probe passed (:func:`same`); calls that raised leave none and do
    not count, and the third argument (``_``, the reference's answers) is not read. Give it with
    ``beside_answers=True``, so that it is tested on right answers too. Example::

        Mistake("layer_norm_changes_inputs", "layer_norm changes its arguments in place ...",
                "layer_norm", shows_in=changes_its_inputs, beside_answers=True)
    """
    return any(
        answer.args_after and not all(same(after, before) for after, before in zip(answer.args_after, probe.args))
        for probe, answer in zip(probes, answers)
    )


def values_read(got: list[Answer]) -> list[Any]:
    """The answers' values as an inference reads them: a raise on purpose (NotImplementedError,
    an assert) marked :data:`inference.REFUSED`, as it proves nothing of any step.

    ``got``: the student's answers (an inference's first argument). Returns their values in
    order, each raise a string: ``"refused"`` for a raise on purpose, :data:`RAISED` for
    any other. What :func:`~grader.diagnoses.search.explain` takes as ``values``. Example::

        explained = explain(MODEL, [probe.args for probe in PROBES["layer_norm"]], values_read(got))
    """
    return [inference.REFUSED if answer.raised in DELIBERATE else answer.value for answer in got]


def student_function(call: Callable[[Probe], Answer], function: str, **kwargs: Any) -> StudentCall:
    """The head's own ``function`` as the lesson's code calls it: its value, or
    :class:`HelperRaised` where the call raised.

    ``call``: how the diagnosis calls the student's code (an inference's second argument);
    ``function``: the name of the student's function; ``kwargs``: keyword arguments added to
    every call (``ddof=0``). The function returned takes positional arguments only. Where
    the lesson's code runs around it (:attr:`Mistakes.over_helpers`), a raise of the
    student's function makes the lesson's function raise the same kind of exception.
    Example::

        own_row_stats = student_function(call, "row_stats")
        mean, var = own_row_stats(X)
    """

    def student(*args: Any) -> Any:
        answer = call(Probe(function, args, kwargs))
        if answer.value is RAISED:
            raise HelperRaised(answer.raised)
        return answer.value

    return student


def diagnose(
    call: Callable[[Probe], Answer],
    known: Mistakes,
    suspects: set[str] | None = None,
    failed_checks: Mapping[str, FailedCheck] | None = None,
    afresh: Callable[[], None] | None = None,
) -> list[dict[str, str]]:
    """The known mistakes whose behaviour ``call`` (the submission) shows, as ``{"id", "message"}``,
    then what the probes showed of a wrong function no mistake explains (``"id": "observed"``),
    and what an unfinished function does (``"id": "unfinished"``); of the functions in
    ``suspects`` only (None: every function), those a check found wrong.

    Each function is read in the order of :attr:`Mistakes.probes`, helpers first:

    - right on every probe, or right over the student's own helpers where those are not
      (a correct function over a helper that is a stub): nothing is said of it;
    - unfinished (a stub or a placeholder, :mod:`grader.diagnoses.unfinished`): it is told
      so, in words, and nothing else;
    - else its mistakes: the variants it matches, then the inference's steps.

    ``call`` answers one probe; it raises :class:`Unanswered` where the call tells nothing:
    the function it probed, or whose reading made it (on the head's own helpers, after the
    probes), is then not read, and the others are.

    A suspect that is wrong by itself (not merely over a wrong helper) and is told nothing
    else gets the sentence of :mod:`grader.diagnoses.located`: where its answers first
    differ from the lesson's. One right on every probe is told which checks found it wrong
    anyway, and what they found, from ``failed_checks`` (each failed check that costs points,
    by id): those whose example called it alone. A head told nothing else that still lost
    points is told at least where.

    ``afresh`` forgets what the submission kept between calls (the next call starts a fresh
    process). With it, a wrong function whose answers change when its probes are made again
    from a fresh process is told only that its answers depend on earlier calls (see
    :func:`_history_dependent`): nothing else its answers seem to show is proven then, nor
    of the functions over it. Without it, only an answer kept whole is proven so.
    """
    lost: list[Probe] = []  # calls that told nothing: once one is lost, no fault is located by elimination

    def call_counted(probe: Probe) -> Answer:
        try:
            return call_given(probe)
        except Unanswered:
            lost.append(probe)
            raise

    call_given, call = call, call_counted
    answers: dict[str, list[Answer]] = {}
    for function, probes in known.probes.items():
        try:
            answers[function] = [_as_tuple(call(probe)) for probe in probes]
        except Unanswered:
            continue
    suspects = (set(known.probes) if suspects is None else suspects) & set(answers)
    history = _history_dependent(known, answers, call, afresh) if afresh is not None and suspects else {}
    evidence = Evidence(known.probes, answers, {})
    standing: dict[str, str] = {}  # RIGHT, WRONG or UNREADABLE, once worked out
    stubs: dict[str, str] = {}  # each stub read so far, and its kind
    found: list[dict[str, str]] = []
    silent_wrong: list[str] = []  # wrong over a wrong helper, and told nothing of their own
    right_yet_failing: list[str] = []  # right on every probe, though a check of theirs failed
    for function in known.probes:
        if function not in answers or _helpers_below(known, function) & set(history):
            # Over a helper whose answers depend on earlier calls, its own answers prove nothing.
            standing[function] = UNREADABLE
            continue
        expected = _answers(known, known.reference[function], function)
        if function in history:
            standing[function] = WRONG
            if function in suspects:
                found.append({"id": OBSERVED, "message": history[function]})
            continue
        helpers = known.helpers.get(function, ())
        below = _worst(standing.get(helper, UNREADABLE) for helper in helpers)
        right = all(same(a.value, b.value, known.atol) for a, b in zip(answers[function], expected))
        try:
            batched, axes = (None, 0) if right else _through_a_batch_of_one(known, function, answers[function], call)
            if batched is not None:  # read through a batch of one from here on
                evidence.unbatched[function], answers[function] = answers[function], batched
                evidence.batch_axes[function] = axes
            if not right and below != RIGHT and _follows_helpers(known, function, answers[function], call, axes):
                standing[function] = WRONG if below == WRONG else UNREADABLE  # right, over helpers that are not
                continue
        except Unanswered:
            standing[function] = UNREADABLE
            continue
        # A function whose helper needs a batch too may raise only through it: its own need is not proven.
        if batched is not None and function in suspects and not any(helper in evidence.unbatched for helper in helpers):
            mistake = known.by_id[known.batch_axis[function].mistake]
            found.append({"id": mistake.id, "message": mistake.told(evidence)})
        got = answers[function]
        told_before = len(found)
        if all(same(a.value, b.value, known.atol) for a, b in zip(got, expected)):
            # Right through a batch of one, it still raises where the lesson's code calls it.
            standing[function] = WRONG if batched is not None else RIGHT
            if function in suspects:  # right answers, but it may still change its inputs
                found += _mistakes_of(known, function, evidence, standing, RIGHT, call, beside_answers_only=True)
                if len(found) == told_before and below == RIGHT and batched is None:
                    changed = located.changed_in_place(function, _parameters(known, function), known.probes[function], got)
                    if changed:
                        found.append({"id": OBSERVED, "message": changed})
                    else:
                        right_yet_failing.append(function)
            continue
        stub = _unfinished(known, function, got, expected)
        if stub is not None:
            standing[function] = WRONG if stub.follows_input else UNREADABLE
            # What a stub below it returns (zeros, uniform weights) or raises may be all this
            # one passes on: then its own sentence would not be proven, and is not said.
            kinds_below = {kind for helper, kind in stubs.items() if helper in _helpers_below(known, function)}
            inherited = stub.may_come_from(kinds_below) or _raised_where_another_did(
                function, got, {other: answers[other] for other in stubs}
            )
            if function in suspects and not inherited:
                found.append({"id": UNFINISHED, "message": stub.sentence})
            stubs[function] = stub.kind
            continue
        standing[function] = WRONG
        if function in suspects:
            found += _own_asserts(function, got)
            told = {entry["id"] for entry in found}
            found += [
                entry for entry in _mistakes_of(known, function, evidence, standing, below, call)
                if entry["id"] not in known.by_id or not _echoes(known.by_id[entry["id"]]) & told
            ]
            kept = None
            if not any(entry["id"] in known.by_id for entry in found[told_before:]):
                kept = _kept_answers(known, function, got, expected, call)
            if kept is not None:  # its other answers may be kept ones too: what was read of them is not said
                found[told_before:] = [{"id": OBSERVED, "message": kept}]
                continue
            # Here the function is not the lesson's over its own helpers (else it was left above), so
            # it answers wrongly of its own, unless a helper went unread or answers a call two ways.
            helpers_read = (
                below != UNREADABLE and not lost and _reproducible(known, _helpers_below(known, function), answers)
            )
            # Over a wrong helper, what differs may be the helper's doing (a function need not call its
            # helpers as the lesson's does): the helper's sentence says where. Over right ones, they are
            # still named beside it: right on their own probes, a helper may be wrong on the values the
            # function gives it (a float16 one rounds them).
            if len(found) == told_before and helpers_read and below == RIGHT:
                found += _located(known, function, got, expected, helpers=tuple(sorted(_helpers_below(known, function))))
            elif len(found) == told_before and helpers_read:
                found += _located_over_helpers(known, function, got, expected, call)
            if len(found) == told_before:
                silent_wrong.append(function)
    failed_checks = failed_checks or {}
    for function in right_yet_failing:  # found wrong only by checks that called it alone
        alone = {check: failed.feedback for check, failed in sorted(failed_checks.items()) if failed.called == {function}}
        if alone:
            below = tuple(sorted(_helpers_below(known, function)))
            found.append({"id": OBSERVED, "message": located.right_on_every_probe(function, alone, below)})
    if not found and silent_wrong:  # every head that loses points is told where, at least
        first = silent_wrong[0]
        expected = _answers(known, known.reference[first], first)
        found += _located(known, first, answers[first], expected, helpers=tuple(sorted(_helpers_below(known, first))))
    if not found and failed_checks:
        found.append({"id": OBSERVED, "message": located.no_probe_shows(sorted(failed_checks))})
    return _unique(found)


def _history_dependent(
    known: Mistakes,
    answers: Mapping[str, list[Answer]],
    call: Callable[[Probe], Answer],
    afresh: Callable[[], None],
) -> dict[str, str]:
    """The wrong functions whose answer to a probe changes when all their probes are made again
    in reverse order (functions too) from a fresh process, which ``afresh`` starts, each
    with its sentence: that of an answer kept from an earlier call where that proof holds
    too (:func:`located.kept_from_earlier`, which a hardcoded answer would pass alone), else
    that of the probe that changed. A cache, a global or a counter keeps the first inputs it
    met, so the other order meets other ones first. A function that answers a repeated
    probe two ways is random, not kept: the catalogue's own sentence tells it."""
    wrong = {
        function: expected for function in known.probes if function in answers
        for expected in [_answers(known, known.reference[function], function)]
        if not all(same(a.value, b.value, known.atol) for a, b in zip(answers[function], expected))
        and _reproducible(known, {function} | _helpers_below(known, function), answers)
        and _unfinished(known, function, answers[function], expected) is None  # a stub keeps nothing: no fresh start for it
    }
    if not wrong:
        return {}
    # The kept answer's proof calls on from the state the answers were given in: before the fresh start.
    kept = {function: _kept_answers(known, function, answers[function], expected, call) for function, expected in wrong.items()}
    afresh()
    found: dict[str, str] = {}
    for function in reversed(list(wrong)):
        try:
            again = [_as_tuple(call(probe)) for probe in reversed(known.probes[function])][::-1]
        except Unanswered:
            continue
        changed = [
            i for i, (first, later) in enumerate(zip(answers[function], again))
            if not (same_answer(first, later, known.atol) or identical(first.value, later.value))
        ]
        if changed:
            found[function] = kept[function] or _depends_on_history(known, function, wrong[function], changed[0], again[changed[0]])
    return found


def _depends_on_history(known: Mistakes, function: str, expected: Sequence[Answer], index: int, afresh: Answer) -> str:
    """The sentence of a function whose answer to its probe ``index`` changed when called ``afresh``."""
    try:
        return located.depends_on_history(
            function, _parameters(known, function), known.probes[function][index], same_answer(afresh, expected[index], known.atol),
            tuple(sorted(_helpers_below(known, function))),
        )
    except Exception:  # a sentence that fails to be worded still says what is proven
        return f"{function}'s answers depend on earlier calls: compute every answer from its own inputs."


def _reproducible(known: Mistakes, functions: set[str], answers: Mapping[str, list[Answer]]) -> bool:
    """Whether each of ``functions`` gave one answer to each probe repeated among its probes."""
    for function in functions:
        probes, got = known.probes.get(function, []), answers.get(function, [])
        for i, j in itertools.combinations(range(min(len(probes), len(got))), 2):
            if identical(probes[i].args, probes[j].args) and probes[i].kwargs == probes[j].kwargs:
                if not identical(got[i].value, got[j].value):
                    return False
    return True


def _parameters(known: Mistakes, function: str) -> tuple[str, ...]:
    """The function's parameters as the assignment names them, else as its reference does."""
    if known.parameters.get(function):
        return tuple(known.parameters[function])
    try:
        return tuple(inspect.signature(known.reference[function]).parameters)
    except (TypeError, ValueError):
        return ()


def _located(
    known: Mistakes,
    function: str,
    got: list[Answer],
    expected: Iterable[Answer],
    lesson: str = "the lesson's code",
    helpers: tuple[str, ...] = (),
) -> list[dict[str, str]]:
    """The sentence that locates a wrong function's fault, when nothing else is told of it
    (held to ``expected``, the answers ``lesson`` names; ``helpers``: those it calls whose
    fault it may be, named beside it), and what it changed in place."""
    expected = list(expected)
    differs = [not same(a.value, b.value, known.atol) for a, b in zip(got, expected)]
    parameters, probes = _parameters(known, function), known.probes[function]
    try:
        where = located.sentence(function, parameters, probes, got, expected, differs, lesson, helpers)
    except Exception:  # a sentence of last resort that fails never costs the sentences found before it
        where = None
    return [{"id": OBSERVED, "message": sentence} for sentence in (where, _changed(known, function, got)) if sentence]


def _changed(known: Mistakes, function: str, got: list[Answer]) -> str | None:
    """The sentence of a function that changed some of its arguments in place, if it did."""
    try:
        return located.changed_in_place(function, _parameters(known, function), known.probes[function], got)
    except Exception:  # as for _located
        return None


def _located_over_helpers(
    known: Mistakes, function: str, got: list[Answer], expected: tuple[Answer, ...], call: Callable[[Probe], Answer]
) -> list[dict[str, str]]:
    """A function wrong over wrong helpers, located against the lesson's function over those
    very helpers, so that what differs is its own doing; only where its answers show it calls
    them as the lesson's does (on some probe, an answer, or a part of one, is the helpers'
    wrong one), and where the lesson's function over them answers every probe. Else, and
    for an assignment that gives no such function, it changed arguments at most are told."""
    told = _changed(known, function, got)
    changed = [{"id": OBSERVED, "message": told}] if told else []
    candidates = known.over_helpers.get(function)
    if candidates is None:
        return changed
    try:
        candidate = candidates(lambda name, **kwargs: student_function(call, name, **kwargs))[0]
        made = [run(candidate, probe) for probe in known.probes[function]]
    except (Unanswered, IndexError):
        return changed
    if any(answer.value is RAISED for answer in made) or not any(
        _shares_a_wrong_part(mine.value, theirs.value, lesson.value) for mine, theirs, lesson in zip(got, made, expected)
    ):
        return changed
    helpers = " and ".join(known.helpers.get(function, ()))
    return _located(known, function, got, made, f"the lesson's {function} over your own {helpers}")


def _shares_a_wrong_part(mine: Any, theirs: Any, lesson: Any) -> bool:
    """Whether an answer, or a part of a pair, is the helpers' wrong one (not the lesson's)."""
    pairs = list(zip(mine, theirs, lesson)) if all(isinstance(v, tuple) and len(v) == len(lesson) for v in (mine, theirs)) and isinstance(lesson, tuple) else [(mine, theirs, lesson)]
    return any(same(a, b) and not same(b, c) for a, b, c in pairs)


def _kept_answers(
    known: Mistakes, function: str, got: list[Answer], expected: tuple[Answer, ...], call: Callable[[Probe], Answer]
) -> str | None:
    """The sentence of a function whose answers depend on an earlier call, if they prove it."""
    differs = [not same(a.value, b.value, known.atol) for a, b in zip(got, expected)]
    try:
        return located.kept_from_earlier(
            function, _parameters(known, function), known.probes[function], got, differs, call, known.reference[function]
        )
    except Unanswered:
        return None
    except Exception:  # as for _located: it never costs the sentences found before it
        return None


def _echoes(mistake: Mistake) -> set[str]:
    return set(mistake.echoes) | ({mistake.same_as} if mistake.same_as else set())


def _helpers_below(known: Mistakes, function: str) -> set[str]:
    """The functions ``function`` builds on in the lesson, and those they build on."""
    below: set[str] = set()
    waiting = list(known.helpers.get(function, ()))
    while waiting:
        helper = waiting.pop()
        if helper not in below:
            below.add(helper)
            waiting += known.helpers.get(helper, ())
    return below


def _raised_where_another_did(function: str, got: list[Answer], answers: dict[str, list[Answer]]) -> bool:
    """Whether each of the function's raises came from a line where a stub read before it
    raised the same (a stub it calls, whichever it is)."""
    lines = {(answer.raised, answer.line) for answer in got if answer.value is RAISED}
    if not lines or any(line is None for _, line in lines):
        return False
    elsewhere = {
        (answer.raised, answer.line) for other, theirs in answers.items() if other != function
        for answer in theirs if answer.value is RAISED
    }
    return lines <= elsewhere


def _through_a_batch_of_one(
    known: Mistakes, function: str, got: list[Answer] | None, call: Callable[[Probe], Answer]
) -> tuple[list[Answer] | None, int]:
    """The answers of a function that raised on every probe but answers each one with every
    array given a leading batch axis of one (or two: code written for (batch, heads, n, d)),
    those axes taken off again, and how many; else (None, 0)."""
    if function not in known.batch_axis or not got or not all(
        answer.value is RAISED and answer.raised not in (unfinished.NOT_IMPLEMENTED, unfinished.NOT_DEFINED) for answer in got
    ):
        return None, 0
    for axes in (1, 2):
        batched = []
        for probe in known.probes[function]:
            answer = _unbatched(_as_tuple(call(known.batch_axis[function].batched(probe, axes))), axes)
            if answer is None:
                break
            batched.append(answer)
        else:
            return batched, axes
    return None, 0


def _unbatched(answer: Answer, axes: int = 1) -> Answer | None:
    """An answer to a batch of one with its ``axes`` leading axes of one taken off, if it has them."""
    value = answer.value
    parts = value if isinstance(value, tuple) else (value,)
    ones = (1,) * axes
    if value is RAISED or not all(isinstance(part, np.ndarray) and part.shape[:axes] == ones for part in parts):
        return None
    unwrapped = tuple(part[(0,) * axes] for part in parts)
    after = tuple(arg[(0,) * axes] if isinstance(arg, np.ndarray) and arg.shape[:axes] == ones else arg for arg in answer.args_after)
    return Answer(unwrapped if isinstance(value, tuple) else unwrapped[0], after)


def _as_tuple(answer: Answer) -> Answer:
    """A list of values read as the tuple it stands for (``return [out, A]`` unpacks as ``return out, A``)."""
    if isinstance(answer.value, list):
        return dataclasses.replace(answer, value=tuple(answer.value))
    return answer


def _own_asserts(function: str, got: list[Answer]) -> list[dict[str, str]]:
    """What an assert in the function's own code did: it failed on some probes, not all."""
    failed = sum(answer.raised == "AssertionError" for answer in got)
    if not failed or failed == len(got):
        return []
    return [{"id": OBSERVED, "message": (
        f"{function} raised AssertionError (an assert in its code failed) on {failed} of the {len(got)} inputs the "
        "diagnosis tried, and answered the others; the checks draw inputs like those, so the assert costs points: "
        "an assert should hold for every input the lesson allows."
    )}]


def _worst(standings: Iterable[str]) -> str:
    standings = set(standings)
    return UNREADABLE if UNREADABLE in standings else WRONG if WRONG in standings else RIGHT


def _follows_helpers(
    known: Mistakes, function: str, got: list[Answer], call: Callable[[Probe], Answer], axes: int = 0
) -> bool:
    """Whether the lesson's ``function`` over the student's own helpers gives every answer
    (``axes``: how many leading axes of one the answers were read through, the lesson's
    function called so too)."""
    if function not in known.over_helpers:
        return False
    probes = known.probes[function]
    if axes:
        probes = [known.batch_axis[function].batched(probe, axes) for probe in probes]
    for candidate in known.over_helpers[function](lambda name, **kwargs: student_function(call, name, **kwargs)):
        made = [run(candidate, probe) for probe in probes]
        if axes:
            made = [_unbatched(answer, axes) or Answer(RAISED) for answer in made]
        if all(same_answer(answer, mine, known.atol) for answer, mine in zip(got, made)):
            return True
    return False


def _unfinished(known: Mistakes, function: str, got: list[Answer], expected: tuple[Answer, ...]) -> unfinished.Stub | None:
    probes = known.probes[function]
    stub = unfinished.described(
        function, known.parameters.get(function, ()), [probe.args for probe in probes], got, [a.value for a in expected]
    )
    if stub is None and function in known.placeholders:
        stub = known.placeholders[function](probes, got)
    return stub


def _mistakes_of(
    known: Mistakes,
    function: str,
    evidence: Evidence,
    standing: dict[str, str],
    below: str,
    call: Callable[[Probe], Answer],
    beside_answers_only: bool = False,
) -> list[dict[str, str]]:
    """A wrong function's mistakes: the variants and tests it matches, then what the
    inference proves of it (when nothing but what it does besides its answers is named)."""
    probes, got = known.probes[function], evidence.answers[function]
    expected = list(_answers(known, known.reference[function], function))
    found = []
    for mistake in known.mistakes:
        if mistake.function != function or not all(standing.get(f) == RIGHT for f in mistake.builds_on):
            continue
        if beside_answers_only and not mistake.beside_answers:
            continue
        if mistake.shows_in is not None:
            matched = mistake.shows_in(probes, got, expected)
        else:
            matched = any(_shows_variant(known, variant, function, got) for variant in mistake.variants)
        if matched:
            found.append({"id": mistake.id, "message": mistake.told(evidence)})
    if not beside_answers_only and not found:
        found = _named_where_it_answered(known, function, evidence, standing)
    if beside_answers_only or function not in known.inferred or any(not known.by_id[entry["id"]].beside_answers for entry in found):
        return found
    try:
        finding = known.inferred[function](got, call, below, standing)
    except Unanswered:  # a call of the head's own helper told nothing: this function is not read
        return found
    for step in finding.steps:
        found.append({"id": step.mistake, "message": known.by_id[step.mistake].told(evidence, step.words)})
    return found + [{"id": OBSERVED, "message": sentence} for sentence in finding.observed]


def _named_where_it_answered(
    known: Mistakes, function: str, evidence: Evidence, standing: dict[str, str]
) -> list[dict[str, str]]:
    """A function that raised on some probes where the lesson's code answers (an assert of
    its own, a shape it refuses) and answered the others: the one mistake whose variant gives every answer it gave, and
    differs from the lesson's on one of them at least, is proven by those answers. Two
    mistakes that would both explain them prove neither; the raises are told apart. (A
    function whose other answers a second mistake changes is left to the inference: a
    variant that fits some of them can be another combination of steps.)"""
    got = evidence.answers[function]
    expected = _answers(known, known.reference[function], function)
    # A raise where the lesson's code raises too (a probe of an input the handout refuses) is
    # an answer, the right one: a variant must raise there as well.
    answered = [index for index, answer in enumerate(got) if answer.value is not RAISED or expected[index].value is RAISED]
    if not answered or len(answered) == len(got):
        return []
    matching = {
        mistake.id: mistake for mistake in known.mistakes
        if mistake.function == function and mistake.shows_in is None
        and all(standing.get(helper) == RIGHT for helper in mistake.builds_on)
        and any(_shows_variant_where(known, variant, function, got, answered, expected) for variant in mistake.variants)
    }
    if len(matching) != 1:
        return []
    (mistake,) = matching.values()
    return [{"id": mistake.id, "message": mistake.told(evidence)}]


def _shows_variant_where(
    known: Mistakes, variant: Callable, function: str, got: list[Answer], answered: list[int], expected: tuple[Answer, ...]
) -> bool:
    made = _answers(known, variant, function)
    return any(not same(made[i].value, expected[i].value, known.atol) for i in answered) and all(
        same(got[i].value, made[i].value, known.atol) for i in answered  # a raise is the same only as a raise
    )


def _unique(found: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each id once (the first message), but every sentence of what was observed."""
    seen, kept = set(), []
    for entry in found:
        key = entry["message"] if entry["id"] in (OBSERVED, UNFINISHED) else entry["id"]
        if key not in seen:
            seen.add(key)
            kept.append(entry)
    return kept


@functools.cache
def _answers(known: Mistakes, head: Callable, function: str) -> tuple[Answer, ...]:
    """What ``head`` (the reference or a mistake's variant) answers to the probes of
    ``function``: the same for every submission diagnosed, so worked out once."""
    return tuple(run(head, probe) for probe in known.probes[function])


@functools.cache
def _differs_from_reference(known: Mistakes, variant: Callable, function: str) -> bool:
    expected = _answers(known, known.reference[function], function)
    return any(not same(a.value, b.value, known.atol) for a, b in zip(_answers(known, variant, function), expected))


# Exceptions a student raises on purpose (a refusal, a stub, an assert): a variant that fails
# on the same input by accident does not make that mistake.
DELIBERATE = frozenset({unfinished.NOT_IMPLEMENTED, "AssertionError"})


def _shows_variant(known: Mistakes, variant: Callable, function: str, got: list[Answer]) -> bool:
    made = _answers(known, variant, function)
    return _differs_from_reference(known, variant, function) and all(
        same(a.value, b.value, known.atol) and a.raised not in DELIBERATE for a, b in zip(got, made)
    )


# Calls that did not return, at most, before a function is left untold: the smallest probes often
# share what it hangs on (the worked example and its near copy).
MOST_HANGS = 3


def hangs(returns: Callable[[Probe], bool | None], known: Mistakes, functions: Iterable[str], seconds: float) -> list[dict[str, str]]:
    """Where each of ``functions`` (those that timed out in a check, and answer some input)
    hangs: its probes are called smallest first, ``returns(probe)`` saying whether the call
    finished (False: it did not return within ``seconds``, called first in a fresh process;
    None: it tells nothing, as a crash), until one finished and one did not, or MOST_HANGS
    did not. A function over helpers is told so conditionally (the loop may be theirs).
    Nothing is said of a function without both calls."""
    found = []
    for function in [name for name in known.probes if name in set(functions)]:
        hung = answered = None
        hangs_seen = 0
        for probe in sorted(known.probes[function], key=_size):
            outcome = returns(probe)
            if outcome is True:
                answered = answered or probe
            elif outcome is False:
                hung, hangs_seen = hung or probe, hangs_seen + 1
            if (hung and answered) or hangs_seen == MOST_HANGS:
                break
        if hung and answered:
            helpers = sorted(_helpers_below(known, function))
            found.append({"id": OBSERVED, "message": located.hangs_on(function, _parameters(known, function), hung, answered, seconds, helpers)})
    return found


def _size(probe: Probe) -> int:
    """How many numbers a probe's arguments hold: the smallest input is the easiest to read."""
    return sum(np.size(value) for value in [*probe.args, *probe.kwargs.values()])
