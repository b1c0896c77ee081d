"""The step search: a function read as the lesson's steps, each with the ways students take it.

An assignment declares a function's :class:`Model`: named step tables (each maps a
:class:`~grader.diagnoses.inference.Step` to what that way does, the lesson's way first),
a ``compute`` that makes the function's answer from one way of every step, and the
stages the tables are searched in. :func:`explain` then finds every combination of ways
that reproduces each of the head's answers:

- a stage adds its tables to the combinations that survived the stages before it, and
  keeps those that give the head's answer (or the part of it the stage compares) on the
  stage's probes; a step whose table is not chosen yet takes the lesson's way. So a model
  whose early stages read what the later steps cannot change (the weights before the
  output, unmasked calls before masked ones) searches a product of thousands of ways in
  a few hundred calls;
- a probe the head raised on proves nothing of a step (the head may fail after the part
  the stage reads), but a combination that raises exactly where the head raised explains
  more of its answers than one that does not, and is preferred.

A table's ways may call the student's own helpers (those the function calls in the
lesson): the model is then built per head, around :func:`remembered` calls of them. What
the explanations have in common is what :func:`grader.diagnoses.inference.shared_wrong`
names, so a step is named only when every explanation has it wrong the same way.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.diagnoses import Unanswered
from grader.diagnoses.inference import RAISED, Step, cached, close, refused, shared_wrong

# A table maps each way of a step to what it does. A way may be a tuple of steps (two steps taken
# together, where only some pairs are searched): an explanation lists its steps one by one.
#: A step table: each way of one step (a :class:`~grader.diagnoses.inference.Step`, or a
#: tuple of steps taken together) -> what that way does, any value ``compute`` uses (a
#: function, a number, a flag). The lesson's way (:func:`~grader.diagnoses.inference.ok`)
#: comes first. Example: ``{ok("/"): lambda s, c: s / c, Step("//", "floor_division"): lambda s, c: s // c}``.
Table = Mapping[Any, Any]
# How a head's raise is read: it proves nothing (UNREAD), it fits only a way that raises too (ANY),
# or one that raises the same way, a raise on purpose apart from an accident (KIND).
#: How :func:`explain` reads a probe the head raised on (its ``raises``): ``UNREAD`` (the
#: default, ``"unread"``) proves nothing of any way; ``ANY`` fits only a way that raises on
#: it too; ``KIND`` fits only a way that raises alike, so a raise on purpose (``"refused"``,
#: from :func:`grader.diagnoses.values_read`) fits no way, as ways raise only by accident.
UNREAD, ANY, KIND = "unread", "any", "kind"
# One way of every step, by table name: what ``compute`` is given (the tables' values).
#: What :attr:`Model.compute` is given first: table name -> the value of the way chosen in
#: that table (``ways["shift"](x)``).
Ways = Mapping[str, Any]


@dataclass(frozen=True)
class Stage:
    """Tables searched together, the probes (by index) that tell their ways apart, and the
    part of an answer they read (None: all of it).

    Fields:

    tables
        Names of :attr:`Model.tables` searched together: every way of each, with every
        combination that survived the stages before. A table not chosen yet takes the
        lesson's way. Required. Example: ``("variance", "divisor")``.
    probes
        Indices (into :func:`explain`'s ``probes``) of the probes that tell these tables'
        ways apart, and that only the tables chosen so far affect; default ``None``: every
        probe. Example: ``(0, 1, 2)``, the unmasked probes, before a stage of the mask.
    part
        A function applied to the way's answer and to the head's before they are compared
        (:func:`same_value`), to read only what this stage's tables decide; default
        ``None``: the whole answer. It gets any value the student returned (not a raise),
        so it must not raise. Example: ``lambda answer: answer[1] if isinstance(answer,
        tuple) and len(answer) == 2 else answer``, the ``var`` of ``(mean, var)``.

    Example::

        Stage(("variance", "divisor"), (0, 1, 2), lambda answer: answer)
    """

    tables: tuple[str, ...]
    probes: tuple[int, ...] | None = None  # None: every probe
    part: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Model:
    """A function as steps: its tables, the stages they are searched in (every table in one
    stage), and ``compute(ways, *args)``, the function's answer made one way.

    Fields:

    tables
        Table name -> its :data:`Table`. Required. Example:
        ``{"variance": VARIANCES, "divisor": DIVISORS}``.
    stages
        The :class:`Stage` s, in the order they are searched; each table is in exactly one.
        An explanation lists its steps table by table in this order. Required. Example:
        ``(Stage(("variance", "divisor")),)``.
    compute
        ``compute(ways, *probe)``: the function's answer made with one way of every step,
        where ``ways`` is a :data:`Ways` and ``probe`` one of :func:`explain`'s probes,
        unpacked (copies of its arrays). A raise is the answer :data:`RAISED`. Required.
        Example: ``def layer_norm(ways, X, gamma, beta): return gamma * (X - X.mean(axis=-1,
        keepdims=True)) / ways["divisor"](ways["variance"](X), 1e-5) + beta``.
    shared
        A name under which every combination's answers are kept for the process, for a
        model whose ways call none of the student's functions (they answer the same for
        every head), searched on probes that are module constants; default ``None``: kept
        for one :func:`explain` only. Example: ``shared="layer_norm.steps"``.
    atol
        How far a head's answer may be from a way's, default ``1e-5`` (with a relative
        tolerance of 1e-4, as the checks). Example: ``atol=5e-4`` for a head that rounds to
        3 decimals.
    most_alive
        Most combinations left alive after a stage, default ``None`` (no bound): past it
        the search stops with no explanation, as the stage's probes told its ways apart
        hardly at all (the head raised on them). Example: ``most_alive=2000`` for a product
        of thousands of ways.
    """

    tables: Mapping[str, Table]
    stages: tuple[Stage, ...]
    compute: Callable[..., Any]
    # A name under which every combination's answers are kept for the process, for a model whose
    # ways call none of the head's own functions: they answer the same for every head diagnosed.
    shared: str | None = None
    # How far a head's answer may be from a way's (the checks' tolerance, or half a unit in the
    # last decimal a head that rounds keeps).
    atol: float = 1e-5
    # More combinations than this alive after a stage means its probes told its ways apart hardly
    # at all (the head raised on them): reading on would cost minutes and prove nothing, so the
    # search stops with no explanation (None: no bound, for a model whose product is small).
    most_alive: int | None = None

    def answer(self, chosen: Mapping[str, Step], args: tuple) -> Any:
        """What the combination ``chosen`` answers to ``args`` (RAISED where it raises); the
        tables not chosen take the lesson's way (each table's first)."""
        ways = {name: table[chosen[name] if name in chosen else next(iter(table))] for name, table in self.tables.items()}
        try:
            with np.errstate(all="ignore"):
                return self.compute(ways, *(np.copy(a) if isinstance(a, np.ndarray) else a for a in args))
        except Unanswered:  # a helper's call told nothing: the function is not read
            raise
        except Exception:
            return RAISED

    def order(self) -> tuple[str, ...]:
        """The table names, stage by stage: the order of an explanation's steps."""
        return tuple(name for stage in self.stages for name in stage.tables)

    def answer_of(self, chosen: Mapping[str, Step], probe: Any) -> Any:
        """:meth:`answer`, kept for the process where the model is :attr:`shared` (``probe``
        is then a module constant: the cache holds it, so its id stays its own).

        ``chosen``: table name -> the way chosen (a table left out takes the lesson's way);
        ``probe``: one of :func:`explain`'s probes."""
        if self.shared is None:
            return self.answer(chosen, probe)
        key = (self.shared, tuple(chosen.get(name) for name in self.tables))
        return cached(key, probe, lambda: self.answer(chosen, probe))


