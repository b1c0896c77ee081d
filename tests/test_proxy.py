"""The trusted side of the worker: answers, deadlines, crashes and sticky failures."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from conftest import HEADS, REFERENCE, TEMPLATE, VARIANTS

from grader import assignments, sources
from grader.checking.outcomes import (
    CallRaised,
    CallTimedOut,
    FunctionMissing,
    ImportFailed,
    NotImplementedYet,
    WorkerCrashed,
)
from grader.engine.examples import Recording, ReferenceSubmission
from grader.engine.proxy import CallBatch, Submission
from grader.sandbox import Limits
from grader.sandbox.wire import UnsupportedValue

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
FAST = Limits(call_timeout=1.0, import_timeout=10.0, check_budget=4.0)


@pytest.fixture
def open_submission():
    opened = []

    def start(path: Path, limits: Limits = FAST) -> Submission:
        submission = Submission(sources.read(path), assignments.get(), limits)
        submission.begin_check()
        opened.append(submission)
        return submission

    yield start
    for submission in opened:
        submission.close()


def test_answers_come_back_as_plain_arrays(open_submission):
    submission = open_submission(REFERENCE)
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    p = submission.softmax(x)
    assert type(p) is np.ndarray and p.dtype == np.float64
    np.testing.assert_allclose(p.sum(axis=-1), 1.0)
    out, A = submission.attention(x, x, x)
    assert out.shape == (2, 3) and A.shape == (2, 2)
    mask = submission.causal_mask(3)
    assert mask.dtype == np.bool_ and mask.tolist() == np.tril(np.ones((3, 3), bool)).tolist()


def test_calls_are_recorded_per_example(open_submission):
    submission = open_submission(REFERENCE)
    submission.softmax(np.zeros(2))
    submission.begin_example()
    submission.softmax(np.ones(3), axis=0)
    assert [(call.function, list(call.arguments)) for call in submission.example_calls] == [
        ("softmax", ["x", "axis"])
    ]


def test_return_args_reports_inputs_after_the_call(open_submission):
    submission = open_submission(REFERENCE)
    Q = np.eye(2)
    reply = submission.call("attention", [Q, Q, Q], return_args=True)
    assert [np.array_equal(after, Q) for after in reply.args_after] == [True, True, True]


def test_the_template_says_not_written_yet(open_submission):
    submission = open_submission(TEMPLATE)
    with pytest.raises(NotImplementedYet, match=r"softmax\(\) is not written yet"):
        submission.softmax(np.zeros(2))


def test_a_hung_call_times_out_then_fails_fast_for_the_rest_of_the_check(open_submission):
    submission = open_submission(SUBMISSIONS / "sleeps_in_softmax.py")
    started = time.monotonic()
    with pytest.raises(CallTimedOut, match=r"did not return within 1 s"):
        submission.softmax(np.zeros(2))
    assert time.monotonic() - started < 5
    started = time.monotonic()
    with pytest.raises(CallTimedOut):
        submission.softmax(np.zeros(2))
    assert time.monotonic() - started < 0.1
    submission.begin_check()  # the next check gets a fresh worker that still answers
    out, A = submission.attention(np.eye(2), np.eye(2), np.eye(2))
    assert A.shape == (2, 2)


def test_a_function_that_hangs_on_every_input_fails_later_checks_at_once(open_submission):
    submission = open_submission(SUBMISSIONS / "sleeps_in_softmax.py")
    submission.begin_check("softmax.first")
    with pytest.raises(CallTimedOut, match=r"did not return within 1 s$"):
        submission.softmax(np.zeros(2))
    submission.begin_check("softmax.second")  # softmax is called again on a small input, and hangs
    started = time.monotonic()
    with pytest.raises(CallTimedOut, match=r"hangs even on an input every working version answers at once: .* in check softmax\.first, nor when called again"):
        submission.softmax(np.zeros(2))
    assert time.monotonic() - started < 0.1
    out, A = submission.attention(np.eye(2), np.eye(2), np.eye(2))  # its other functions are still called
    assert A.shape == (2, 2)


def test_a_function_that_hangs_on_some_inputs_is_still_called(open_submission):
    submission = open_submission(SUBMISSIONS / "hangs_on_large_inputs.py")
    submission.begin_check("softmax.first")
    with pytest.raises(CallTimedOut):
        submission.softmax(np.zeros(8))
    submission.begin_check("softmax.second")  # the small input is answered: no verdict
    assert submission.softmax(np.zeros(2)).tolist() == [0.5, 0.5]
    started = time.monotonic()
    with pytest.raises(CallTimedOut, match=r"did not return within 1 s$"):
        submission.softmax(np.zeros(8))
    assert time.monotonic() - started > 0.9  # waited for, as any call


def test_a_timeout_outside_a_check_starts_no_probe(open_submission):
    submission = open_submission(SUBMISSIONS / "sleeps_in_softmax.py")
    with pytest.raises(CallTimedOut):
        submission.softmax(np.zeros(2))  # begun as no check (pictures and diagnoses are not checks)
    submission.begin_check("softmax.next")
    with pytest.raises(CallTimedOut, match=r"did not return within 1 s$"):
        submission.softmax(np.zeros(2))


def test_a_check_past_its_budget_times_out(open_submission):
    submission = open_submission(REFERENCE, Limits(call_timeout=1.0, check_budget=1.0))
    submission.softmax(np.zeros(2))
    time.sleep(1.1)
    with pytest.raises(CallTimedOut, match="time budget"):
        submission.softmax(np.zeros(2))


def test_checks_share_what_is_left_of_the_submissions_budget_and_say_so(open_submission):
    """A submission slow on every check is graded: each check gets at most what its
    submission's budget has left (less the import's time and a reserve for the report), and
    one that runs out says so, rather than the whole check run being cut off as the grader's
    own failure."""
    # 2.5 s of checks in all, from the end of the import: the budget, less the import's
    # time and a reserve for the report (half the budget at most).
    limits = Limits(call_timeout=1.0, check_budget=4.0, import_timeout=1.0, submission_budget=5.0)
    submission = open_submission(REFERENCE, limits)  # begun outside a check: no budget of its own spent
    submission.begin_check("softmax.rows_sum_to_one")
    submission.softmax(np.zeros(2))
    time.sleep(2.0)  # about 0.5 s left for the next one
    submission.begin_check("softmax.nonnegative")
    submission.softmax(np.zeros(2))
    time.sleep(0.6)
    with pytest.raises(CallTimedOut, match="checks used up the 2.5 s they may take in all"):
        submission.softmax(np.zeros(2))
    submission.begin_check("softmax.axis")  # nothing left: every call times out at once, and says why
    with pytest.raises(CallTimedOut, match="used up"):
        submission.softmax(np.zeros(2))


def test_a_worker_that_exits_fails_the_call_and_is_replaced(open_submission):
    submission = open_submission(SUBMISSIONS / "exits_in_causal_mask.py")
    with pytest.raises(WorkerCrashed, match="exited with status 3"):
        submission.causal_mask(3)
    submission.begin_check()
    assert submission.softmax(np.zeros(2)).tolist() == [0.5, 0.5]


def test_a_segfault_at_import_fails_every_call(open_submission):
    submission = open_submission(SUBMISSIONS / "segfaults_at_import.py")
    with pytest.raises(ImportFailed, match="SIGSEGV"):
        submission.softmax(np.zeros(2))
    submission.begin_check()
    with pytest.raises(ImportFailed):
        submission.causal_mask(2)


def test_a_syntax_error_names_its_line(open_submission):
    submission = open_submission(SUBMISSIONS / "syntax_error.py")
    with pytest.raises(ImportFailed, match=r"SyntaxError at line 4"):
        submission.softmax(np.zeros(2))


def test_a_missing_import_is_an_import_failure(open_submission):
    submission = open_submission(SUBMISSIONS / "imports_missing_module.py")
    with pytest.raises(ImportFailed, match=r"ModuleNotFoundError.*torch"):
        submission.softmax(np.zeros(2))


def test_missing_functions_fail_alone(open_submission):
    submission = open_submission(SUBMISSIONS / "only_softmax.py")
    with pytest.raises(FunctionMissing, match=r"does not define attention\(\)"):
        submission.attention(np.eye(2), np.eye(2), np.eye(2))
    assert submission.softmax(np.zeros(2)).tolist() == [0.5, 0.5]


def test_a_raised_exception_names_type_and_line(open_submission):
    submission = open_submission(REFERENCE)
    lines = REFERENCE.read_text().splitlines()
    matmul_line = next(number for number, line in enumerate(lines, 1) if "scores = (Q @" in line)
    with pytest.raises(CallRaised, match=rf"ValueError.*line {matmul_line}\)"):
        submission.attention(np.eye(2), np.eye(3), np.eye(3))


def test_values_that_are_not_arrays_are_described(open_submission):
    submission = open_submission(SUBMISSIONS / "returns_strings.py")
    returned = submission.softmax(np.zeros(2))
    assert isinstance(returned, UnsupportedValue) and "str" in repr(returned)
    assert submission.causal_mask(2) is None


def test_a_fail_fast_failure_remembers_the_input_that_really_failed(open_submission):
    submission = open_submission(SUBMISSIONS / "sleeps_in_softmax.py")
    submission.begin_example()
    with pytest.raises(CallTimedOut) as first:
        submission.softmax(np.array([7.0, 8.0]))
    submission.begin_example()
    with pytest.raises(CallTimedOut) as replay:
        submission.softmax(np.array([0.0]))
    for raised in (first.value, replay.value):
        assert [call.arguments["x"].tolist() for call in raised.calls] == [[7.0, 8.0]]


X = np.array([[1.0, -0.5], [0.25, 2.0]])
EXAMPLES = [[("attention", [X, X, X], {})], [("softmax", [X], {"axis": 0}), ("causal_mask", [3], {})]]


def _recorded(examples: list) -> Recording:
    """``examples`` (each a list of calls) as a recording keeps them: the reference's replies as frames."""
    stand_in = ReferenceSubmission(assignments.get())
    for calls in examples:
        stand_in.begin_example({})
        for function, args, kwargs in calls:
            stand_in.call(function, args, kwargs)
    return stand_in.recording


