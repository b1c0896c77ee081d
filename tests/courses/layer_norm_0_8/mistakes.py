"""The known mistakes of layer normalisation: probes, variants and messages.

Every mistake but one is a *variant*: a top-level function below that makes exactly that
mistake, written as a student would, using only ``np`` and the assignment's other
functions by their students' names (``row_stats``): a tool copies a variant's source,
renamed, into a copy of ``solution.py`` and grades that file as a submission. The one that
is not told by its answers, ``layer_norm_changes_inputs``, is told by the arguments a call
leaves changed (:func:`changes_its_inputs`); its variant is there for that tool.

``layer_norm`` may call ``row_stats`` (the handout asks it to): a head whose ``row_stats``
is wrong, and whose ``layer_norm`` is the handout's over it, is told of ``row_stats`` alone
(``over_helpers``); the mistakes of ``layer_norm`` are named only where ``row_stats`` is
right (``builds_on``).

The probes tell every variant of a function apart from the reference and from each other
(``tests/courses/layer_norm_heads/`` holds a head for each, with its ``# expect:`` line):

- ``row_stats``: a wide, a square and a tall matrix (a mean over the columns has the shape
  of a mean over the rows only when X is square), and a matrix with a constant row;
- ``layer_norm``: the default eps, and eps = 0.5 and 2 passed (where eps goes and whether the
  one passed is used), a constant row (nan without eps), a square X (normalising the
  columns keeps the shape), gamma and beta neither 1 nor 0 nor equal;
- ``rms_norm``: the same kinds, and a row of zeros.

To add a mistake: write its variant here and a :class:`Mistake` in ``MISTAKES`` naming it and
the checks meant to catch it; add a head with it to ``layer_norm_heads/``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grader.authoring.mistakes import (
    Evidence,
    Mistake,
    Mistakes,
    Probe,
    StudentCall,
    changes_its_inputs,
    fixed_matrix,
    same,
)

from .calls import FUNCTIONS, row_stats  # noqa: F401 - row_stats: the variants call it by the students' name

# -- the variants: each a whole function, as a student writes it ------------------------------


def row_stats_over_columns(X):
    return X.mean(axis=0, keepdims=True), X.var(axis=0, keepdims=True)


def row_stats_over_columns_flat(X):
    return X.mean(axis=0), X.var(axis=0)


def row_stats_no_keepdims(X):
    return X.mean(axis=1), X.var(axis=1)


def row_stats_sample_variance(X):
    return X.mean(axis=1, keepdims=True), X.var(axis=1, ddof=1, keepdims=True)


def row_stats_std_for_var(X):
    return X.mean(axis=1, keepdims=True), X.std(axis=1, keepdims=True)


def layer_norm_over_columns(X, gamma, beta, eps=1e-5):
    mean = X.mean(axis=0, keepdims=True)
    var = X.var(axis=0, keepdims=True)
    return gamma * (X - mean) / np.sqrt(var + eps) + beta


def layer_norm_sample_variance(X, gamma, beta, eps=1e-5):
    mean = np.mean(X, axis=1, keepdims=True)
    std = np.std(X, axis=1, ddof=1, keepdims=True)
    return gamma * (X - mean) / np.sqrt(std**2 + eps) + beta


def layer_norm_no_eps(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * (X - mean) / np.sqrt(var) + beta


def layer_norm_eps_outside_sqrt(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * (X - mean) / (np.sqrt(var) + eps) + beta


def layer_norm_eps_ignored(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * (X - mean) / np.sqrt(var + 1e-5) + beta


def layer_norm_gamma_beta_swapped(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return beta * (X - mean) / np.sqrt(var + eps) + gamma


def layer_norm_no_gamma_beta(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return (X - mean) / np.sqrt(var + eps)


def layer_norm_divides_by_variance(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    return gamma * (X - mean) / (var + eps) + beta


def layer_norm_in_place(X, gamma, beta, eps=1e-5):
    mean, var = row_stats(X)
    X -= mean
    X /= np.sqrt(var + eps)
    X *= gamma
    X += beta
    return X


def rms_norm_subtracts_mean(X, gamma, eps=1e-5):
    centred = X - X.mean(axis=1, keepdims=True)
    return centred / np.sqrt(np.mean(centred**2, axis=1, keepdims=True) + eps) * gamma


def rms_norm_uses_variance(X, gamma, eps=1e-5):
    return X / np.sqrt(np.var(X, axis=1, keepdims=True) + eps) * gamma


def rms_norm_no_sqrt(X, gamma, eps=1e-5):
    return X / (np.mean(X**2, axis=1, keepdims=True) + eps) * gamma


def rms_norm_over_columns(X, gamma, eps=1e-5):
    return X / np.sqrt(np.mean(X**2, axis=0, keepdims=True) + eps) * gamma


# -- the probes -----------------------------------------------------------------------------

WIDE = fixed_matrix(1, 3, 4)
SQUARE = fixed_matrix(2, 3, 3)
TALL = fixed_matrix(3, 4, 2)
WITH_CONSTANT_ROW = np.array([[1.0, 1.0, 5.0, 5.0], [3.0, 3.0, 3.0, 3.0], [0.5, -1.0, 2.0, 0.0]])
WITH_ZERO_ROW = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [0.3, 0.3, 0.3]])
# gamma and beta neither 1 nor 0 nor equal, so that leaving either out, or swapping them, shows.
GAMMA_4, BETA_4 = np.array([0.5, 1.5, -1.0, 2.0]), np.array([0.1, -0.2, 0.3, 1.0])
GAMMA_3, BETA_3 = np.array([2.0, -0.5, 1.0]), np.array([-1.0, 0.5, 0.25])
GAMMA_2, BETA_2 = np.array([1.5, 0.5]), np.array([0.0, 2.0])

PROBES: dict[str, list[Probe]] = {
    "row_stats": [
        Probe("row_stats", (WIDE,)),
        Probe("row_stats", (SQUARE,)),
        Probe("row_stats", (TALL,)),
        Probe("row_stats", (WITH_CONSTANT_ROW,)),
    ],
    "layer_norm": [
        Probe("layer_norm", (WIDE, GAMMA_4, BETA_4)),
        Probe("layer_norm", (WIDE, GAMMA_4, BETA_4), {"eps": 0.5}),
        Probe("layer_norm", (WITH_CONSTANT_ROW, GAMMA_4, BETA_4)),
        Probe("layer_norm", (SQUARE, GAMMA_3, BETA_3)),
        Probe("layer_norm", (TALL, GAMMA_2, BETA_2), {"eps": 2.0}),
    ],
    "rms_norm": [
        Probe("rms_norm", (WIDE, GAMMA_4)),
        Probe("rms_norm", (WITH_ZERO_ROW, GAMMA_3)),
        Probe("rms_norm", (SQUARE, GAMMA_3), {"eps": 0.5}),
        Probe("rms_norm", (TALL, GAMMA_2)),
    ],
}

LAYER_NORM_ARGUMENTS = ("X", "gamma", "beta")


def _changed_arguments(evidence: Evidence) -> str:
    """The arguments of layer_norm some probe's call left changed, by name."""
    calls = zip(evidence.probes["layer_norm"], evidence.answers.get("layer_norm", []))
    changed = {
        name
        for probe, answer in calls
        for index, name in enumerate(LAYER_NORM_ARGUMENTS)
        if index < len(answer.args_after) and not same(answer.args_after[index], probe.args[index])
    }
    names = [name for name in LAYER_NORM_ARGUMENTS if name in changed]
    return " and ".join(", ".join(names).rsplit(", ", 1)) if names else "an argument"


