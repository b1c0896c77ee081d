"""The pytest plugin that runs the checks against one sandboxed submission.

Loaded by :mod:`grader.pytest_entry` (which defines the ``--attention-*`` options) when
``--attention-submission`` is given, so a student who lives in pytest can run
``pytest --attention-submission attention.py``: with no test paths given, pytest then
collects the grader's checks, and each failure reads as the grader's feedback and the
lines that reproduce it.

It provides the ``submission`` fixture (a
:class:`grader.proxy.Submission`, whose worker is sandboxed as ``--attention-sandbox``
says: bubblewrap wherever it works), runs only the checks the rubric names, and attaches
each check's outcome (status, kind, feedback, counterexample) to its pytest-json-report
entry as metadata. ``grader check`` reads those entries; it never parses pytest's text
output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis.errors import Flaky

from grader import counterexample, diagnoses, traces
from grader.errors import UsageError
from grader.examples import cache_key, recorded_examples
from grader.outcomes import CheckFailure, SubmissionError
from grader.proxy import Submission
from grader.report import failure_details
from grader.resources import DEFAULT_RUBRIC, examples_cache, project_file
from grader.rubric import CHECKS_FOLDER, load_rubric
from grader.sandbox import Limits, resolve_isolation

SUBMISSION = pytest.StashKey[Submission]()
COLLECT_CHECKS = pytest.StashKey[bool]()
REPLAYS = pytest.StashKey[dict]()
TRACES = pytest.StashKey[traces.TraceStore]()
CHECKS_PACKAGE = "grader.checks."


def check_id(item: pytest.Item) -> str:
    """The stable id of a check: ``<module>.<function name without test_>``."""
    module = item.module.__name__.removeprefix(CHECKS_PACKAGE)
    return f"{module}.{item.originalname.removeprefix('test_')}"


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("attention_submission")
    if path:
        if not Path(path).is_file():
            raise pytest.UsageError(f"--attention-submission {path}: no such file")
        try:
            isolation = resolve_isolation(config.getoption("attention_sandbox"))
        except UsageError as error:
            raise pytest.UsageError(str(error)) from None
        limits = Limits(
            call_timeout=config.getoption("attention_call_timeout"),
            check_budget=config.getoption("attention_check_budget"),
            memory_mb=config.getoption("attention_memory_mb"),
            isolation=isolation,
        )
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            # No test paths on the command line: the checks are the tests (collected by
            # pytest_collect_file below, whatever pytest's python_files pattern is).
            config.args = [str(CHECKS_FOLDER)]
            config.stash[COLLECT_CHECKS] = True
        config.stash[SUBMISSION] = submission = Submission(Path(path), limits)
        submission.start_worker()  # it imports numpy while pytest collects the checks
        config.pluginmanager.register(ReportExtras(submission), "attention-report-extras")
        if config.getoption("tbstyle") != "no":  # the grader's own runs pass --tb=no
            config.pluginmanager.register(StudentView(config), "attention-student-view")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """Each check module, when the checks stand in for a student's tests: they then show
    as ``softmax.py::test_axis``."""
    wanted = parent.config.stash.get(COLLECT_CHECKS, False)
    if wanted and file_path.parent == CHECKS_FOLDER and file_path.name != "__init__.py":
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    submission = config.stash.get(SUBMISSION, None)
    if submission is not None:
        submission.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rubric_path = config.getoption("attention_rubric")
    if rubric_path:
        wanted = set(load_rubric(Path(rubric_path)).check_ids)
        deselected = [item for item in items if check_id(item) not in wanted]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if check_id(item) in wanted]
    if SUBMISSION in config.stash and not config.getoption("attention_live"):
        folder = Path(config.getoption("attention_examples") or examples_cache())
        tests = {check_id(item): item.obj for item in items if isinstance(item, pytest.Function)}
        config.stash[REPLAYS] = recorded_examples(tests, folder)
        config.stash[TRACES] = traces.store_at(folder / cache_key() / "traces")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Pass a check by replaying its recorded examples; at the first failure, run it live.

    The live run draws the same examples in the same order, so it meets the same failure
    and shrinks it: the result is the one a live run alone would give, sooner. A failure
    that follows the trace of an earlier live run is shrunk by walking that trace
    (grader.traces), with the same result.
    """
    recording = pyfuncitem.config.stash.get(REPLAYS, {}).get(check_id(pyfuncitem))
    if recording is None:
        return None
    submission = pyfuncitem.funcargs["submission"]
    # The reference's calls, sent ahead in one frame: the worker answers while checks run.
    submission.prefetch([call for calls in recording.calls for call in calls])
    try:
        for drawn in recording.examples:
            pyfuncitem.obj.hypothesis.inner_test(submission, **drawn)
    except SubmissionError as error:
        if error.fails_fast:
            raise  # a live run would fail every example at once with this same error
    except Exception:
        pass
    else:
        return True
    submission.begin_check()  # the live run starts from a clean slate
    return _run_failing(pyfuncitem, submission, pyfuncitem.config.stash[TRACES])