def _prefetched(submission: Submission, recording: Recording) -> None:
    submission.prefetch(CallBatch([call for calls in recording.calls for call in calls]))


def test_replies_byte_for_byte_the_references_are_taken_without_making_the_calls(open_submission):
    recording = _recorded(EXAMPLES)
    submission = open_submission(REFERENCE)
    _prefetched(submission, recording)
    assert all(submission.takes_replies(calls, replies) for calls, replies in zip(recording.calls, recording.replies))
    assert submission._pending == []  # nothing of the batch is left for the next call
    np.testing.assert_allclose(submission.softmax(np.array([0.0, 0.0])), [0.5, 0.5])


def test_other_replies_are_left_for_the_calls_themselves(open_submission):
    recording = _recorded(EXAMPLES)
    submission = open_submission(VARIANTS / "missing_scale.py")
    _prefetched(submission, recording)
    assert not submission.takes_replies(recording.calls[0], recording.replies[0])
    _, A = submission.attention(X, X, X)  # the head's own answer, unscaled
    np.testing.assert_allclose(A[0], np.exp([1.25, 0.25 - 1.0]) / np.exp([1.25, -0.75]).sum())
    assert submission.takes_replies(recording.calls[1], recording.replies[1])  # softmax and causal_mask are right


def test_a_reply_that_never_comes_fails_as_the_call_would(open_submission):
    recording = _recorded(EXAMPLES)
    submission = open_submission(SUBMISSIONS / "sleeps_in_softmax.py")
    _prefetched(submission, recording)
    assert submission.takes_replies(recording.calls[0], recording.replies[0])
    with pytest.raises(CallTimedOut, match=r"softmax\(\) did not return within 1 s") as raised:
        submission.takes_replies(recording.calls[1], recording.replies[1])
    assert [call.function for call in raised.value.calls] == ["softmax"]
    arguments = raised.value.calls[0].arguments
    assert arguments["x"].tolist() == X.tolist() and arguments["axis"] == 0


