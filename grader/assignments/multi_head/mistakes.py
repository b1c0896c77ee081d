"""The known mistakes of multi-head attention: probes, variants, steps and messages.

``split_heads`` and ``merge_heads`` are matched against whole variants of the reference,
one known mistake each (see :mod:`grader.diagnoses`). ``multi_head_attention`` is read
step by step (:mod:`grader.assignments.multi_head.steps`, searched by
:mod:`grader.diagnoses.search`) with the student's own ``split_heads`` and ``merge_heads``
among the ways it may split and merge: so two mistakes in it are both named, and so is
a mistake behind a wrong split or merge it calls (named once, where it is made).

A reshape-only ``split_heads`` is often paired with a reshape-only ``merge_heads``: the
two are then inverses of each other, so ``split_merge.round_trip`` passes, but each is
named on its own probes. A head that keeps correct helpers but reshapes inline in
multi_head_attention is ``mha_reshape_without_transpose``, told of the split or the
merge, whichever it is.

Advice that would break the student's other function is not given as the fix: where a
wrong ``split_heads`` or ``merge_heads`` sits under a ``multi_head_attention`` whose
answers are right (it undoes the helper's mistake itself), the message says to fix the
two together.

To add a mistake: a variant of a helper in ``steps.py`` (beside the split and merge
students write) and a :class:`Mistake` in ``MISTAKES`` naming it, or a way of a step in
``steps.py`` with the mistake's id and a :class:`Mistake` with no variant; then add a head with that mistake to ``tests/multi_head/heads/buggy/`` with a
``# diagnosis:`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from grader.assignments.multi_head import reference, steps
from grader.authoring.mistakes import (
    UNREADABLE,
    Answer,
    Evidence,
    Mistake,
    Mistakes,
    RIGHT,
    Probe,
    StudentCall,
    changes_its_inputs,
    fixed_matrix as _matrix,
    same,
    values_read,
)
from grader.authoring.steps import Finding, finding
from grader.authoring.steps import explain, proven, remembered


def _ws(seed: int, d_model: int) -> tuple[np.ndarray, ...]:
    """Wq, Wk, Wv, Wo for probes: entries about 1/sqrt(d_model), as the lesson draws them."""
    return tuple(_matrix(seed + i, d_model, d_model, 0.5) for i in range(4))


# Whole numbers 0..: where each one lands after a split or a merge reads off at a glance.
COUNTING_2x4 = np.arange(8.0).reshape(2, 4)
X_3x6 = _matrix(1, 3, 6)
CAUSAL_3 = np.tril(np.ones((3, 3), dtype=bool))
CAUSAL_4 = np.tril(np.ones((4, 4), dtype=bool))
# Every row keeps a key (no nan), and no head's weights are the same with and without it.
PATTERN_3 = np.array([[False, True, True], [True, False, True], [True, True, False]])
# Row 1 masked whole: nan in that row of every head, where -1e9 or the smallest float gives weights.
ROW_1_MASKED = np.array([[True, False, True], [False, False, False], [True, True, False]])
X_3x4, W_4 = _matrix(2, 3, 4), _ws(10, 4)
X_2x6, W_6 = _matrix(3, 2, 6), _ws(20, 6)
X_4x6 = _matrix(4, 4, 6)

PROBES: dict[str, list[Probe]] = {
    "split_heads": [
        Probe("split_heads", (COUNTING_2x4, 2)),
        Probe("split_heads", (X_3x6, 3)),  # d_head 2
        Probe("split_heads", (X_3x6, 2)),  # d_head 3
        Probe("split_heads", (_matrix(5, 4, 2), 2)),  # d_head 1
        Probe("split_heads", (COUNTING_2x4, 1)),  # one head: a stub that answers it is no stub
    ],
    "merge_heads": [
        Probe("merge_heads", (np.arange(8.0).reshape(2, 2, 2),)),
        Probe("merge_heads", (np.arange(12.0).reshape(2, 3, 2),)),  # 2 heads, 3 tokens
        Probe("merge_heads", (np.arange(12.0).reshape(3, 2, 2),)),  # 3 heads, 2 tokens
        Probe("merge_heads", (np.arange(12.0).reshape(2, 2, 3),)),  # heads 3 wide
        Probe("merge_heads", (np.arange(6.0).reshape(1, 3, 2),)),  # one head: a stub that answers it is no stub
    ],
    "multi_head_attention": [
        Probe("multi_head_attention", (X_3x4, *W_4, 2)),
        Probe("multi_head_attention", (X_3x4, *W_4, 2, CAUSAL_3)),
        Probe("multi_head_attention", (X_3x4, *W_4, 2, PATTERN_3)),
        Probe("multi_head_attention", (X_2x6, *W_6, 3)),  # 3 heads of width 2
        Probe("multi_head_attention", (X_4x6, *W_6, 2, CAUSAL_4)),  # 2 heads of width 3
        Probe("multi_head_attention", (X_3x4, *W_4, 1)),  # one head: the lesson's
        # As many heads as tokens: a max or a sum without keepdims broadcasts there instead of raising.
        Probe("multi_head_attention", (_matrix(6, 2, 4), *W_4, 2)),
        Probe("multi_head_attention", (X_3x4, *W_4, 2, ROW_1_MASKED)),
        # As many heads as tokens again, where sqrt(d_model), d_head and the others are all different numbers.
        Probe("multi_head_attention", (X_3x6, *W_6, 3)),
        # Three heads under a mask: the first head alone and every head but the last are told apart.
        Probe("multi_head_attention", (X_3x6, *W_6, 3, CAUSAL_3)),
    ],
}
# Which probes of multi_head_attention tell the steps of its weights and output apart, and which its mask.
UNMASKED, MASKED = (0, 3, 5, 6, 8), (1, 2, 4, 7, 9)

REFERENCE: dict[str, Callable] = dict(reference.FUNCTIONS)


# -- what a message says of this very head ---------------------------------------------------


def _all_right(function: str, probes: list[Probe], answers: list[Answer]) -> bool:
    """Whether the head answered every probe of ``function`` as the reference does."""
    return bool(answers) and all(same(answer.value, REFERENCE[function](*probe.args)) for probe, answer in zip(probes, answers))


def _right(evidence: Evidence, function: str) -> bool:
    return _all_right(function, evidence.probes[function], evidence.answers.get(function, []))


def _layer_right_as_it_is(evidence: Evidence) -> str:
    """For a wrong split_heads or merge_heads: where multi_head_attention's answers are right
    (it undoes the helper's mistake itself, or does not call it), fixing the helper alone
    may break it; the message says so."""
    return _RIGHT_AS_IT_IS if _right(evidence, "multi_head_attention") else ""


_RIGHT_AS_IT_IS = (
    " Your multi_head_attention's answers are right as it is: if it calls this function and reorders what it "
    "gets to make up for it, fix the two together, or the fix here breaks it."
)


HELPER_OF_THE_LAYER = {"consequence": _layer_right_as_it_is}
LAYER_PARAMETERS = ("X", "Wq", "Wk", "Wv", "Wo", "n_heads", "mask")


def _changed_arguments(evidence: Evidence) -> str:
    """The arguments some call of multi_head_attention left changed, by name."""
    changed = [
        name for index, name in enumerate(LAYER_PARAMETERS)
        if any(
            index < len(answer.args_after) and index < len(probe.args) and not same(answer.args_after[index], probe.args[index])
            for probe, answer in zip(evidence.probes["multi_head_attention"], evidence.answers.get("multi_head_attention", []))
        )
    ]
    return " and ".join(", ".join(changed).rsplit(", ", 1)) if changed else "an argument"


def _how_to_split_and_merge(evidence: Evidence) -> str:
    """The fix for a split or merge by reshape inside the layer: the student's own helpers where they are right."""
    if _right(evidence, "split_heads") and _right(evidence, "merge_heads"):
        return " Your split_heads and merge_heads are right: call them (split_heads(X @ Wq, n_heads), ..., merge_heads(A @ V))."
    return (
        " Reshape to (n, n_heads, d_head) and .transpose(1, 0, 2) to split; .transpose(1, 0, 2) and reshape to "
        "(n, d_model) to merge. If it calls split_heads or merge_heads and reorders what they give, fix them together: "
        "fixing the helpers alone will not fix it."
    )

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "split_heads_reshape_only",
        "split_heads reshapes X straight to (n_heads, n, d_head) without a transpose. The shape is "
        "right but the numbers are not: reshape reads X row by row, so head 0 gets the first tokens' "
        "whole rows and tokens and heads are mixed. Reshape to (n, n_heads, d_head), which cuts each "
        "token's row into its heads, then move the heads axis first with .transpose(1, 0, 2) "
        "(handout section 3, 'Why the transpose').{consequence}",
        "split_heads",
        (steps.split_reshape_only,),
        **HELPER_OF_THE_LAYER,
    ),
    Mistake(
        "split_heads_interleaved",
        "split_heads gives head h every n_heads-th column (h, h + n_heads, ...) instead of the block "
        "h*d_head:(h+1)*d_head: reshaping to (n, d_head, n_heads) cuts each row the wrong way round. "
        "Reshape to (n, n_heads, d_head), then .transpose(1, 0, 2) (handout section 3).{consequence}",
        "split_heads",
        (steps.split_interleaved,),
        **HELPER_OF_THE_LAYER,
    ),
    Mistake(
        "split_heads_tokens_first",
        "split_heads returns shape (n, n_heads, d_head): each token's row is cut into heads, but the "
        "heads axis must come first, (n_heads, n, d_head), so that H[h] is one head's (n, d_head) "
        "matrix: move it there with .transpose(1, 0, 2) (handout section 3).{consequence}",
        "split_heads",
        (steps.split_tokens_first,),
        **HELPER_OF_THE_LAYER,
    ),
    Mistake(
        "merge_heads_no_transpose",
        "merge_heads reshapes H straight to (n, n_heads * d_head) without a transpose, so the rows of "
        "the result mix tokens and heads: row 0 holds head 0's first tokens instead of token 0 in every "
        "head. Move the tokens axis first with .transpose(1, 0, 2), then reshape to (n, n_heads * d_head) "
        "(handout section 4, 'Merging the heads').{consequence}",
        "merge_heads",
        (steps.merge_reshape_only,),
        **HELPER_OF_THE_LAYER,
    ),
    Mistake(
        "merge_heads_interleaved",
        "merge_heads interleaves the heads' columns (head 0's first column, head 1's first column, ...) "
        "instead of putting head h in the block h*d_head:(h+1)*d_head: it transposes to (n, d_head, "
        "n_heads) before reshaping. Use .transpose(1, 0, 2), to (n, n_heads, d_head) (handout section 4)."
        "{consequence}",
        "merge_heads",
        (steps.merge_interleaved,),
        **HELPER_OF_THE_LAYER,
    ),
    Mistake(
        "merge_heads_stacks_tokens",
        "merge_heads stacks the heads on top of each other, (n_heads * n, d_head), as np.concatenate "
        "does along its default axis 0: heads must sit side by side, in columns, one row per token: "
        "(n, n_heads * d_head), e.g. np.concatenate(list(H), axis=1) (handout section 4).{consequence}",
        "merge_heads",
        (steps.merge_stacks_tokens,),
        **HELPER_OF_THE_LAYER,
    ),
    # multi_head_attention's mistakes are steps of steps.py: their words come from the step found.
    Mistake(
        "mha_reshape_without_transpose",
        "multi_head_attention {words}. Reshape reads an array row by row, so without the transpose it cuts the "
        "wrong numbers into heads (handout sections 3 and 4).{consequence}",
        "multi_head_attention",
        words="splits or merges the heads as a reshape alone would",
        consequence=_how_to_split_and_merge,
    ),
    Mistake(
        "mha_projections_transposed",
        "multi_head_attention projects with a transposed weight ({words}): Q = X @ Wq, K = X @ Wk, V = X @ Wv "
        "and out = (the merged heads) @ Wo, as the handout's shapes table says. Square weights fit either way, "
        "so only the numbers show it (handout section 2).",
        "multi_head_attention",
        words="X @ W.T, or the merged heads @ Wo.T",
    ),
    Mistake(
        "mha_scale_d_model",
        "multi_head_attention divides the scores by sqrt(d_model); each head's dot products have "
        "d_head = d_model // n_heads terms, so the scale is sqrt(d_head) (handout section 5, "
        "'The scale is per head').",
        "multi_head_attention",
    ),
    Mistake(
        "mha_missing_scale",
        "multi_head_attention never divides the scores by sqrt(d_head), so the weights are sharper "
        "than the lesson's head makes them. Each head is softmax(Q_h K_h^T / sqrt(d_head)) V_h "
        "(handout section 5, and the lesson's 'Why divide by sqrt(d_k)?').",
        "multi_head_attention",
    ),
    Mistake(
        "mha_scale_by_d_head",
        "multi_head_attention divides the scores by d_head instead of sqrt(d_head). A dot product of "
        "d_head unit-variance terms has standard deviation sqrt(d_head) (handout section 5).",
        "multi_head_attention",
    ),
    Mistake(
        "mha_scale_precedence",
        "multi_head_attention divides the scores by {words}. Write the scale so it is sqrt(d_head): "
        "scores / np.sqrt(d_head), or scores * d_head ** -0.5 (handout section 5).",
        "multi_head_attention",
        words="a power of d_head written without parentheses (** binds before /: d_head ** -1/2 is (1 / d_head) / 2)",
    ),
    Mistake(
        "mha_scale_wrong_dim",
        "multi_head_attention divides the scores by {words}, where each head divides by sqrt(d_head), the width of "
        "its own queries, d_head = d_model // n_heads (handout section 5).",
        "multi_head_attention",
        words="the square root of another size (the number of tokens or of heads)",
    ),
    Mistake(
        "mha_softmax_wrong_axis",
        "multi_head_attention's weights are a softmax taken {words}, so the rows of A do not sum to 1. Each row, "
        "one query of one head, is a distribution over the keys: softmax along the last axis, softmax(scores, "
        "axis=-1), whether the axis is passed or is the softmax's default (handout section 2, the shapes table).",
        "multi_head_attention",
        words="along another axis than the keys",
    ),
    Mistake(
        "mha_softmax_no_keepdims",
        "The softmax multi_head_attention uses takes {words}. Keep the axis: s.max(axis=-1, keepdims=True) and "
        "e.sum(axis=-1, keepdims=True), as the template's softmax does.",
        "multi_head_attention",
        words="a max or a sum without keepdims, which then lines up with the wrong axis",
    ),
    Mistake(
        "mha_no_output_projection",
        "multi_head_attention returns the merged heads without multiplying them by Wo. Wo is what mixes "
        "the heads' outputs into one d_model-wide output: out = (the merged heads) @ Wo "
        "(handout section 4, 'Wo mixes the heads').",
        "multi_head_attention",
    ),
    Mistake(
        "mha_weights_averaged",
        "multi_head_attention returns the heads' weights averaged into one (n, n) matrix. A holds every head's "
        "own weights, shape (n_heads, n, n): A[h] is head h's (handout section 2, the shapes table).",
        "multi_head_attention",
    ),
    Mistake(
        "mha_default_causal",
        "multi_head_attention applies a causal mask when no mask is given: with mask=None every token may "
        "attend to every token, later ones too. Mask only when a mask is passed: if mask is not None "
        "(handout section 6).",
        "multi_head_attention",
    ),
    Mistake(
        "mha_mask_one_head",
        "multi_head_attention applies the mask in {words}; the heads left out still see every "
        "token, the future too. The one (n, n) mask holds for every head: np.where(mask, scores, -np.inf) "
        "on the (n_heads, n, n) scores broadcasts it over the heads, and a loop over heads masks each one "
        "(handout section 6, 'One mask for every head').",
        "multi_head_attention",
        words="some heads, not all",
    ),
    Mistake(
        "mha_mask_ignored",
        "multi_head_attention accepts a mask but never applies it, so a causal mask does not stop any "
        "head from seeing the future (handout section 6: scores = np.where(mask, scores, -np.inf) before "
        "softmax, in every head).",
        "multi_head_attention",
    ),
    Mistake(
        "mha_mask_inverted",
        "multi_head_attention reads the mask the other way round, True as blocked. Here, as in the lesson, "
        "mask[i, j] == True means token i may attend to token j, and the scores where it is False become -inf: "
        "np.where(mask, scores, -np.inf) (handout section 6). Some libraries use True for blocked; this "
        "assignment does not.",
        "multi_head_attention",
    ),
    Mistake(
        "mha_mask_large_negative",
        "multi_head_attention's masked scores behave as {words} would, not as -inf. Their weights still come out 0 "
        "while a row keeps a key, but a row whose every key is masked gets weights that sum to 1 where it must "
        "be nan, the sign that no key is left: np.where(mask, scores, -np.inf) (handout section 6).",
        "multi_head_attention",
        words="a large negative number",
    ),
    Mistake(
        "mha_mask_zero_fill",
        "multi_head_attention sets the masked scores to 0 instead of -inf: exp(0) is not 0, so the masked "
        "tokens keep weight. np.where(mask, scores, -np.inf) makes their weight exactly 0 (handout section 6).",
        "multi_head_attention",
    ),
    Mistake(
        "mha_mask_added_not_filled",
        "multi_head_attention adds the bool mask to the scores as numbers: that adds 1 where a token may attend "
        "and 0 where it may not, so nothing is masked. The mask says which scores become -inf: "
        "np.where(mask, scores, -np.inf) (handout section 6).",
        "multi_head_attention",
    ),
    Mistake(
        "mha_mask_after_softmax",
        "multi_head_attention zeroes the masked weights after softmax instead of masking the scores before it, "
        "so the rows of A no longer sum to 1. Mask the scores, np.where(mask, scores, -np.inf), then take "
        "softmax (handout section 6).",
        "multi_head_attention",
    ),
    Mistake(
        "mha_mutates_inputs",
        "multi_head_attention changes {consequence} in place (an operation such as Wq /= ..., mask[...] = ... "
        "or X.shape = ... on an argument), so the caller's arrays are different after the call. Compute new arrays instead (X @ Wq / np.sqrt(d_head) leaves both alone; "
        "~mask is a new array) (handout section 8).",
        "multi_head_attention",
        shows_in=changes_its_inputs,
        beside_answers=True,
        consequence=_changed_arguments,
    ),
)


