"""The sequel's step-by-step diagnoses (grader.assignments.multi_head.steps, searched by
grader.diagnoses.search), on heads written here and called in this process: what the search
proves through the student's own helpers, and that every sentence and piece of advice is
true of the head it is told to."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from grader import diagnoses
from grader.assignments.multi_head import reference
from grader.assignments.multi_head.mistakes import KNOWN
from grader.diagnoses.inference import Step, ok, shared_wrong
from grader.diagnoses.search import Model, Stage, explain, proven, remembered


def split_heads(X, n_heads):  # noqa: N803
    n, d_model = X.shape
    return X.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def merge_heads(H):  # noqa: N803
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def layer(scale=lambda d_head, d_model: np.sqrt(d_head), fill=-np.inf, axis=-1, with_wo=True):
    """The handout's multi_head_attention, calling the head's own helpers, with steps replaced."""

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):  # noqa: N803
        Q, K, V = (head.split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
        scores = Q @ np.swapaxes(K, -1, -2) / scale(X.shape[1] // n_heads, X.shape[1])
        if mask is not None:
            scores = np.where(mask, scores, fill)
        e = np.exp(scores - scores.max(axis=axis, keepdims=True))
        A = e / e.sum(axis=axis, keepdims=True)
        merged = head.merge_heads(A @ V)
        return (merged @ Wo if with_wo else merged), A

    head = SimpleNamespace(split_heads=split_heads, merge_heads=merge_heads, multi_head_attention=multi_head_attention)
    return head


def caller(head: SimpleNamespace):
    def call(probe: diagnoses.Probe) -> diagnoses.Answer:
        args = tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in probe.args)
        try:
            with np.errstate(all="ignore"):
                return diagnoses.Answer(getattr(head, probe.function)(*args, **probe.kwargs), args)
        except Exception as error:
            return diagnoses.Answer(diagnoses.RAISED, args, raised=type(error).__name__, text=str(error))

    return call


def told(head: SimpleNamespace) -> dict[str, str]:
    return {entry["id"]: entry["message"] for entry in diagnoses.diagnose(caller(head), KNOWN)}


def test_the_handouts_layer_is_told_nothing():
    assert told(layer()) == {}


def test_two_mistakes_in_the_layer_are_both_named():
    assert set(told(layer(axis=1, with_wo=False))) == {"mha_softmax_wrong_axis", "mha_no_output_projection"}


def test_a_mistake_of_the_layer_is_named_behind_a_wrong_split_it_calls():
    head = layer(scale=lambda d_head, d_model: np.sqrt(d_model))
    head.split_heads = lambda X, n_heads: X.reshape(n_heads, X.shape[0], X.shape[1] // n_heads)  # noqa: N803
    assert set(told(head)) == {"split_heads_reshape_only", "mha_scale_d_model"}


def test_a_layer_right_over_its_wrong_split_is_told_nothing_of_its_own():
    head = layer()
    head.split_heads = lambda X, n_heads: X.reshape(n_heads, X.shape[0], X.shape[1] // n_heads)  # noqa: N803
    assert set(told(head)) == {"split_heads_reshape_only"}


def test_large_negative_fills_are_named_by_the_fully_masked_row_alone():
    for fill in (-1e9, np.finfo(float).min):
        message = told(layer(fill=fill))["mha_mask_large_negative"]
        assert "nan" in message and "-inf" in message


def test_a_merge_by_reshape_in_the_layer_is_not_said_to_mix_the_attention():
    """The untrue sentence of an earlier version: A is right when only the merge is a reshape."""
    head = layer()

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):  # noqa: N803
        Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
        _, A = reference.attention(Q, K, V, mask)
        heads = A @ V
        return heads.reshape(X.shape[0], X.shape[1]) @ Wo, A

    head.multi_head_attention = multi_head_attention
    message = told(head)["mha_reshape_without_transpose"]
    assert "merges" in message and "each row of out mixes tokens and heads" in message and "splits" not in message


def test_a_merge_by_reshape_beside_a_wrong_scale_is_not_said_to_leave_the_weights_right():
    head = layer(scale=lambda d_head, d_model: np.sqrt(d_model))

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):  # noqa: N803
        Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
        scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(X.shape[1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        A = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = A / A.sum(axis=-1, keepdims=True)
        return (A @ V).reshape(X.shape[0], X.shape[1]) @ Wo, A

    head.multi_head_attention = multi_head_attention
    found = told(head)
    assert set(found) == {"mha_scale_d_model", "mha_reshape_without_transpose"}
    assert "weights A are right" not in found["mha_reshape_without_transpose"]


def test_a_scale_written_inline_with_a_power_is_told_what_python_computes():
    head = layer(scale=lambda d_head, d_model: 2.0 * d_head)  # scores / d_head ** 1/2
    message = told(head)["mha_scale_precedence"]
    assert "2·d_head" in message and "scores / d_head ** 1/2" in message
    head = layer(scale=lambda d_head, d_model: d_head / 2)  # scale = d_head ** 1/2; scores / scale
    message = told(head)["mha_scale_precedence"]
    assert "d_head / 2" in message and "scores / d_head ** 1/2" not in message


def test_a_layer_returning_a_then_out_is_told_so():
    head = layer()
    lesson = head.multi_head_attention
    head.multi_head_attention = lambda *args, **kwargs: tuple(reversed(lesson(*args, **kwargs)))
    (sentence,) = told(head).values()
    assert "returns (A, out)" in sentence


def test_advice_for_a_split_the_layer_undoes_says_to_fix_both():
    tokens_first = lambda X, n_heads: X.reshape(X.shape[0], n_heads, X.shape[1] // n_heads)  # noqa: E731, N803
    head = layer()
    head.split_heads = tokens_first
    head.multi_head_attention = lambda X, Wq, Wk, Wv, Wo, n_heads, mask=None: reference.multi_head_attention(  # noqa: N803
        X, Wq, Wk, Wv, Wo, n_heads, mask
    )
    assert "fix the two together" in told(head)["split_heads_tokens_first"]
    # A layer that calls the wrong split as it is fails with it: the plain advice is right there.
    calls_it = layer()
    calls_it.split_heads = tokens_first
    assert "fix the two together" not in told(calls_it).get("split_heads_tokens_first", "")


def test_what_no_step_explains_gets_a_true_sentence_and_no_id():
    head = layer(scale=lambda d_head, d_model: np.sqrt(d_head) + 1)
    found = told(head)
    assert set(found) == {"observed"}
    assert "rows" not in found["observed"]  # each row still sums to 1: that would be untrue


def test_the_search_keeps_only_the_combinations_that_raise_where_the_head_raised():
    """A toy model: x * a + b, with two ways for each step; a raise proves nothing on its own."""
    doubles = Step("doubles", "doubles")
    model = Model(
        tables={"a": {ok("once"): 1.0, doubles: 2.0}, "b": {ok("plus 0"): 0.0, Step("plus 1", "shifts"): 1.0}},
        stages=(Stage(("a",), (0,)), Stage(("b",), (0, 1))),
        compute=lambda ways, x: x * ways["a"] + ways["b"],
    )
    probes = [(np.array([1.0, 2.0]),), (np.array([3.0]),)]
    explained = explain(model, probes, [np.array([2.0, 4.0]), np.array([6.0])])
    assert shared_wrong(explained) == [doubles]
    assert explain(model, probes, [np.array([5.0, 4.0]), np.array([6.0])]) == []


def test_a_remembered_helper_is_called_once_per_argument_and_raises_where_it_did():
    calls = []

    def helper(x):
        calls.append(x)
        return diagnoses.RAISED if x.sum() < 0 else x * 2

    once = remembered(helper)
    assert np.array_equal(once(np.ones(2)), np.full(2, 2.0)) and np.array_equal(once(np.ones(2)), np.full(2, 2.0))
    assert len(calls) == 1
    try:
        once(-np.ones(2))
    except ValueError:
        pass
    else:
        raise AssertionError("a helper that raised must raise again")


def test_a_helper_whose_call_tells_nothing_leaves_the_layer_unread():
    """A split_heads that hangs on the diagnosis's own inputs (not on the probes): nothing is said of the layer."""
    head = layer(scale=lambda d_head, d_model: np.sqrt(d_model))
    probes_answered = set()

    def call(probe: diagnoses.Probe) -> diagnoses.Answer:
        if probe.function == "split_heads" and len(probe.args[0]) and not any(
            probe.args[0] is p.args[0] for p in KNOWN.probes["split_heads"]
        ):
            probes_answered.add(probe.function)
            raise diagnoses.Unanswered("hung")
        return caller(head)(probe)

    found = {entry["id"] for entry in diagnoses.diagnose(call, KNOWN)}
    assert probes_answered and "mha_scale_d_model" not in found


