"""The inferred diagnoses (grader.assignments.attention_head.steps through grader.diagnoses.diagnose), on heads
written here and called in this process: what each step proves, and what it must not claim."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import HEADS
from grader import diagnoses
from grader.assignments.attention_head import reference
from grader.assignments.attention_head.mistakes import KNOWN


def lesson_head(**replaced) -> SimpleNamespace:
    """The lesson's head with some functions replaced."""

    def softmax(x, axis=-1):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = head.softmax(scores)
        return A @ V, A

    def self_attention(X, Wq, Wk, Wv, mask=None):  # noqa: N803
        return head.attention(X @ Wq, X @ Wk, X @ Wv, mask)

    def causal_mask(n):
        return np.tril(np.ones((n, n), dtype=bool))

    head = SimpleNamespace(softmax=softmax, attention=attention, self_attention=self_attention, causal_mask=causal_mask)
    for name, function in replaced.items():
        setattr(head, name, function)
    return head


def caller(head: SimpleNamespace):
    """The head's answers to probes, called in this process as the sandbox would call it."""

    def call(probe: diagnoses.Probe) -> diagnoses.Answer:
        args = tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in probe.args)
        try:
            with np.errstate(all="ignore"):
                return diagnoses.Answer(getattr(head, probe.function)(*args, **probe.kwargs), args)
        except Exception as error:
            return diagnoses.Answer(diagnoses.RAISED, args, raised=type(error).__name__, text=str(error))

    return call


def told(head: SimpleNamespace) -> tuple[list[str], list[str]]:
    """The mistake ids the head is told, and the sentences of what the probes showed."""

    found = diagnoses.diagnose(caller(head), KNOWN)
    return [d["id"] for d in found if d["id"] != "observed"], [d["message"] for d in found if d["id"] == "observed"]


def test_the_lesson_head_is_told_nothing():
    assert told(lesson_head()) == ([], [])


def test_two_mistakes_in_one_function_are_both_named():
    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T  # no scaling, and the mask ignored
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A

    ids, _ = told(lesson_head(attention=attention))
    assert sorted(ids) == ["mask_ignored", "missing_scale"]


def test_softmax_down_the_columns_inside_attention_is_named_with_its_own_message():
    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=0, keepdims=True))
        A = e / e.sum(axis=0, keepdims=True)
        return A @ V, A

    head = lesson_head(attention=attention)
    assert told(head)[0] == ["attention_softmax_axis"]

    (found,) = diagnoses.diagnose(caller(head), KNOWN)
    assert "columns" in found["message"] and "section" in found["message"]


def test_a_mistake_symmetric_scores_hide_is_not_called_hardcoding():
    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = K @ Q.T / np.sqrt(Q.shape[-1])  # right whenever Q = K, as in the worked example
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A

    ids, observed = told(lesson_head(attention=attention))
    assert ids == ["scores_transposed"]
    assert observed == []


def test_with_a_wrong_softmax_attention_is_read_against_the_heads_own():
    """softmax without the max shift and normalising axis 0 whatever it is given, and
    attention without the scale: the softmax's mistakes and attention's own are all named,
    since the diagnosis calls the head's softmax on attention's candidate scores."""

    def softmax(x, axis=-1):
        e = np.exp(x)
        return e / e.sum(axis=0, keepdims=True)

    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = softmax(scores)
        return A @ V, A

    ids, _ = told(lesson_head(softmax=softmax, attention=attention))
    assert "missing_scale" in ids and "softmax_no_max_shift" in ids
    assert not {"mask_ignored", "mask_zero_fill", "scale_by_dk", "attention_no_max_shift", "attention_softmax_axis"} & set(ids)


def test_with_a_wrong_attention_self_attention_is_read_against_the_heads_own():
    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T  # no scale
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A

    def self_attention(X, Wq, Wk, Wv, mask=None):  # noqa: N803
        return attention(X @ Wk, X @ Wq, X @ Wv)  # roles swapped, mask dropped

    ids, _ = told(lesson_head(attention=attention, self_attention=self_attention))
    assert sorted(ids) == ["missing_scale", "self_attention_drops_mask", "self_attention_swapped_projections"]


def test_an_answer_for_the_worked_example_alone_is_called_hardcoding():
    worked = KNOWN.probes["attention"][0].args
    right = reference.attention(*worked)

    def attention(Q, K, V, mask=None):  # noqa: N803
        if Q.shape == (3, 2):
            return right
        A = np.full((Q.shape[0], K.shape[0]), 1.0 / K.shape[0])
        return A @ V, A

    assert told(lesson_head(attention=attention))[0] == ["hardcoded_example"]


def test_a_divisor_with_no_id_is_said_as_observed():
    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T / (np.sqrt(Q.shape[-1]) / 2)  # a temperature of one half
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A

    assert told(lesson_head(attention=attention)) == (
        [], ["attention divides its scores by sqrt(d_k) / 2, where the lesson computes Q @ K.T / sqrt(d_k)."]
    )