def explain(
    model: Model,
    probes: Sequence[Any],
    values: Sequence[Any],
    prefer_alike: bool = True,
    raises: str = UNREAD,
    as_far_as: bool = False,
) -> list[tuple[Step, ...]]:
    """Every combination of ways (a step per table, in the stages' order) that gives each
    value the head answered on the probes (``values[i]`` to ``probes[i]``; a value that is a
    string is a raise, read as ``raises`` says); ``prefer_alike``: of those, the ones that
    raise exactly where the head raised, if any (else the caller weighs raises itself).

    ``model``: the :class:`Model`; ``probes``: each a tuple of the arguments ``compute``
    takes after ``ways`` (``probe.args`` of each :class:`~grader.diagnoses.Probe`, or
    ``(args, kwargs)`` for a ``compute`` that takes them so); ``values``: the head's answers
    in the same order, as :func:`grader.diagnoses.values_read` gives them;
    ``prefer_alike`` (default True); ``raises`` (default ``"unread"``, or :data:`ANY`,
    :data:`KIND`). Each explanation is a tuple of :class:`~grader.diagnoses.inference.Step`
    s; none is returned when the head raised on every probe, when a stage leaves more than
    :attr:`Model.most_alive` alive, or when no combination fits.

    ``as_far_as`` (default False): where a later stage fits no way, the combinations of the
    stages before it that fit their own probes instead (each the steps of those stages'
    tables only), and none when every stage fits. Sound only for a model whose early stages
    read what its later steps cannot change (the weights on unmasked probes before a stage
    of the mask): what the early stages prove then holds whatever the unexplained later
    steps do. Example::

        explained = explain(MODEL, [probe.args for probe in PROBES["layer_norm"]], values_read(got))
        wrong = proven(explained)     # None: nothing proven
    """
    if all(isinstance(value, str) for value in values):  # it raised on every probe: nothing to read
        return []
    alive: list[dict[str, Step]] = [{}]
    answers: dict[tuple[tuple[Step, ...], int], Any] = {}
    every = range(len(probes))

    def answer(chosen: dict[str, Step], index: int) -> Any:
        key = (tuple(chosen.get(name) for name in model.tables), index)
        if key not in answers:
            answers[key] = model.answer_of(chosen, probes[index])
        return answers[key]

    for stage in model.stages:
        grown = []
        for so_far in alive:
            for ways in itertools.product(*(model.tables[name] for name in stage.tables)):
                chosen = {**so_far, **dict(zip(stage.tables, ways))}
                if all(
                    # A raise that proves nothing is not compared: the way is not even worked out.
                    (raises == UNREAD and isinstance(values[i], str))
                    or _fits(answer(chosen, i), values[i], stage.part, raises, model.atol)
                    for i in (every if stage.probes is None else stage.probes)
                ):
                    grown.append(chosen)
        if model.most_alive is not None and len(grown) > model.most_alive:
            return []
        if as_far_as and not grown:
            chosen_tables = [name for name in model.order() if alive and name in alive[0]]
            return [_flat(chosen[name] for name in chosen_tables) for chosen in alive] if chosen_tables else []
        alive = grown
    if as_far_as:
        return []
    alike = [chosen for chosen in alive if prefer_alike and all(
        isinstance(answer(chosen, i), str) == isinstance(values[i], str) for i in every if not refused(values[i])
    )]
    order = model.order()
    return [_flat(chosen[name] for name in order) for chosen in alike or alive]


