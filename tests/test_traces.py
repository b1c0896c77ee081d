"""Walking the trace of an earlier live run gives exactly the result of running Hypothesis live."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HEADS, TESTS, VARIANTS

from grader.engine.examples import encode_frame, read_frame_file
from grader.engine.runner import CheckProcess
from grader.sandbox import Limits

MISSING_SCALE = VARIANTS / "missing_scale.py"
SCALE_BY_DK = VARIANTS / "scale_by_dk.py"
FLIPS = TESTS / "submissions" / "flips_every_25_calls.py"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cold cache of recorded examples and traces, private to the test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "attention-grader" / "examples"


def _grade(path: Path, rubric, isolation: str, *, replay: bool = True):
    with CheckProcess() as checks:
        return checks.run(path.read_bytes(), rubric, Limits(isolation=isolation), replay=replay)


def test_walking_a_trace_gives_the_live_result(cache, rubric, isolation):
    live = _grade(MISSING_SCALE, rubric, isolation, replay=False)
    recorded = _grade(MISSING_SCALE, rubric, isolation)  # runs failures live, keeps their traces
    assert len(list(cache.glob("*/public/attention_head/traces/*/*/*.trace"))) >= 5
    walked = _grade(MISSING_SCALE, rubric, isolation)
    assert recorded == live
    assert walked == live


@pytest.mark.parametrize("path", [SCALE_BY_DK, FLIPS], ids=["another_mistake", "stateful"])
def test_leaving_a_trace_midway_gives_the_live_result(path, cache, rubric, isolation):
    # Traces of one mistake, then a head that follows them for a while and leaves them:
    # the calls made while following are served again, never sent twice to the worker.
    without_traces = _grade(path, rubric, isolation)
    for trace in cache.glob("*/public/attention_head/traces/*/*/*.trace"):
        trace.unlink()
    _grade(MISSING_SCALE, rubric, isolation)
    assert _grade(path, rubric, isolation) == without_traces


def test_a_matching_trace_is_walked_instead_of_running_hypothesis(cache, rubric, isolation):
    live = {result.id: result for result in _grade(MISSING_SCALE, rubric, isolation).results}
    (trace,) = cache.glob("*/public/attention_head/traces/*/attention.matches_reference/*.trace")
    fields = read_frame_file(trace)
    # Plant an earlier, larger failing example as the run's last one: only a walk reports it.
    steps = fields["steps"]
    first_failing = next(i for i, step in enumerate(steps[:-1]) if step == steps[-1])
    fields["examples"][-1] = fields["examples"][first_failing]
    trace.write_bytes(encode_frame(fields))
    walked = {result.id: result for result in _grade(MISSING_SCALE, rubric, isolation).results}
    assert walked["attention.matches_reference"].status == "failed"
    assert walked["attention.matches_reference"].counterexample != live["attention.matches_reference"].counterexample
    assert {k: v for k, v in walked.items() if k != "attention.matches_reference"} == {
        k: v for k, v in live.items() if k != "attention.matches_reference"
    }