def test_self_attention_doing_its_own_attention_with_another_scale_is_named_as_its_own():
    def self_attention(X, Wq, Wk, Wv, mask=None):  # noqa: N803
        Q, K, V = X @ Wq, X @ Wk, X @ Wv
        scores = Q @ K.T / Q.shape[-1]
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A

    assert told(lesson_head(self_attention=self_attention)) == (["self_attention_scale_by_dk"], [])


def test_the_same_call_answered_twice_differently_is_named():
    generator = np.random.default_rng(0)

    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T / np.sqrt(Q.shape[-1]) + generator.uniform(0, 0.05, (Q.shape[0], K.shape[0]))
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        return A @ V, A

    assert told(lesson_head(attention=attention))[0] == ["nondeterministic"]


@pytest.mark.parametrize("mask", [lambda n: np.tri(n, k=-1), lambda n: np.triu(np.ones((n, n))).astype(int)])
def test_a_causal_mask_with_two_mistakes_is_told_both(mask):
    ids, _ = told(lesson_head(causal_mask=mask))
    assert "causal_mask_not_bool" in ids and len(ids) == 2


def test_a_head_off_by_a_little_everywhere_is_not_called_hardcoding():
    # Right to the lesson's 4 decimals on the worked example and a little off everywhere
    # else, the near probe included: it follows its input, so it is no answer written down.
    def softmax(x, axis=-1):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / (e.sum(axis=axis, keepdims=True) + 1e-3)

    ids, observed = told(lesson_head(softmax=softmax))
    assert ids == []
    assert observed and "do not sum to 1" in observed[0]


def test_a_helper_that_fails_when_called_again_loses_only_that_functions_reading():
    """After the probes, the diagnosis calls the head's own softmax; if that call fails (a
    hang or a crash in the sandbox), what the probes proved is still told."""

    def softmax(x, axis=-1):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum()  # the whole array's sum

    head = lesson_head(softmax=softmax)
    probes = sum(len(probes) for probes in KNOWN.probes.values())
    made = []

    def call(probe):
        made.append(probe)
        if len(made) > probes:
            raise diagnoses.Unanswered("the worker stopped answering")
        try:
            with np.errstate(all="ignore"):
                return diagnoses.Answer(getattr(head, probe.function)(*probe.args, **probe.kwargs), probe.args)
        except Exception:
            return diagnoses.Answer(diagnoses.RAISED, probe.args)

    found = diagnoses.diagnose(call, KNOWN)
    assert len(made) > probes  # the helper was called, and failed
    assert [d["id"] for d in found] == ["softmax_global_normalization"]


def test_a_function_whose_probe_hangs_is_not_read_and_the_others_are():
    """A probe that hangs or crashes (the call raises) leaves its function unread; what the
    other functions' probes prove is still told."""

    def softmax(x, axis=-1):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum()  # the whole array's sum

    def causal_mask(n):
        return np.triu(np.ones((n, n), dtype=bool))

    head = lesson_head(softmax=softmax, causal_mask=causal_mask)

    def call(probe):
        if probe.function == "attention":
            raise diagnoses.Unanswered("attention did not return in time")
        with np.errstate(all="ignore"):
            try:
                return diagnoses.Answer(getattr(head, probe.function)(*probe.args, **probe.kwargs), probe.args)
            except Exception:
                return diagnoses.Answer(diagnoses.RAISED, probe.args)

    found = [d["id"] for d in diagnoses.diagnose(call, KNOWN)]
    assert found == ["softmax_global_normalization", "causal_mask_upper"]


def test_only_the_functions_a_check_found_wrong_are_told_anything():
    """A head could answer the probes alone wrongly: a function whose checks all passed is
    told nothing, whatever its probes show."""
    head = lesson_head(attention=lambda Q, K, V, mask=None: reference.attention(Q * np.sqrt(Q.shape[-1]), K, V, mask))

    def call(probe):
        with np.errstate(all="ignore"):
            try:
                return diagnoses.Answer(getattr(head, probe.function)(*probe.args, **probe.kwargs), probe.args)
            except ValueError:
                return diagnoses.Answer(diagnoses.RAISED, probe.args)

    assert [d["id"] for d in diagnoses.diagnose(call, KNOWN)] == ["missing_scale"]
    assert diagnoses.diagnose(call, KNOWN, suspects={"softmax", "self_attention", "causal_mask"}) == []


@pytest.mark.parametrize(
    "mask",
    [lambda n: np.zeros((n, n)), lambda n: np.triu(np.ones((n, n)), k=1)],
    ids=["zeros", "inverted_numbers"],
)
def test_a_mask_of_numbers_with_no_infinity_is_not_called_additive(mask):
    """An additive mask holds -inf (or a large negative number) where a token may not look:
    0 there is not one, however close to -inf a loose comparison would find it."""
    assert "causal_mask_additive" not in told(lesson_head(causal_mask=mask))[0]


