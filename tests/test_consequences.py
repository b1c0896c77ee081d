"""Every consequence a diagnosis states is true of the head it is told to.

A known mistake's message may say what the mistake does (``Mistake.consequence``): what a
fully masked row becomes, that the function raises for some shapes, that a row becomes
nan. The grader reads it from the head's own answers; here each sentence a consequence can
state is checked against the head itself, imported in this trusted test process and called
directly, for every head graded in the session (tests/heads/ and the heads the tests make)
that is told such a mistake.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

import inline_heads
from conftest import HEADS, head_id
from grader.assignments.attention_head import mistakes
from grader.assignments.attention_head.mistakes import FULLY_MASKED_ROW, KNOWN, PROBES

TOLD_HEADS = sorted(HEADS.glob("**/*.py"))  # buggy/, second_set/, wild/ and the correct ones
# Where each function's probes show a fully masked row, and every key masked.
MASKED = {
    "attention": (mistakes.FULLY_MASKED, mistakes.ALL_MASKED),
    "self_attention": (mistakes.SA_FULLY_MASKED, mistakes.SA_ALL_MASKED),
}
LARGE = {"attention": (5,), "self_attention": (mistakes.SA_LARGE,)}


def _module(name: str, source: str) -> ModuleType:
    module = ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)  # a test head, trusted here
    return module


def _head(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"told_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _call(head: ModuleType, function: str, args: tuple, kwargs: dict | None = None):
    """The head's answer, or the exception it raised."""
    try:
        with np.errstate(all="ignore"):
            return getattr(head, function)(*(np.copy(a) if isinstance(a, np.ndarray) else a for a in args), **(kwargs or {}))
    except Exception as error:  # noqa: BLE001 - what a head raises is what is checked
        return error


def _probe(head: ModuleType, function: str, index: int):
    """The head's answer to a probe, or, where it raises and may be written for a batch axis,
    its answer to that probe as a batch of one (as the grader reads such a head)."""
    probe = PROBES[function][index]
    answer = _call(head, function, probe.args, probe.kwargs)
    if isinstance(answer, Exception) and function in KNOWN.batch_axis:
        batched = KNOWN.batch_axis[function].batched(probe)
        again = _call(head, function, batched.args, batched.kwargs)
        if not isinstance(again, Exception):
            return tuple(part[0] for part in again) if isinstance(again, tuple) else again[0]
    return answer


def _row(answer) -> np.ndarray:
    return np.asarray(answer[1], dtype=float)[FULLY_MASKED_ROW]


