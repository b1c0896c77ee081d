"""The sentence a wrong function gets when no named mistake explains it (grader.diagnoses.located),
on heads written here and called in this process: each locates the fault, names the step its
answers prove, and claims nothing they do not prove."""

from __future__ import annotations

import numpy as np
from test_inference import caller, lesson_head

from grader import assignments, diagnoses
from grader.assignments.attention_head import reference
from grader.assignments.attention_head.mistakes import KNOWN
from grader.engine.counterexample import repro
from grader.engine.proxy import Call


def said(head, **kwargs) -> tuple[list[str], str]:
    found = diagnoses.diagnose(caller(head), KNOWN, **kwargs)
    return [d["id"] for d in found if d["id"] != "observed"], " ".join(d["message"] for d in found if d["id"] == "observed")


def test_nan_turned_into_numbers_is_said_of_the_function_that_does_it():
    def attention(Q, K, V, mask=None):  # noqa: N803
        out, A = reference.attention(Q, K, V, mask)
        return np.nan_to_num(out), A

    ids, words = said(lesson_head(attention=attention))
    assert ids == []
    assert words.startswith("attention (or softmax, if attention calls it) turns nan into 0") and "all False" in words


def test_an_answer_kept_from_an_earlier_call_is_said_only_when_calling_again_changes_it():
    kept = {}

    def cached(Q, K, V, mask=None):  # noqa: N803 - the last answer, kept by the inputs' shapes
        key = (Q.shape, K.shape, V.shape)
        if key not in kept:
            kept.clear()
            kept[key] = reference.attention(Q, K, V, mask)
        return kept[key]

    _, words = said(lesson_head(attention=cached))
    assert "depends on an earlier call" in words

    def ignores_the_mask(Q, K, V, mask=None):  # noqa: N803 - the same answer for SQUARE with any mask, always
        return reference.attention(Q, K, V)

    ids, words = said(lesson_head(attention=ignores_the_mask))
    assert "depends on an earlier call" not in words and ids == ["mask_ignored"]


def test_a_function_that_writes_into_its_argument_is_told_which_one():
    def softmax(x, axis=-1):
        x -= x.max(axis=axis, keepdims=True)
        np.exp(x, out=x)
        x /= x.sum(axis=axis, keepdims=True)
        return x

    ids, words = said(lesson_head(softmax=softmax), suspects={"softmax"})
    assert ids == [] and words.startswith("softmax changes x in place")


def test_a_right_function_is_pointed_to_the_checks_that_called_it_alone():
    head = lesson_head()
    checks = {
        "attention.large_logits": diagnoses.FailedCheck(frozenset({"attention"}), "A contains nan at index [1, 0]"),
        "mask.arbitrary": diagnoses.FailedCheck(frozenset({"attention", "softmax"}), "A is wrong"),
    }
    ids, words = said(head, suspects={"attention"}, failed_checks=checks)
    assert ids == [] and "but not the input attention.large_logits tried: A contains nan at index [1, 0]" in words
    assert "mask.arbitrary" not in words


def test_a_head_right_on_every_probe_is_still_told_where_its_points_went():
    checks = {"mask.arbitrary": diagnoses.FailedCheck(frozenset({"attention", "softmax"}), "A is wrong")}
    ids, words = said(lesson_head(), suspects={"attention"}, failed_checks=checks)
    assert ids == [] and words.startswith("Every function answers the inputs the diagnosis tried") and "mask.arbitrary" in words


def test_a_pair_returned_as_one_array_is_located():
    def attention(Q, K, V, mask=None):  # noqa: N803
        out, A = reference.attention(Q, K, V, mask)
        return out if mask is None else (out, A)

    _, words = said(lesson_head(attention=attention))
    assert "returns an array of shape (3, 2), where the lesson's code returns a tuple (or list) of 2 values" in words


def test_over_a_wrong_helper_the_caller_is_told_nothing_of_its_own():
    def softmax(x, axis=-1):  # the last axis always, no shift: attention over it is the lesson's attention
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    _, words = said(lesson_head(softmax=softmax))
    assert "attention answers differently" not in words and "self_attention" not in words


def test_a_mistake_its_answers_prove_is_named_though_an_assert_refuses_other_inputs():
    """A variant's mistake shown on every input answered, with an assert of the student's own
    refusing the others: named, beside the sentence on the assert."""

    def attention(Q, K, V, mask=None):  # noqa: N803
        assert Q.shape[0] == K.shape[0], "one query per key"
        out, _ = reference.attention(Q, K, V, mask)
        return out, reference.attention(Q, K, V)[1]  # the weights from before the mask

    ids, words = said(lesson_head(attention=attention))
    assert ids == ["weights_returned_unmasked"] and "raised AssertionError" in words


def test_an_argument_read_back_is_shown_before_and_after_in_the_repro():
    text = repro([Call("softmax", {"x": np.array([1.0, 2.0])}, reads_arguments=True)], module="attention")
    assert "x_before = x.copy()" in text and "softmax(x)\n" in text
    assert "print('x', 'unchanged:', np.array_equal(x, x_before, equal_nan=True))" in text
    assert "print(softmax(x))" not in text


def test_the_causal_picture_does_not_claim_to_call_the_students_causal_mask():
    caption = assignments.get("attention_head").pictures()["causal"].caption
    assert "causal_mask(4)" not in caption and "np.tril" in caption


