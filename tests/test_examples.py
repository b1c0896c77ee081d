"""Replaying recorded examples gives exactly the results of a live Hypothesis run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import HEADS, REFERENCE, TESTS, VARIANTS

SUBMISSIONS = TESTS / "submissions"
from grader import assignments
from grader.assignments.attention_head import reference
from grader.assignments.attention_head.checks import softmax as softmax_checks
from grader.engine import examples
from grader.engine.proxy import answer_of
from grader.engine.runner import run_checks
from grader.sandbox import Limits

SAMPLE = [REFERENCE] + [VARIANTS / f"{name}.py" for name in ("rounds_weights", "mask_after_softmax", "softmax_global_max")]
SAMPLE += [SUBMISSIONS / "sleeps_in_softmax.py", SUBMISSIONS / "syntax_error.py"]


@pytest.mark.parametrize("path", SAMPLE, ids=[p.stem for p in SAMPLE])
def test_replay_and_live_runs_give_identical_results(path: Path, rubric, isolation, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a cold cache is recorded, then replayed
    limits = Limits(isolation=isolation, call_timeout=1.0)
    live = run_checks(path.read_bytes(), rubric, limits, replay=False)
    replayed = run_checks(path.read_bytes(), rubric, limits, replay=True)
    assert replayed == live
    assert list((tmp_path / "attention-grader" / "examples").glob("*/public/attention_head/softmax.matches_reference.examples"))


def test_recordings_round_trip_through_the_cache(tmp_path, monkeypatch):
    tests = {"softmax.axis": softmax_checks.test_axis, "softmax.matches_reference": softmax_checks.test_matches_reference}
    recorded = examples.recorded_examples(tests, tmp_path, assignments.get())
    assert len(recorded["softmax.axis"].examples) == 40
    # Each example's calls as the reference received them: softmax(x, axis=...) for this check.
    assert all(calls and calls[0][0] == "softmax" and "axis" in calls[0][2] for calls in recorded["softmax.axis"].calls)
    monkeypatch.setattr(examples, "_LOADED", {})  # read the files, not this process's memory
    reloaded = examples.recorded_examples(tests, tmp_path, assignments.get())
    for check_id, recording in recorded.items():
        assert len(reloaded[check_id].examples) == len(recording.examples)
        assert len(reloaded[check_id].calls) == len(recording.calls)
        assert reloaded[check_id].replies == recording.replies
        for before, after in zip(recording.examples, reloaded[check_id].examples):
            assert before.keys() == after.keys()
            for name in before:
                left, right = before[name], after[name]
                if isinstance(left, tuple):
                    assert type(left[1]) is type(right[1]) and left[1] == right[1]
                    left, right = left[0], right[0]
                assert np.array_equal(left, right)
                assert not right.flags.writeable  # shared across submissions: a check cannot change it


def test_the_recorded_replies_are_what_the_reference_answered():
    recording = examples.recorded_examples({"softmax.axis": softmax_checks.test_axis}, None, assignments.get())["softmax.axis"]
    for calls, replies in zip(recording.calls, recording.replies):
        assert len(calls) == len(replies) == 1
        (_, args, kwargs, _), reply = calls[0], answer_of(replies[0])
        assert np.array_equal(reply.value, reference.softmax(*args, **kwargs))


def test_a_recording_is_sent_ahead_in_growing_batches_of_all_its_calls():
    recording = examples.recorded_examples({"softmax.axis": softmax_checks.test_axis}, None, assignments.get())["softmax.axis"]
    assert [start for start, _ in recording.batches] == [0, 2, 6, 14, 30]
    sent = [call for _, batch in recording.batches for call in batch.calls]
    assert sent == [call for calls in recording.calls for call in calls]


def test_a_check_whose_later_batches_would_not_fit_in_a_pipe_sends_one_batch():
    def recording(size: int) -> examples.Recording:
        calls = [[("softmax", [np.zeros(size)], {}, False)] for _ in range(40)]
        return examples.Recording([{}] * 40, calls, [[b""]] * 40)

    assert [start for start, _ in recording(8).batches] == [0, 2, 6, 14, 30]
    (whole,) = recording(4096).batches  # 32 KiB per call
    assert whole[0] == 0 and len(whole[1].calls) == 40


def test_a_damaged_cache_file_is_recorded_again(tmp_path, monkeypatch):
    tests = {"softmax.matches_reference": softmax_checks.test_matches_reference}
    examples.recorded_examples(tests, tmp_path, assignments.get())
    (cached,) = tmp_path.glob("softmax.matches_reference.examples")
    cached.write_bytes(b"not a recording")
    monkeypatch.setattr(examples, "_LOADED", {})
    assert len(examples.recorded_examples(tests, tmp_path, assignments.get())["softmax.matches_reference"].examples) == 40