@pytest.mark.parametrize("seed", range(40))
def test_dropout_is_named_whatever_the_draws(seed):
    """Dropout keeps each weight with probability 0.9: two calls of a 3 x 3 head agree by chance
    about once in six, so the same larger call is made three times as well."""
    generator = np.random.default_rng(seed)

    def attention(Q, K, V, mask=None):  # noqa: N803
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = e / e.sum(axis=-1, keepdims=True)
        A = A * (generator.random(A.shape) < 0.9) / 0.9
        return A @ V, A

    assert told(lesson_head(attention=attention))[0] == ["nondeterministic"]


def test_a_diagnosis_does_not_depend_on_the_heads_diagnosed_before_it():
    """A check process diagnoses many submissions, keeping the candidates' answers it worked
    out: each head must be told what it is told alone, whatever came before it."""
    from grader.diagnoses import inference

    heads = []
    for path in sorted((HEADS / "wild").glob("*.py")) + sorted((HEADS / "blind").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"ordered_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        heads.append(module)
    alone = []
    for head in heads:
        inference._ANSWERS.clear()
        alone.append(diagnoses.diagnose(caller(head), KNOWN))
    inference._ANSWERS.clear()
    in_turn = [diagnoses.diagnose(caller(head), KNOWN) for head in reversed(heads)][::-1]
    assert in_turn == alone


# -- what an outside attack found: a function blamed for its helper's answers ----------------


def _exp_rows(x, axis=-1, shift=True):
    e = np.exp(x - x.max(axis=axis, keepdims=True) if shift else x)
    return e / e.sum(axis=axis, keepdims=True)


def test_a_self_attention_computing_attention_over_a_wrong_softmax_is_told_its_own_mistake_only():
    def softmax(x, axis=-1):
        return _exp_rows(x, axis, shift=False)

    def self_attention(X, Wq, Wk, Wv, mask=None):  # noqa: N803 - its own attention, no scale, over softmax
        Q, K, V = X @ Wq, X @ Wk, X @ Wv
        scores = Q @ K.T
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = softmax(scores, axis=-1)
        return A @ V, A

    ids, _ = told(lesson_head(softmax=softmax, self_attention=self_attention))
    assert sorted(ids) == ["self_attention_missing_scale", "softmax_no_max_shift"]


@pytest.mark.parametrize("finite", [lambda x: np.where(np.isneginf(x), -1e9, x), np.nan_to_num, lambda x: np.clip(x, -1e300, None)])
def test_a_right_attention_is_not_told_what_its_softmax_does_to_minus_infinity(finite):
    """A softmax that makes -inf finite passes its own checks; the fully masked row it then
    gives attention is not attention's mistake."""
    ids, _ = told(lesson_head(softmax=lambda x, axis=-1: _exp_rows(finite(x), axis)))
    assert "mask_large_negative" not in ids


def test_an_attention_that_calls_softmax_another_way_is_not_blamed_for_its_axis():
    def softmax(x, axis=-1):
        return _exp_rows(x, -1)  # ignores the axis

    def attention(Q, K, V, mask=None):  # noqa: N803 - right with a right softmax
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = softmax(scores.T, axis=0).T
        return A @ V, A

    ids, _ = told(lesson_head(softmax=softmax, attention=attention))
    assert "attention_softmax_axis" not in ids and "softmax_ignores_axis" in ids


@pytest.mark.parametrize("refusal", [NotImplementedError, AssertionError])
def test_a_softmax_that_refuses_other_axes_is_not_told_it_reexpands_them(refusal):
    def softmax(x, axis=-1):
        if axis not in (-1, x.ndim - 1):
            raise refusal("only the last axis")
        return _exp_rows(x, -1)

    assert "softmax_reexpands_last_axis" not in told(lesson_head(softmax=softmax))[0]


def test_a_default_mask_from_another_function_is_not_read_as_everything_transposed():
    def causal_mask(n):
        return np.triu(np.ones((n, n), dtype=bool))

    def attention(Q, K, V, mask=None):  # noqa: N803
        if mask is None:
            mask = head.causal_mask(Q.shape[0])
        scores = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
        A = _exp_rows(scores)
        return A @ V, A

    head = lesson_head(attention=attention, causal_mask=causal_mask)
    ids, _ = told(head)
    transposes = {"weights_returned_transposed", "weights_transposed", "scores_transposed", "mask_transposed", "attention_softmax_axis"}
    assert not transposes & set(ids) and "causal_mask_upper" in ids


def test_a_function_that_raises_on_every_probe_is_told_no_step():
    def softmax(x, axis=-1):
        raise RuntimeError("crashed")

    ids, _ = told(lesson_head(softmax=softmax))
    assert not [mistake for mistake in ids if mistake.startswith("softmax")]