# -- multi_head_attention read step by step ---------------------------------------------------


def _answering(call: Callable[[Probe], Answer], function: str) -> StudentCall:
    """The head's own ``function``, called by the diagnosis: its answer, or RAISED."""
    return remembered(lambda *args: call(Probe(function, args)).value)


def _infer_layer(got: list[Answer], call: Callable[[Probe], Answer], helpers: str, standing: Mapping[str, str]) -> Finding:
    """multi_head_attention's wrong steps, with the student's own split_heads and merge_heads
    among the ways it may split and merge (where they answer); else, around helpers that are
    right, what its answers show."""
    values = values_read(got)
    probes = [probe.args for probe in PROBES["multi_head_attention"]]
    own = {name: _answering(call, name) if standing.get(name) != UNREADABLE else None for name in ("split_heads", "merge_heads")}
    model = steps.model(own["split_heads"], own["merge_heads"], UNMASKED, MASKED)
    explained = explain(model, probes, values)
    wrong = proven(explained)
    if wrong is not None:
        return finding(wrong, "multi_head_attention")
    if explained:
        return Finding([], [])
    # A later stage (the mask's) fits no way: what the earlier stages' probes alone prove stands,
    # and the rest is said as observed.
    early = proven(explain(model, probes, values, as_far_as=True)) or []
    named = finding([step for step in early if step.mistake is not None], "multi_head_attention")
    if helpers != RIGHT:  # its helpers may be what the rest of its answers show
        return named
    return Finding(named.steps, steps.observed(probes, values))