def _rows(head: ModuleType, function: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fully masked row, the same row when every key is masked, and with no mask."""
    masked, every = MASKED[function]
    unmasked = _call(head, function, PROBES[function][masked].args[:-1])
    if isinstance(unmasked, Exception):  # a head read through a batch of one
        batched = KNOWN.batch_axis[function].batched(PROBES[function][masked])
        unmasked = tuple(part[0] for part in _call(head, function, batched.args[:-1]))
    return _row(_probe(head, function, masked)), _row(_probe(head, function, every)), _row(unmasked)


def _nan(answer) -> bool:
    parts = answer if isinstance(answer, tuple) else (answer,)
    return not isinstance(answer, Exception) and any(np.isnan(np.asarray(part, dtype=float)).any() for part in parts)


def _inf_or_nan(answer) -> bool:
    parts = answer if isinstance(answer, tuple) else (answer,)
    return not isinstance(answer, Exception) and any(not np.isfinite(np.asarray(part, dtype=float)).all() for part in parts)


def _raises_where(head: ModuleType, function: str, picks: Callable[[tuple], bool]) -> bool:
    picked = [probe for probe in PROBES[function] if picks(probe.args)]
    return bool(picked) and all(isinstance(_call(head, function, p.args, p.kwargs), Exception) for p in picked)


def _wrong_somewhere(head: ModuleType, function: str) -> bool:
    for probe in PROBES[function]:
        got, want = _call(head, function, probe.args, probe.kwargs), KNOWN.reference[function](*probe.args, **probe.kwargs)
        if isinstance(got, Exception):
            continue
        parts = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        if not all(np.shape(a) == np.shape(b) and np.allclose(a, b, equal_nan=True) for a, b in parts):
            return True
    return False


def _normalises_slices(head: ModuleType, shape: tuple[int, ...], axis: int | None) -> bool:
    x = np.random.default_rng(0).normal(size=shape)
    got = _call(head, "softmax", (x,), {} if axis is None else {"axis": axis})
    if isinstance(got, Exception):
        return False
    e = np.exp(x - x.max(axis=(1, 2), keepdims=True))
    return bool(np.allclose(got, e / e.sum(axis=(1, 2), keepdims=True)))


def _other_axis() -> list:
    """softmax's probes along an axis other than the last."""
    return [p for p in PROBES["softmax"] if p.kwargs.get("axis", -1) not in (-1, np.ndim(p.args[0]) - 1)]


def _uniform(row: np.ndarray) -> bool:
    return bool(np.allclose(row, 1 / row.size, atol=1e-5))


# Each sentence a consequence may state (a pattern), and how to see it in the head itself,
# given the function the mistake is told of.
CLAIMS: dict[str, Callable[[ModuleType, str, re.Match], bool]] = {
    r"a fully masked row then becomes uniform weights instead of nan": lambda head, f, m: _uniform(_rows(head, f)[0]),
    r"a fully masked row then gets the weights it would have with no mask at all instead of nan": lambda head, f, m: (
        np.allclose(_rows(head, f)[0], _rows(head, f)[2], atol=1e-5)
    ),
    r"a fully masked row then gets finite weights instead of nan": lambda head, f, m: bool(np.isfinite(_rows(head, f)[0]).all()),
    # A softmax that turns a row of equal finite scores to nan shows it only when every key is masked.
    r"when every key is masked, the weights then become uniform instead of nan": lambda head, f, m: (
        np.isnan(_rows(head, f)[0]).all() and _uniform(_rows(head, f)[1])
    ),
    r"when every key is masked, the weights then stay finite instead of nan": lambda head, f, m: (
        np.isnan(_rows(head, f)[0]).all() and bool(np.isfinite(_rows(head, f)[1]).all())
    ),
    r"a fully masked row is then not guaranteed to be nan": lambda head, f, m: (
        np.isnan(_rows(head, f)[0]).all() and np.isnan(_rows(head, f)[1]).all()
    ),
    r", so the rows of attention's weights A do not sum to 1": lambda head, f, m: any(
        not np.allclose(np.sum(_probe(head, "attention", i)[1], axis=1), 1.0, atol=1e-4) for i in range(3)
    ),
    r", so logits around 1000 overflow to inf and the row becomes nan": lambda head, f, m: any(
        _nan(_probe(head, "softmax", i)) for i in mistakes.SOFTMAX_LARGE
    ),
    r", so logits around 1000 overflow to inf$": lambda head, f, m: any(
        _inf_or_nan(_probe(head, "softmax", i)) for i in mistakes.SOFTMAX_LARGE
    ),
    r", so a row of small logits next to a row of large ones underflows to 0/0 = nan": lambda head, f, m: _nan(
        _probe(head, "softmax", mistakes.SOFTMAX_LARGE[0])
    ),
    r", so a row that spans about ±1000 overflows to inf and gives nan": lambda head, f, m: any(
        _nan(_probe(head, "softmax", i)) for i in mistakes.SOFTMAX_LARGE
    ),
    r"(so does|,? so) a row holding -inf \(a masked score\)": lambda head, f, m: _nan(_probe(head, "softmax", mistakes.SOFTMAX_MASKED)),
    r"it raises for non-square inputs and is wrong for square ones": lambda head, f, m: _raises_where(
        head, "softmax", lambda args: np.ndim(args[0]) == 2 and args[0].shape[0] != args[0].shape[1]
    ) and _wrong_somewhere(head, "softmax"),
    r"that raises unless d_k equals the number of keys, and is wrong even then": lambda head, f, m: _raises_where(
        head, "attention", lambda args: args[0].shape[1] != args[1].shape[0]
    ) and _wrong_somewhere(head, "attention"),
    r"that raises unless d_k equals the number of tokens, and is wrong even then": lambda head, f, m: _raises_where(
        head, "self_attention", lambda args: args[2].shape[1] != args[0].shape[0]
    ) and _wrong_somewhere(head, "self_attention"),
    r" \(and the shapes fit only when there are as many queries as keys\)": lambda head, f, m: _raises_where(
        head, "attention", lambda args: args[0].shape[0] != args[1].shape[0]
    ),
    r"that raises unless the weights are square, and is wrong even then": lambda head, f, m: _raises_where(
        head, "self_attention", lambda args: any(W.shape[0] != W.shape[1] for W in args[1:4])
    ) and _wrong_somewhere(head, "self_attention"),
    r"(that is wrong|its results are wrong)": lambda head, f, m: _wrong_somewhere(head, f),
    r"^it raises$": lambda head, f, m: all(isinstance(_call(head, "softmax", p.args, p.kwargs), Exception) for p in _other_axis()),
    r"^it raises or gives wrong results$": lambda head, f, m: any(
        isinstance(_call(head, "softmax", p.args, p.kwargs), Exception) for p in _other_axis()
    ),
    r"^the max and the sum line up with the wrong entries$": lambda head, f, m: _wrong_somewhere(head, "softmax"),
    r"and some non-square inputs make it raise": lambda head, f, m: any(
        isinstance(_call(head, "softmax", p.args, p.kwargs), Exception)
        for p in PROBES["softmax"] if np.ndim(p.args[0]) == 2 and p.args[0].shape[0] != p.args[0].shape[1]
    ),
    r"on an input of shape \((\d+), (\d+), (\d+)\)( and axis=(-?\d+))? it raises nothing but normalises each x\[i\] as a whole": (
        lambda head, f, m: _normalises_slices(head, tuple(int(m[i]) for i in (1, 2, 3)), int(m[5]) if m[5] else None)
    ),
    r"its results on an input of more than two dimensions are wrong": lambda head, f, m: _wrong_somewhere(head, "softmax"),
    r"it raised (\w+) on an input of shape \((\d+), (\d+), (\d+)\)( and axis=(-?\d+))?": lambda head, f, m: isinstance(
        _call(head, "softmax", (np.zeros(tuple(int(m[i]) for i in (2, 3, 4))),), {"axis": int(m[6])} if m[6] else {}),
        Exception,
    ),
    r"it raised (\w+) on the lesson's 2-D inputs.*, and answers when given a batch of one( and one head)?": lambda head, f, m: all(
        isinstance(_call(head, f, p.args, p.kwargs), Exception) for p in PROBES[f]
    ) and not isinstance(_call(head, f, KNOWN.batch_axis[f].batched(PROBES[f][0], 2 if m[2] else 1).args), Exception),
    r", so large scores overflow to inf and their row becomes nan": lambda head, f, m: any(_nan(_probe(head, f, i)) for i in LARGE[f]),
    r", so large scores overflow to inf$": lambda head, f, m: any(_inf_or_nan(_probe(head, f, i)) for i in LARGE[f]),
    r"^((?:Q|K|V|mask)(?: and (?:Q|K|V|mask))*) (?:is|are)$": lambda head, f, m: _changed(head, f) == set(m[1].split(" and ")),
}


def _changed(head: ModuleType, function: str) -> set[str]:
    """The arguments ``function`` of ``head`` changes in place on any of its probes."""
    from grader.assignments.attention_head import ASSIGNMENT

    changed = set()
    for probe in PROBES[function]:
        given = [np.copy(a) if isinstance(a, np.ndarray) else a for a in probe.args]
        try:
            with np.errstate(all="ignore"):
                getattr(head, function)(*given, **probe.kwargs)
        except Exception:  # noqa: BLE001 - a call that raised may still have changed its arguments
            pass
        parameters = ASSIGNMENT.by_name[function].parameters
        changed |= {
            name for name, before, after in zip(parameters, probe.args, given)
            if isinstance(before, np.ndarray) and not np.array_equal(before, after, equal_nan=True)
        }
    return changed


def _told_heads() -> dict[str, ModuleType | Path]:
    """Every head graded in the session, by its id: files, and the sources the tests make."""
    heads: dict[str, ModuleType | Path] = {head_id(path): path for path in TOLD_HEADS}
    for name, (source, _) in inline_heads.heads().items():
        heads[f"inline__{name}"] = source
    return heads


def test_every_stated_consequence_holds_for_the_head_it_is_told_to(graded_heads):
    checked = 0
    for student, head in _told_heads().items():
        report = graded_heads.get(student)
        if report is None:
            continue
        for diagnosis in report.diagnoses:
            mistake = KNOWN.by_id.get(diagnosis["id"])
            if mistake is None or mistake.consequence is None:
                continue
            consequence = _consequence_of(mistake, diagnosis)
            if not consequence:
                continue  # the message states nothing the answers did not show
            module = _head(head) if isinstance(head, Path) else _module(f"told_{student}", head)
            stated = [(claim, match) for claim in CLAIMS for match in [re.search(claim, consequence)] if match]
            assert stated, f"{student}: no claim checks '{consequence}' ({diagnosis['message']})"
            for claim, match in stated:
                assert CLAIMS[claim](module, mistake.function, match), f"{student} is told '{consequence}', which it does not do"
            checked += 1
    assert checked >= 10


def _consequence_of(mistake, diagnosis: dict[str, str]) -> str:
    """The part of a told message its consequence filled in (its words, if any, matched too)."""
    pattern = "".join(
        "(?P<consequence>.*)" if part == "{consequence}" else ".*?" if part == "{words}" else re.escape(part)
        for part in re.split(r"(\{consequence\}|\{words\})", mistake.message)
    )
    found = re.fullmatch(pattern, diagnosis["message"], re.DOTALL)
    assert found, diagnosis["message"]
    return found["consequence"]


def test_each_claim_can_be_false():
    """The claims tell heads apart: a head that adds -1e9 (the row keeps its unmasked weights)
    is not uniform, and one that fills -1e9 is not its unmasked row."""

    def head(masked):
        def attention(Q, K, V, mask=None):  # noqa: N803
            scores = Q @ K.T / np.sqrt(Q.shape[-1])
            if mask is not None:
                scores = masked(scores, mask)
            e = np.exp(scores - scores.max(axis=-1, keepdims=True))
            A = e / e.sum(axis=-1, keepdims=True)
            return A @ V, A

        module = ModuleType("head")
        module.attention = attention
        return module

    added, filled = head(lambda s, m: s + np.where(m, 0.0, -1e9)), head(lambda s, m: np.where(m, s, -1e9))
    uniform, unmasked = list(CLAIMS.values())[:2]
    assert unmasked(added, "attention", None) and not uniform(added, "attention", None)
    assert uniform(filled, "attention", None) and not unmasked(filled, "attention", None)