ON_ROW_STATS = {"builds_on": ("row_stats",)}

MISTAKES: tuple[Mistake, ...] = (
    # -- row_stats --
    Mistake(
        "row_stats_over_columns",
        "row_stats takes the mean and variance of each column of X (axis=0), not of each row: a row is one "
        "token's d features, and each token is normalised on its own. Use axis=1, with keepdims=True so both "
        "come out (n, 1) (handout section 2).",
        "row_stats",
        variants=(row_stats_over_columns, row_stats_over_columns_flat),
        caught_by=("row_stats.shapes", "row_stats.mean", "row_stats.variance"),
    ),
    Mistake(
        "row_stats_no_keepdims",
        "row_stats returns the mean and variance of each row as flat arrays of shape (n,), where the handout asks "
        "for (n, 1). The numbers are right, but X - mean then lines up the n means with X's columns, not its rows: "
        "an error, or, when X is square, a silent wrong answer. Pass keepdims=True (or reshape to (n, 1)) "
        "(handout section 2).",
        "row_stats",
        variants=(row_stats_no_keepdims,),
        caught_by=("row_stats.shapes",),
    ),
    Mistake(
        "row_stats_sample_variance",
        "row_stats returns the sample variance, dividing by d - 1 (ddof=1, as np.std and pandas' .var do by "
        "default or by choice), where layer normalisation uses the population variance: the mean of the squared "
        "deviations, divided by d. Use X.var(axis=1, keepdims=True), whose default is ddof=0 (handout section 2).",
        "row_stats",
        variants=(row_stats_sample_variance,),
        caught_by=("row_stats.variance",),
    ),
    Mistake(
        "row_stats_std_for_var",
        "row_stats returns each row's standard deviation where the handout asks for its variance, the square of "
        "it: the mean of (X - mean) ** 2 over the row, X.var(axis=1, keepdims=True). layer_norm takes the square "
        "root itself, after adding eps (handout section 2).",
        "row_stats",
        variants=(row_stats_std_for_var,),
        caught_by=("row_stats.variance",),
    ),
    # -- layer_norm --
    Mistake(
        "layer_norm_over_columns",
        "layer_norm normalises each column of X (a mean and variance over axis=0) instead of each row: layer "
        "normalisation normalises every token, one row, with its own mean and variance, whatever the other rows "
        "hold (batch normalisation is the one over the columns). Use the statistics of each row, axis=1 with "
        "keepdims=True: row_stats(X) (handout section 3).",
        "layer_norm",
        variants=(layer_norm_over_columns,),
        caught_by=("layer_norm.rows_normalised", "layer_norm.matches_reference"),
    ),
    Mistake(
        "layer_norm_sample_variance",
        "layer_norm normalises with the sample variance of each row, dividing by d - 1 (ddof=1, as in "
        "np.std(X, ddof=1)), so the rows of layer_norm(X, 1, 0) have a variance of (d - 1) / d, not 1. Use the "
        "population variance, ddof=0: the var that row_stats returns (handout section 2).",
        "layer_norm",
        variants=(layer_norm_sample_variance,),
        same_as="row_stats_sample_variance",
        caught_by=("layer_norm.rows_normalised", "layer_norm.matches_reference"),
        **ON_ROW_STATS,
    ),
    Mistake(
        "layer_norm_no_eps",
        "layer_norm divides by sqrt(var) and never adds eps, so a row whose entries are all equal (variance 0) "
        "gives 0 / 0 = nan, and the eps passed changes nothing. Divide by np.sqrt(var + eps) (handout section 3, "
        "'Why eps').",
        "layer_norm",
        variants=(layer_norm_no_eps,),
        caught_by=("layer_norm.constant_row", "layer_norm.uses_eps"),
        **ON_ROW_STATS,
    ),
    Mistake(
        "layer_norm_eps_outside_sqrt",
        "layer_norm adds eps after the square root, np.sqrt(var) + eps, where it belongs inside: np.sqrt(var + "
        "eps). With eps = 1e-5 the two are nearly equal on most rows, but not on rows of small variance, nor for "
        "a larger eps (handout section 3, 'Why eps').",
        "layer_norm",
        variants=(layer_norm_eps_outside_sqrt,),
        caught_by=("layer_norm.uses_eps",),
        **ON_ROW_STATS,
    ),
    Mistake(
        "layer_norm_eps_ignored",
        "layer_norm adds a fixed small number (such as 1e-5) to the variance whatever eps it is given: "
        "layer_norm(X, gamma, beta, eps=0.5) gives what the default eps does. Use the argument: "
        "np.sqrt(var + eps) (handout section 3).",
        "layer_norm",
        variants=(layer_norm_eps_ignored,),
        caught_by=("layer_norm.uses_eps",),
        **ON_ROW_STATS,
    ),
    Mistake(
        "layer_norm_gamma_beta_swapped",
        "layer_norm swaps gamma and beta: it multiplies by beta and adds gamma. gamma is the scale and beta the "
        "shift, gamma * x_hat + beta, in the order of the signature layer_norm(X, gamma, beta) (handout section 3).",
        "layer_norm",
        variants=(layer_norm_gamma_beta_swapped,),
        caught_by=("layer_norm.gamma_beta_per_column", "layer_norm.matches_reference"),
        **ON_ROW_STATS,
    ),
    Mistake(
        "layer_norm_no_gamma_beta",
        "layer_norm returns the normalised rows x_hat without applying gamma and beta. The layer ends with "
        "gamma * x_hat + beta: gamma scales and beta shifts each column, so that the model can undo the "
        "normalisation where it needs to (handout section 3).",
        "layer_norm",
        variants=(layer_norm_no_gamma_beta,),
        caught_by=("layer_norm.gamma_beta_per_column", "layer_norm.matches_reference"),
        **ON_ROW_STATS,
    ),
    Mistake(
        "layer_norm_divides_by_variance",
        "layer_norm divides X - mean by the variance plus eps instead of by its square root: (X - mean) / "
        "np.sqrt(var + eps). The variance is in squared units; only the standard deviation brings each row to a "
        "variance of 1 (handout section 3).",
        "layer_norm",
        variants=(layer_norm_divides_by_variance,),
        caught_by=("layer_norm.rows_normalised", "layer_norm.matches_reference"),
        **ON_ROW_STATS,
    ),
    Mistake(
        "layer_norm_changes_inputs",
        "layer_norm changes {consequence} in place (an operation such as X -= mean or X /= ... on an argument), so "
        "the caller's arrays are different after the call, and calling it twice gives two answers. Compute new "
        "arrays instead: X - mean is a new array, X -= mean is not (handout section 3).",
        "layer_norm",
        variants=(layer_norm_in_place,),
        shows_in=changes_its_inputs,
        beside_answers=True,
        consequence=_changed_arguments,
        caught_by=("layer_norm.inputs_unchanged",),
    ),
    # -- rms_norm --
    Mistake(
        "rms_norm_subtracts_mean",
        "rms_norm subtracts each row's mean, as layer_norm does: RMSNorm does not centre the rows. It divides X "
        "itself by its root mean square, X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps) * gamma "
        "(handout section 5).",
        "rms_norm",
        variants=(rms_norm_subtracts_mean,),
        caught_by=("rms_norm.not_centred", "rms_norm.matches_reference"),
    ),
    Mistake(
        "rms_norm_uses_variance",
        "rms_norm divides each row by its standard deviation, np.sqrt(var + eps), which measures the spread "
        "around the row's mean. RMSNorm divides by the root mean square, measured from 0: "
        "np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps). The two agree only on rows whose mean is 0 "
        "(handout section 5).",
        "rms_norm",
        variants=(rms_norm_uses_variance,),
        caught_by=("rms_norm.unit_rms", "rms_norm.matches_reference"),
    ),
    Mistake(
        "rms_norm_no_sqrt",
        "rms_norm divides by the mean square of each row plus eps, without the square root: the root mean "
        "square is np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + eps) (handout section 5).",
        "rms_norm",
        variants=(rms_norm_no_sqrt,),
        caught_by=("rms_norm.unit_rms", "rms_norm.matches_reference"),
    ),
    Mistake(
        "rms_norm_over_columns",
        "rms_norm takes the mean square of each column of X (axis=0) instead of each row: every token, one row, "
        "is rescaled by its own root mean square. Use axis=1 with keepdims=True (handout section 5).",
        "rms_norm",
        variants=(rms_norm_over_columns,),
        caught_by=("rms_norm.unit_rms", "rms_norm.matches_reference"),
    ),
)


def _layer_norm_over(student: Callable[[str], StudentCall]) -> list[Callable]:
    """The handout's layer_norm, calling the student's own row_stats."""

    def layer_norm(X, gamma, beta, eps=1e-5):
        mean, var = student("row_stats")(X)
        return gamma * (X - mean) / np.sqrt(var + eps) + beta

    return [layer_norm]


KNOWN = Mistakes(
    probes=PROBES,
    reference=FUNCTIONS,
    mistakes=MISTAKES,
    parameters={"row_stats": ("X",), "layer_norm": ("X", "gamma", "beta", "eps"), "rms_norm": ("X", "gamma", "eps")},
    helpers={"layer_norm": ("row_stats",)},
    over_helpers={"layer_norm": _layer_norm_over},
)