def _first_mask_by_shape():
    """An attention that applies the first mask it met of each shape to every later one, and a
    way to forget what it met (a fresh process)."""
    met: dict = {}

    def attention(Q, K, V, mask=None):  # noqa: N803
        if mask is not None:
            mask = met.setdefault(mask.shape, mask)
        return reference.attention(Q, K, V, mask)

    return attention, met.clear


def test_answers_that_depend_on_earlier_calls_are_said_so_and_nothing_they_seem_to_show():
    attention, forget = _first_mask_by_shape()
    ids, words = said(lesson_head(attention=attention), afresh=forget)
    assert ids == []  # the causal answers it gave a kept causal mask prove no mask_always_causal
    assert words.startswith("attention (or softmax, if attention calls it) gives answers that depend on earlier calls: attention(Q")
    assert "self_attention" not in words  # it is right over the lesson's attention: not blamed


def test_without_a_fresh_process_a_kept_mask_is_not_said_to_depend_on_earlier_calls():
    """The reverse-order proof needs a fresh start; without one nothing claims a history."""
    attention, _ = _first_mask_by_shape()
    _, words = said(lesson_head(attention=attention))
    assert "earlier calls" not in words


def test_a_function_that_answers_each_input_anew_is_never_said_to_depend_on_earlier_calls():
    def attention(Q, K, V, mask=None):  # noqa: N803 - wrong, but the same answer to the same input, always
        out, A = reference.attention(Q, K, V, mask)
        return out * 2, A

    started = []
    _, words = said(lesson_head(attention=attention), afresh=lambda: started.append(True))
    assert started and "earlier calls" not in words


def test_a_hang_is_told_on_the_smallest_probe_it_hangs_on_beside_one_it_answers():
    """softmax hangs on a tied maximum; attention, over it, hangs too and is told so
    conditionally; causal_mask, which hangs on every probe, is told nothing (no answer shows
    that it hangs on some inputs only)."""
    tried = []

    def returns(probe: diagnoses.Probe) -> bool:
        tried.append(probe)
        if probe.function == "causal_mask":
            return False
        x = probe.args[0] if probe.function == "softmax" else probe.args[0] @ probe.args[1].T
        axis = probe.kwargs.get("axis", -1)
        return not np.any(np.sum(x == x.max(axis=axis, keepdims=True), axis=axis) > 1)

    told = diagnoses.hangs(returns, KNOWN, ["causal_mask", "attention", "softmax"], 1.0)
    assert [d["id"] for d in told] == ["observed", "observed"]
    softmax, attention = (d["message"] for d in told)
    assert softmax.startswith("softmax hangs on some inputs: softmax(np.array([[-np.inf, -np.inf, -np.inf], [1.0, 2.0, 3.0]])) did not return within 1 s, even as the first call of a fresh process, though softmax(")
    assert attention.startswith("attention (or softmax, if attention calls it) hangs on some inputs: attention(")
    assert sum(probe.function == "causal_mask" for probe in tried) == diagnoses.MOST_HANGS  # no answer: it stops


def test_a_raise_where_the_lesson_raises_too_is_an_answer_a_variant_must_give():
    """A course's top_k must refuse a k outside 1..m. One that refuses k > m only is not
    told the mistake of a top_k that refuses nothing: its raise on k > m is the right
    answer, which that variant does not give. The variant itself is still named."""
    scores = np.arange(15.0).reshape(3, 5)

    def reference(scores, k):
        if k < 1 or k > scores.shape[1]:
            raise ValueError("k must be in 1..m")
        return np.argsort(-scores, axis=1)[:, :k]

    def no_check(scores, k):
        return np.argsort(-scores, axis=1)[:, :k]

    def upper_only(scores, k):
        if k > scores.shape[1]:
            raise ValueError("k is larger than m")
        return np.argsort(-scores, axis=1)[:, :k]

    known = diagnoses.Mistakes(
        probes={"top_k": [diagnoses.Probe("top_k", (scores, k)) for k in (2, 6, 0)]},
        reference={"top_k": reference},
        mistakes=(diagnoses.Mistake("top_k_no_check", "top_k never raises ValueError.", "top_k", (no_check,)),),
    )
    assert [d["id"] for d in diagnoses.diagnose(lambda probe: diagnoses.run(no_check, probe), known)] == ["top_k_no_check"]
    told = diagnoses.diagnose(lambda probe: diagnoses.run(upper_only, probe), known)
    assert [d["id"] for d in told] == ["observed"] and "where the lesson's code raises" in told[0]["message"]


def test_a_lower_tolerance_names_a_mistake_that_shows_only_in_tiny_answers():
    """A norm with 1e-12 added under the square root differs by 1e-6 on a row of 1e-8: the
    same as the reference within the checks' 1e-5, told apart with Mistakes(atol=1e-12)."""
    tiny = np.array([[1e-8, 0.0], [3.0, 4.0]])

    def reference(X):
        return np.sqrt(np.sum(X**2, axis=1))

    def eps_inside(X):
        return np.sqrt(np.sum(X**2, axis=1) + 1e-12)

    def known(**tolerance):
        return diagnoses.Mistakes(
            probes={"row_norms": [diagnoses.Probe("row_norms", (tiny,))]},
            reference={"row_norms": reference},
            mistakes=(diagnoses.Mistake("row_norms_eps_inside", "row_norms adds a constant under the root.", "row_norms", (eps_inside,)),),
            **tolerance,
        )

    def student(probe):
        return diagnoses.run(eps_inside, probe)

    assert diagnoses.diagnose(student, known()) == []
    assert [d["id"] for d in diagnoses.diagnose(student, known(atol=1e-12))] == ["row_norms_eps_inside"]