def test_a_mask_left_out_of_the_last_head_is_told_as_that():
    head = layer()

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):  # noqa: N803
        Q, K, V = (split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
        scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        if mask is not None:
            for h in range(n_heads - 1):
                scores[h] = np.where(mask, scores[h], -np.inf)
        A = np.exp(scores - scores.max(axis=-1, keepdims=True))
        A = A / A.sum(axis=-1, keepdims=True)
        return merge_heads(A @ V) @ Wo, A

    head.multi_head_attention = multi_head_attention
    message = told(head)["mha_mask_one_head"]
    assert "every head but the last" in message and "first head" not in message


def test_ways_of_one_mistake_that_explain_alike_lose_their_words():
    first, last = Step("the first head only", "one_head"), Step("the last head only", "one_head")
    told_apart = proven([(ok("a"), first), (ok("b"), first)])
    assert told_apart == [first]
    (alike,) = proven([(ok("a"), first), (ok("a"), last)])
    assert alike.mistake == "one_head" and alike.words == ""


def test_a_layer_that_changes_its_mask_is_told_it_is_the_mask():
    head = layer()
    lesson = head.multi_head_attention

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):  # noqa: N803
        if mask is not None:
            np.logical_not(mask, out=mask)  # the caller's mask, inverted in place
            mask = ~mask  # a new array, the mask as given: the answers are right
        return lesson(X, Wq, Wk, Wv, Wo, n_heads, mask)

    head.multi_head_attention = multi_head_attention
    message = told(head)["mha_mutates_inputs"]
    assert "changes mask in place" in message and "X or weights" not in message