def _run_failing(item: pytest.Function, submission: Submission, store: traces.TraceStore) -> bool:
    """Run a check that fails as a live Hypothesis run would: by walking the traces of
    earlier live runs if this submission follows one, else live, keeping its trace."""
    check = check_id(item)
    test = item.obj

    def run(drawn: dict[str, Any]) -> BaseException | None:
        if submission.journal_full:
            raise _JournalFull
        try:
            test.hypothesis.inner_test(submission, **drawn)
        except Exception as error:
            return error
        return None

    submission.start_journal()
    try:
        error = traces.walk(store.traces(check), run)
    except _JournalFull:
        # Too much to serve again: the live run starts over with a fresh worker instead.
        submission.stop_journal()
        submission.close()
        error, journal = None, []
    else:
        journal = submission.stop_journal()
    if error is not None:
        raise error
    submission.begin_check()
    submission.replay_journal(journal)
    submission.start_trace()
    try:
        test(submission=submission)
    except Exception as error:
        run_examples = submission.stop_trace()
        if run_examples and not submission.trace_unreliable and _root_cause(error) is submission.last_error:
            store.save(check, run_examples)
        raise
    finally:
        submission.stop_trace()
    return True


class StudentView:
    """How a student running ``pytest --attention-submission`` sees the checks: each
    failure as the grader's feedback and the lines that reproduce it (not Hypothesis's
    traceback), and the score the rubric gives at the end."""

    def __init__(self, config: pytest.Config) -> None:
        rubric_path = config.getoption("attention_rubric")
        self.rubric = load_rubric(Path(rubric_path) if rubric_path else project_file(DEFAULT_RUBRIC))
        self.passed: dict[str, bool] = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        report = yield
        if call.when == "call" and isinstance(item, pytest.Function):
            self.passed[check_id(item)] = report.passed
            if call.excinfo is not None:
                submission = item.config.stash[SUBMISSION]
                outcome = outcome_of(call.excinfo.value, submission.example_calls)
                details = failure_details(outcome["feedback"], outcome["kind"], outcome["counterexample"])
                report.longrepr = "\n".join(details)
        return report

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        checks = [check for check in self.rubric.checks if check.id in self.passed]
        score = sum(check.points for check in checks if self.passed[check.id] and not check.bonus)
        bonus = sum(check.points for check in checks if self.passed[check.id] and check.bonus)
        extra = f" (+{bonus:g} bonus)" if bonus else ""
        terminalreporter.write_sep("=", f"{score:g}/{self.rubric.max_score:g} points{extra} ({self.rubric.name})")


class _JournalFull(Exception):
    """A walk kept more reply data than a check process should hold."""


