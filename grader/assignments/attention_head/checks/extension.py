"""Bonus checks that go beyond the lesson's required head."""

from grader.authoring.checks import expect
from grader.assignments.attention_head import reference, strategies
from grader.authoring.checks import check


@check(qkv=strategies.batched_attention_inputs(), max_examples=20)
def test_batched(submission, qkv):
    """attention accepts a leading batch axis: (b, n, d) inputs, as the lesson's einsum note says."""
    Q, K, V = qkv
    got = expect.pair(submission.attention(Q, K, V), "attention(Q, K, V) on (b, n, d) inputs")
    expect.same_attention(got, reference.attention(Q, K, V))