def test_a_layer_that_raised_on_every_probe_is_read_at_once_and_told_nothing_of_its_own():
    head = layer()
    head.split_heads = lambda X, n_heads: None  # noqa: N803 - a stub: the layer raises on every call
    found = told(head)
    assert set(found) == {"unfinished"}


def test_advice_for_a_layer_with_a_stub_merge_does_not_send_it_to_the_stub():
    head = layer(with_wo=False)

    def stub(H):  # noqa: N803
        raise NotImplementedError

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):  # noqa: N803
        out, A = reference.multi_head_attention(X, Wq, Wk, Wv, np.eye(X.shape[1]), n_heads, mask)
        return out, A

    head.merge_heads, head.multi_head_attention = stub, multi_head_attention
    message = told(head)["mha_no_output_projection"]
    assert "merge_heads(" not in message


def test_a_stage_whose_probes_all_raised_works_out_no_way_and_too_many_survivors_stop_the_search():
    calls = []

    def compute(ways, x):
        calls.append(x)
        return x * ways["a"] + ways["b"]

    tables = {"a": {ok("once"): 1.0, Step("doubles", "doubles"): 2.0}, "b": {ok("plus 0"): 0.0, Step("plus 1", "shifts"): 1.0}}
    model = Model(tables=tables, stages=(Stage(("a",), (0,)), Stage(("b",), (1,))), compute=compute)
    probes = [(np.array([1.0]),), (np.array([3.0]),)]
    explained = explain(model, probes, [diagnoses.RAISED, np.array([7.0])], prefer_alike=False)
    assert shared_wrong(explained) == [Step("doubles", "doubles"), Step("plus 1", "shifts")]
    assert all(x[0] == 3.0 for x in calls)  # the raised probe was never worked out
    bounded = Model(tables=tables, stages=model.stages, compute=compute, most_alive=1)
    assert explain(bounded, probes, [diagnoses.RAISED, np.array([7.0])]) == []