def test_further_batches_follow_an_unbroken_run_of_prefetched_calls(open_submission):
    recording = _recorded(EXAMPLES)
    first, second = CallBatch(recording.calls[0]), CallBatch(recording.calls[1])
    submission = open_submission(REFERENCE)
    submission.prefetch(second, more=True)  # no first batch: not sent
    assert not submission.takes_replies(recording.calls[1], recording.replies[1])
    submission.prefetch(first)
    submission.prefetch(second, more=True)
    assert submission.takes_replies(recording.calls[0], recording.replies[0])
    assert submission.takes_replies(recording.calls[1], recording.replies[1])
    submission.begin_check()
    submission.prefetch(first)
    submission.softmax(np.zeros(2))  # not the prefetched call: the batch's replies are dropped
    submission.prefetch(second, more=True)  # so this one is not sent
    assert not submission.takes_replies(recording.calls[1], recording.replies[1])
    np.testing.assert_allclose(submission.softmax(X, axis=0).sum(axis=0), [1.0, 1.0])


def test_a_batch_for_a_missing_function_stops_the_batches_after_it(open_submission):
    softmax_only = _recorded([[("softmax", [X], {})], [("softmax", [X * 2], {})]])
    needs_attention = CallBatch([("attention", [X, X, X], {}, False)])
    submission = open_submission(SUBMISSIONS / "only_softmax.py")
    submission.prefetch(CallBatch(softmax_only.calls[0]))
    submission.prefetch(needs_attention, more=True)  # refused: attention is missing
    submission.prefetch(CallBatch(softmax_only.calls[1]), more=True)  # so not sent either
    assert submission.takes_replies(softmax_only.calls[0], softmax_only.replies[0])
    assert not submission.takes_replies(softmax_only.calls[1], softmax_only.replies[1])