def _flat(ways: Iterable[Any]) -> tuple[Step, ...]:
    return tuple(step for way in ways for step in (way if isinstance(way, tuple) else (way,)))


def proven(explained: Sequence[tuple[Step, ...]]) -> list[Step] | None:
    """The wrong steps every explanation has (:func:`shared_wrong`), each with its words only
    where every explanation takes that mistake the same way: where two ways of one mistake
    explain the answers alike (the first or the last head, on probes of two heads), the words
    of either would be a guess, so the step keeps its id and loses its words (the mistake's
    own words are said).

    ``explained``: what :func:`explain` returned. Returns the steps to name, or None when
    nothing is proven. Example::

        wrong = proven(explain(MODEL, probes, values))
        found = finding(wrong, "layer_norm divides by") if wrong is not None else Finding([], [])
    """
    wrong = shared_wrong(explained)
    if wrong is None:
        return None
    ways = {step.mistake: {way for steps in explained for way in steps if way.mistake == step.mistake} for step in wrong}
    return [step if step.mistake is None or len(ways[step.mistake]) == 1 else dataclasses.replace(step, words="")
            for step in wrong]


def _fits(want: Any, got: Any, part: Callable[[Any], Any] | None, raises: str = UNREAD, atol: float = 1e-5) -> bool:
    if isinstance(got, str):
        return raises == UNREAD or (isinstance(want, str) and (raises == ANY or want == got))
    if isinstance(want, str):
        return False
    if part is not None:
        want, got = part(want), part(got)
    return same_value(got, want, atol)


def same_value(got: Any, want: Any, atol: float = 1e-5) -> bool:
    """Equal within the checks' tolerance: arrays of one shape, or, where the way answers a
    tuple (``(out, A)``), tuples of them part by part. A head's list or tuple of numbers
    stands for the array it holds.

    ``got``: the head's value; ``want``: the way's; ``atol``: as in
    :func:`~grader.diagnoses.inference.close` (default 1e-5). Example:
    ``same_value(value, (out, A))``.
    """
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(same_value(a, b, atol) for a, b in zip(got, want))
    return close(got, want, atol)


def remembered(call: Callable[..., Any]) -> Callable[..., Any]:
    """``call`` (a student's helper) answering each list of arguments once: many ways of
    the steps before it give it the same arrays. A call that raised gives RAISED, and a
    way that needs its value raises in turn.

    ``call``: a function of positional arguments returning the student's value, or a
    string for a raise (as ``lambda *args: call(Probe("row_stats", args)).value`` does).
    Use it to make one of the student's helpers a way of a step. Example::

        own_row_stats = remembered(lambda *args: call(Probe("row_stats", args)).value)
        STATS = {ok("the handout's statistics"): handout_row_stats, ok("calls row_stats"): own_row_stats}
    """
    seen: dict[tuple, Any] = {}

    def once(*args: Any) -> Any:
        key = tuple(
            (arg.shape, arg.dtype.str, arg.tobytes()) if isinstance(arg, np.ndarray) else ("value", repr(arg)) for arg in args
        )
        if key not in seen:
            seen[key] = call(*args)
        if isinstance(seen[key], str):
            raise ValueError(f"the student's helper raised ({seen[key]})")
        return seen[key]

    return once


__all__ = [
    "ANY", "KIND", "RAISED", "UNREAD", "Model", "Stage", "Table", "Ways", "explain", "proven",
    "remembered", "same_value",
]