def _infer_helper(function: str) -> Callable[..., Finding]:
    """What split_heads or merge_heads gives where no known mistake explains it: one true sentence."""

    def inferred(got: list[Answer], call: Callable[[Probe], Answer], helpers: str, standing: Mapping[str, str]) -> Finding:
        probes = [probe.args for probe in PROBES[function]]
        sentences = steps.helper_observed(function, probes, values_read(got), REFERENCE[function])
        layer = PROBES["multi_head_attention"]
        if sentences and _all_right("multi_head_attention", layer, [call(probe) for probe in layer]):
            sentences = [sentences[0] + _RIGHT_AS_IT_IS]
        return Finding([], sentences)

    return inferred


def _lesson_layer(split_heads: StudentCall, merge_heads: StudentCall) -> Callable:
    """The handout's multi_head_attention, calling the student's split_heads and merge_heads."""

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, mask=None):  # noqa: N803 - the handout's names
        Q, K, V = (np.asarray(split_heads(X @ W, n_heads), dtype=float) for W in (Wq, Wk, Wv))
        heads, A = reference.attention(Q, K, V, mask)
        return np.asarray(merge_heads(heads), dtype=float) @ Wo, A

    return multi_head_attention


KNOWN = Mistakes(
    probes=PROBES,
    reference=REFERENCE,
    mistakes=MISTAKES,
    helpers={"multi_head_attention": ("split_heads", "merge_heads")},
    over_helpers={"multi_head_attention": lambda student: [_lesson_layer(student("split_heads"), student("merge_heads"))]},
    inferred={
        "split_heads": _infer_helper("split_heads"),
        "merge_heads": _infer_helper("merge_heads"),
        "multi_head_attention": _infer_layer,
    },
)