def test_a_raise_in_a_helper_of_the_files_own_is_blamed_on_that_helper(open_submission, tmp_path):
    """The exception names the function whose line raised it, and the call the grader made."""
    path = tmp_path / "attention.py"
    path.write_text(REFERENCE.read_text() + "\n\ndef _scores(Q, K):\n    return Q @ K\n\n\n"
                    "_lesson_attention = attention\n\n\ndef attention(Q, K, V, mask=None):\n    _scores(Q, K)\n"
                    "    return _lesson_attention(Q, K, V, mask)\n")
    helper_line = path.read_text().splitlines().index("    return Q @ K") + 1
    submission = open_submission(path)
    with pytest.raises(CallRaised) as raised:
        submission.attention(np.eye(2, 3), np.eye(2, 3), np.eye(2))
    assert str(raised.value).startswith("_scores() raised ValueError: ")
    assert str(raised.value).endswith(f"(attention.py, line {helper_line}), when the grader called attention()")


@pytest.mark.parametrize(
    ("helper", "blamed"),
    [
        ("class _Scores:\n    def of(self, Q, K):\n        return Q @ K\n\n\ndef _scores(Q, K):\n    return _Scores().of(Q, K)\n", "_Scores.of()"),
        ("def _deco(f):\n    def wrapper(Q, K):\n        return Q @ K\n    return wrapper\n\n\n@_deco\ndef _scores(Q, K):\n    pass\n", "wrapper()"),
        ("def _scores(Q, K):\n    class Shapes:\n        bad = int('not a number')\n    return Q\n", "_scores()"),
        ("def _scores(Q, K):\n    return [row @ K for row in [Q]][0]\n", "_scores()"),
    ],
    ids=["a_method", "a_decorators_wrapper", "a_class_body", "a_comprehension"],
)
def test_the_function_blamed_for_a_raise_is_the_one_whose_code_raised_it(open_submission, tmp_path, helper, blamed):
    path = tmp_path / "attention.py"
    path.write_text(REFERENCE.read_text() + "\n\n" + helper + "\n\n_lesson_attention = attention\n\n\n"
                    "def attention(Q, K, V, mask=None):\n    _scores(Q, K)\n    return _lesson_attention(Q, K, V, mask)\n")
    submission = open_submission(path)
    with pytest.raises(CallRaised) as raised:
        submission.attention(np.eye(2, 3), np.eye(2, 3), np.eye(2))
    assert str(raised.value).startswith(f"{blamed} raised ")
