"""Counterexamples and repro snippets."""

from __future__ import annotations

import numpy as np

from grader.engine.counterexample import describe, jsonable, repro
from grader.engine.proxy import Call


def test_repro_rebuilds_the_inputs_and_repeats_the_call():
    calls = [Call("attention", {"Q": np.array([[1.0, 0.5]]), "K": np.array([[2.0, 0.0]]), "V": np.array([[3.0]]),
                                "mask": np.array([[True]])})]
    snippet = repro(calls, module="attention")
    namespace: dict = {}
    seen = []
    exec(snippet.replace("from attention import attention", "attention = lambda *a: seen.append(a)"), {"seen": seen}, namespace)
    (Q, K, V, mask), = seen
    assert Q.tolist() == [[1.0, 0.5]] and mask.dtype == np.bool_


def test_two_calls_get_numbered_names_and_axis_stays_a_keyword():
    snippet = repro([Call("softmax", {"x": np.zeros(2)}), Call("softmax", {"x": np.ones(2), "axis": 0}, ("axis",))], module="attention")
    assert "x_1 = np.array([0.0, 0.0])" in snippet
    assert "print(softmax(x_2, axis=0))" in snippet


def test_json_form_has_no_bare_nan():
    assert jsonable(np.array([np.nan, np.inf, -np.inf, 1.0])) == ["nan", "inf", "-inf", 1.0]
    described = describe([Call("causal_mask", {"n": 3})], module="attention", expected=np.eye(2), got=None)
    assert described["calls"] == [{"function": "causal_mask", "arguments": {"n": 3}}]
    assert described["expected"] == [[1.0, 0.0], [0.0, 1.0]]


def test_huge_arrays_are_summarised():
    assert jsonable(np.zeros((100, 100)))["shape"] == [100, 100]