class ReportExtras:
    """Adds to the JSON report what the checks alone do not say (see grader.diagnoses):
    ``pictures``, the submission's attention weights on two fixed inputs, and for a
    submission that gave a wrong answer or raised, ``diagnoses``, the known mistakes its
    answers match. Neither is asked of a submission whose calls hang or crash (its answers
    would tell nothing, slowly)."""

    def __init__(self, submission: Submission) -> None:
        self.submission = submission

    @pytest.hookimpl(optionalhook=True)
    def pytest_json_modifyreport(self, json_report: dict[str, Any]) -> None:
        outcomes = [test.get("metadata") or {} for test in json_report.get("tests", [])]
        kinds = {outcome.get("kind") for outcome in outcomes if outcome.get("status") != "passed"}
        wrong = kinds & {"wrong_answer", "raised", "nondeterministic"}
        unreliable = kinds & {"timeout", "crashed", "import_failed", "import_timeout", "grader_error"}
        try:
            json_report["pictures"] = {} if unreliable else self._pictures()
            json_report["diagnoses"] = self._diagnose() if wrong and not unreliable else []
        except Exception:  # these only explain a grade: whatever goes wrong, the grade stands
            json_report["pictures"], json_report["diagnoses"] = {}, []

    def _call(self, probe: diagnoses.Probe) -> diagnoses.Answer:
        try:
            reply = self.submission.call(probe.function, list(probe.args), dict(probe.kwargs), return_args=True)
        except SubmissionError as error:
            if error.fails_fast:
                raise
            return diagnoses.Answer(diagnoses.RAISED)
        return diagnoses.Answer(reply.value, tuple(reply.args_after))

    def _pictures(self) -> dict[str, Any]:
        self.submission.begin_check()  # a fresh time budget of their own
        try:
            return {
                name: {"student": diagnoses.weights(self._call(probe)), "reference": diagnoses.reference_weights(name)}
                for name, probe in diagnoses.PICTURES.items()
            }
        except SubmissionError:
            return {}

    def _diagnose(self) -> list[dict[str, str]]:
        self.submission.begin_check()
        try:
            return diagnoses.diagnose(self._call)
        except SubmissionError:
            return []


@pytest.fixture(scope="session")
def submission(request: pytest.FixtureRequest) -> Submission:
    """The submission under test; checks are skipped when none was given."""
    found = request.config.stash.get(SUBMISSION, None)
    if found is None:
        pytest.skip("no --attention-submission given")
    return found


def pytest_runtest_setup(item: pytest.Item) -> None:
    submission = item.config.stash.get(SUBMISSION, None)
    if submission is not None:
        submission.begin_check()


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo) -> dict[str, Any]:
    metadata: dict[str, Any] = {"check_id": check_id(item)}
    if call.when != "call":
        return metadata
    if call.excinfo is None:
        return {**metadata, "status": "passed", "kind": None, "feedback": None, "counterexample": None}
    submission = item.config.stash.get(SUBMISSION, None)
    calls = submission.example_calls if submission is not None else []
    return {**metadata, **outcome_of(call.excinfo.value, calls)}


def outcome_of(error: BaseException, calls: list) -> dict[str, Any]:
    """Status, kind, feedback and counterexample for the exception that ended a check."""
    cause = _root_cause(error)
    if isinstance(cause, (CheckFailure, SubmissionError)):
        status, kind, feedback = cause.status, cause.kind, cause.message
    elif isinstance(cause, Flaky):
        status, kind = "failed", "nondeterministic"
        feedback = "the same input gave different results on different runs; is the code random or stateful?"
    else:
        status, kind = "error", "grader_error"
        feedback = f"the check itself failed ({type(cause).__name__}: {cause}); please report this to your instructor"
    calls = getattr(cause, "calls", None) or calls
    if not getattr(cause, "caused_by_input", True):
        calls = []
    expected = getattr(cause, "expected", None)
    got = getattr(cause, "got", None)
    return {
        "status": status,
        "kind": kind,
        "feedback": feedback,
        "counterexample": counterexample.describe(calls, expected=expected, got=got) if calls else None,
    }


def _root_cause(error: BaseException) -> BaseException:
    """The check or submission failure inside Hypothesis's exception groups, if any."""
    if isinstance(error, BaseExceptionGroup) and not isinstance(error, Flaky):
        for inner in error.exceptions:
            found = _root_cause(inner)
            if isinstance(found, (CheckFailure, SubmissionError)):
                return found
    return error
