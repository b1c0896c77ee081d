"""Every consequence a diagnosis states is true of the head it is told to.

A known mistake's message may say what the mistake does (``Mistake.consequence``): what a
fully masked row becomes, say. The grader reads it from the head's own answers; here it is
checked against the head itself, imported in this trusted test process and called directly
on the same input, for every head under ``tests/heads/`` that is told such a mistake.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from conftest import HEADS, head_id
from grader.assignments.attention_head.mistakes import ALL_MASKED, FULLY_MASKED, FULLY_MASKED_ROW, KNOWN

TOLD_HEADS = sorted(HEADS.glob("**/*.py"))  # buggy/, second_set/, wild/ and the correct ones
MASKED_PROBE = KNOWN.probes["attention"][FULLY_MASKED]
ALL_MASKED_PROBE = KNOWN.probes["attention"][ALL_MASKED]


def _head(path: Path):
    spec = importlib.util.spec_from_file_location(f"told_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _masked_row(head) -> np.ndarray:
    Q, K, V, mask = (np.copy(a) for a in MASKED_PROBE.args)
    with np.errstate(all="ignore"):
        return np.asarray(head.attention(Q, K, V, mask)[1], dtype=float)[FULLY_MASKED_ROW]


def _all_masked_row(head) -> np.ndarray:
    Q, K, V, mask = (np.copy(a) for a in ALL_MASKED_PROBE.args)
    with np.errstate(all="ignore"):
        return np.asarray(head.attention(Q, K, V, mask)[1], dtype=float)[FULLY_MASKED_ROW]


def _unmasked_row(head) -> np.ndarray:
    Q, K, V, _ = (np.copy(a) for a in MASKED_PROBE.args)
    with np.errstate(all="ignore"):
        return np.asarray(head.attention(Q, K, V)[1], dtype=float)[FULLY_MASKED_ROW]


# Each sentence a message may state, and how to see it in the head itself.
CLAIMS: dict[str, Callable] = {
    "a fully masked row then becomes uniform weights instead of nan": lambda head: np.allclose(
        _masked_row(head), 1 / MASKED_PROBE.args[1].shape[0], atol=1e-5
    ),
    "a fully masked row then gets the weights it would have with no mask at all instead of nan": lambda head: np.allclose(
        _masked_row(head), _unmasked_row(head), atol=1e-5
    ),
    "a fully masked row then gets finite weights instead of nan": lambda head: bool(np.all(np.isfinite(_masked_row(head)))),
    # A softmax that turns a row of equal finite scores to nan shows it only when every key is masked.
    "when every key is masked, the weights then become uniform instead of nan": lambda head: (
        np.all(np.isnan(_masked_row(head))) and np.allclose(_all_masked_row(head), 1 / ALL_MASKED_PROBE.args[1].shape[0], atol=1e-5)
    ),
    "when every key is masked, the weights then stay finite instead of nan": lambda head: (
        np.all(np.isnan(_masked_row(head))) and bool(np.all(np.isfinite(_all_masked_row(head))))
    ),
    "a fully masked row is then not guaranteed to be nan": lambda head: (
        np.all(np.isnan(_masked_row(head))) and np.all(np.isnan(_all_masked_row(head)))
    ),
}


def test_every_stated_consequence_holds_for_the_head_it_is_told_to(graded_heads):
    reports = graded_heads
    checked = 0
    for path in TOLD_HEADS:
        report = reports.get(head_id(path))
        if report is None:
            continue
        for diagnosis in report.diagnoses:
            mistake = KNOWN.by_id.get(diagnosis["id"])
            if mistake is None or mistake.consequence is None:
                continue
            stated = [claim for claim in CLAIMS if claim in diagnosis["message"]]
            assert len(stated) == 1, f"{path.name}: {diagnosis['message']}"
            assert CLAIMS[stated[0]](_head(path)), f"{path.name} is told '{stated[0]}', which it does not do"
            checked += 1
    assert checked >= 4  # the heads that fill or add a large negative number, in several folders


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

        return type("Head", (), {"attention": staticmethod(attention)})

    added, filled = head(lambda s, m: s + np.where(m, 0.0, -1e9)), head(lambda s, m: np.where(m, s, -1e9))
    uniform, unmasked = list(CLAIMS.values())[:2]
    assert unmasked(added) and not uniform(added)
    assert uniform(filled) and not unmasked(filled)
