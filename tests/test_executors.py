"""The ways a batch is executed: claims between jobs, and local jobs that take over what another has not started."""

from __future__ import annotations

import shutil
import threading

from conftest import HEADS, REFERENCE, TESTS, VARIANTS

from grader.batch import grade_folder
from grader.engine.claims import Claims, claim
from grader.engine.grading import check_runs
from grader.engine.runner import CheckProcess
from grader.sandbox import Limits

BUGGY = VARIANTS / "mask_inverted.py"
HANGS_AT_IMPORT = TESTS / "hostile" / "sleeps_forever_at_import.py"


def test_a_submission_is_claimed_once(tmp_path):
    claims = Claims(tmp_path, 6)
    assert claim(tmp_path, 0) and claim(tmp_path, 1)  # the run started its first two
    assert claims.take_over(2) == [4, 5]  # from the last one back
    assert claims.unstarted() == [2, 3]
    assert not claim(tmp_path, 5)  # the run never grades one taken over
    assert claim(tmp_path, 2)
    assert claims.take_over(5) == [3]
    assert claims.take_over(1) == []
    assert claims.keep(0) and claims.keep(3) is False  # after a broken run: its own, not another job's
    assert claims.taken_over == {3, 4, 5}


def test_racing_claims_give_each_submission_one_grader(tmp_path):
    claims = Claims(tmp_path, 400)
    by_run: list[int] = []

    def run() -> None:
        by_run.extend(index for index in range(400) if claim(tmp_path, index))

    racer = threading.Thread(target=run)
    racer.start()
    taken = []
    while batch := claims.take_over(3):
        taken += batch
    racer.join()
    assert sorted(by_run + taken) == list(range(400))
    assert claims.taken_over == set(taken)


def test_a_run_skips_what_another_job_took_over(rubric, isolation, tmp_path):
    limits = Limits(isolation=isolation)
    heads = [REFERENCE, BUGGY, HANGS_AT_IMPORT, BUGGY]
    claims = Claims(tmp_path, len(heads))
    assert claims.take_over(2) == [2, 3]  # before the run starts: it never imports the hanging head
    with CheckProcess() as checks:
        outcomes = check_runs([(path.read_bytes(), ".py") for path in heads], rubric, limits, checks, claims)
        alone = [checks.run(path.read_bytes(), rubric, limits) for path in heads[:2]]
    assert outcomes[2:] == [None, None]
    assert outcomes[:2] == alone
    assert max(outcome.duration_s for outcome in outcomes[:2]) < 10


def test_an_idle_job_takes_over_what_a_slow_submission_holds_up(tmp_path, rubric, isolation):
    """16 submissions on 2 jobs: the first run holds a head that hangs at import (8 s) and
    the three after it; the other job grades the rest, then takes the unstarted ones over,
    so they are done before the slow head."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    shutil.copyfile(HANGS_AT_IMPORT, folder / "a-slow.py")
    for number in range(15):
        shutil.copyfile(REFERENCE if number % 2 else BUGGY, folder / f"b{number:02d}.py")
    order = []
    limits = Limits(isolation=isolation, import_timeout=8.0)
    reports = grade_folder(
        folder, tmp_path / "out", rubric, limits, jobs=2, on_report=lambda report, *_: order.append(report.student)
    )
    assert len(reports) == 16 and sorted(order) == [report.student for report in reports]
    first_run = ["b00", "b01", "b02"]  # graded in a-slow's run had nobody taken them over
    assert order[-1] == "a-slow" and set(first_run) <= set(order[:-1])
    assert next(report for report in reports if report.student == "a-slow").status == "error"
