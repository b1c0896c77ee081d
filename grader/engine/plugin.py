"""The pytest plugin that runs the checks against sandboxed submissions.

Loaded by :mod:`grader.engine.pytest_entry` (which defines the ``--attention-*`` options) when
``--attention-submission`` is given, so a student who lives in pytest can run
``pytest --attention-submission attention.py``: with no test paths given, pytest then
collects the grader's checks, and each failure reads as the grader's feedback and the
lines that reproduce it.

It provides the ``submission`` fixture (a
:class:`grader.engine.proxy.Submission`, whose worker is sandboxed as ``--attention-sandbox``
says: bubblewrap wherever it works), runs only the checks the rubric names, and attaches
each check's outcome (status, kind, feedback, counterexample, and which submission) to
its pytest-json-report entry as metadata. ``grader check`` reads those entries; it never
parses pytest's text output. The grader's batches name several submissions (the option
repeated): the fixture is then parametrized, and each submission's checks run as they
would alone, one submission after another.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis.errors import Flaky

from grader import diagnoses, sources
from grader.diagnoses import unfinished
from grader.assignments import Assignment, written_for_another
from grader.assignments.rubric import Rubric, chosen_rubric
from grader.checking import secret, strategies
from grader.checking.outcomes import CallRaised, CallTimedOut, CheckFailure, FunctionMissing, SubmissionError
from grader.engine import counterexample, traces
from grader.engine.claims import claim
from grader.engine.examples import cache_key, recorded_examples
from grader.engine.proxy import Submission
from grader.errors import GraderError, UsageError
from grader.report import failure_details
from grader.report.safe_text import shown
from grader.resources import examples_cache
from grader.sandbox import Limits, resolve_isolation

SUBMISSIONS = pytest.StashKey[list]()  # of Submission, in command-line order
EXTRAS = pytest.StashKey["ReportExtras"]()
REPLAYS = pytest.StashKey[dict]()
TRACES = pytest.StashKey[traces.TraceStore]()
CLAIMED = pytest.StashKey[dict]()  # submission index -> whether this run grades it
RUBRIC = pytest.StashKey[Rubric]()  # what this run grades with; its assignment is RUBRIC's .of
# Seconds of a submission's budget left unused by its pictures and diagnoses, besides the
# import of a worker started again during them (after a call that hung): its worker's stop
# and its results' writing come after them.
EXPLAIN_MARGIN_S = 2.0
# How long a diagnosis's call waits before it is tried again as a hang: every working version
# answers its small probes in milliseconds.
HANG_PROBE_S = 1.0


def check_id(item: pytest.Item) -> str:
    """The stable id of a check: ``<module>.<function name without test_>`` (a student's
    pytest names its items so: see StudentView)."""
    name = item.originalname
    return _check_id(item.module.__name__, name) if name.startswith("test_") else name


def _check_id(module: str, function: str) -> str:
    return f"{module.rpartition('.')[2]}.{function.removeprefix('test_')}"


def _submission_index(item: pytest.Item) -> int:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("submission", 0) if callspec is not None else 0


def submission_of(item: pytest.Item) -> Submission:
    """The submission ``item`` checks: with several, the ``submission`` fixture is parametrized."""
    return item.config.stash[SUBMISSIONS][_submission_index(item)]


def pytest_configure(config: pytest.Config) -> None:
    paths = config.getoption("attention_submission")
    if paths:
        config.stash[RUBRIC] = _rubric(config)
        assignment = config.stash[RUBRIC].of
        for path in paths:
            if not Path(path).is_file():
                raise pytest.UsageError(f"--attention-submission {path}: no such file")
        student_view = config.getoption("tbstyle") != "no"  # the grader's own runs pass --tb=no
        if student_view and len(paths) > 1:
            raise pytest.UsageError("--attention-submission: give one submission; grade folders with grader grade")
        sandbox = config.getoption("attention_sandbox")
        try:
            # The grader's own runs name the sandbox its command resolved and tried already
            # (trying bubblewrap again would cost each check process a sandbox start). Any
            # other run is a student's self-check, as `grader check` is.
            isolation = (
                resolve_isolation(sandbox, self_check=True, warn=_warn)
                if student_view or sandbox == "auto"
                else sandbox
            )
        except UsageError as error:
            raise pytest.UsageError(str(error)) from None
        limits = Limits(
            call_timeout=config.getoption("attention_call_timeout"),
            check_budget=config.getoption("attention_check_budget"),
            submission_budget=config.getoption("attention_submission_budget"),
            memory_mb=config.getoption("attention_memory_mb"),
            max_processes=config.getoption("attention_max_processes"),
            isolation=isolation,
            course_key=config.getoption("attention_course_key"),
        )
        # The check process runs one session after another: each says whose examples it draws.
        strategies.use_course_key(limits.course_key)
        if config.args_source != pytest.Config.ArgsSource.ARGS:
            # No test paths on the command line: the checks are the tests.
            config.args = [str(folder) for folder in assignment.checks_folders]
        config.stash[SUBMISSIONS] = submissions = [
            Submission(_read(Path(path), assignment), assignment, limits) for path in paths
        ]
        if _claimed(config, 0):
            submissions[0].start_worker()  # it imports the submission while pytest collects the checks
        # What the grader's report adds to the checks (its JSON report's), and what a student's
        # pytest prints under "what went wrong".
        if config.getoption("json_report", False) or student_view:
            bonus = frozenset(check.id for check in config.stash[RUBRIC].checks if check.bonus)
            config.stash[EXTRAS] = ReportExtras(len(submissions), bonus)
            config.pluginmanager.register(config.stash[EXTRAS], "attention-report-extras")
        if student_view:
            config.pluginmanager.register(StudentView(config), "attention-student-view")


def _rubric(config: pytest.Config) -> Rubric:
    """The rubric ``--attention-rubric`` names (default: the assignment's own) and the
    assignment ``--attention-assignment`` names, decided as ``grader check`` decides them
    (:func:`grader.assignments.rubric.chosen_rubric`)."""
    rubric_path = config.getoption("attention_rubric")
    try:
        return chosen_rubric(
            Path(rubric_path) if rubric_path else None,
            config.getoption("attention_assignment"),
            Path(config.getoption("attention_submission")[0]),
        )
    except GraderError as error:
        raise pytest.UsageError(str(error)) from None


def _claimed(config: pytest.Config, index: int) -> bool:
    """Whether this run grades submission ``index``: yes, unless the batch named a claims
    folder (grader.engine.claims) and another job claimed it first. Decided once, just before
    the submission's worker starts."""
    folder = config.getoption("attention_claims")
    if folder is None:
        return True
    decided = config.stash.setdefault(CLAIMED, {})
    if index not in decided:
        decided[index] = claim(Path(folder), index)
    return decided[index]


def _warn(message: str) -> None:
    # pytest does not capture output while it configures: this reaches the terminal.
    print(f"grader: warning: {message}", file=sys.stderr)


def _read(path: Path, assignment: Assignment) -> sources.Source:
    try:
        return sources.read(path, assignment)
    except (sources.Unusable, UsageError) as error:
        raise pytest.UsageError(f"--attention-submission {path}: {error}") from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Several submissions: each check runs once for each, all of one submission's checks
    before the next one's (pytest groups the items of a session-scoped parameter), in the
    order they run for a submission graded alone."""
    submissions = metafunc.config.stash.get(SUBMISSIONS, [])
    if len(submissions) > 1 and "submission" in metafunc.fixturenames:
        indices = range(len(submissions))
        metafunc.parametrize("submission", indices, indirect=True, scope="session", ids=[f"s{i}" for i in indices])


class CheckModule(pytest.Module):
    """A check module, imported by its name in its assignment's package rather than by its
    path: a course's folder is imported under a name of its own (grader.assignments.outside),
    and its checks import its other modules relatively."""

    module_name = ""

    def _getobj(self) -> Any:
        return importlib.import_module(self.module_name)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """Each check module of the assignment (pytest's own python_files pattern never matches
    them: see grader.engine.runner), shown as ``<module>.py::test_<name>``."""
    assignment = parent.config.stash[RUBRIC].of if RUBRIC in parent.config.stash else None
    if assignment is None or file_path.suffix != ".py" or file_path.name == "__init__.py":
        return None
    packages = dict(zip(assignment.checks_folders, assignment.check_packages))
    if file_path.parent not in packages:
        return None
    module = CheckModule.from_parent(parent, path=file_path)
    module.module_name = f"{packages[file_path.parent]}.{file_path.stem}"
    return module


def pytest_unconfigure(config: pytest.Config) -> None:
    for submission in config.stash.get(SUBMISSIONS, []):
        submission.close()
    strategies.use_course_key(None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if RUBRIC in config.stash:
        # A folder's own python_files pattern (python_files = *.py) may collect a check module
        # a second time, as a plain module of pytest's: only this plugin's CheckModule runs it.
        folders = set(config.stash[RUBRIC].of.checks_folders)
        twice = [item for item in items if item.path.parent in folders and not isinstance(item.parent, CheckModule)]
        if twice:
            config.hook.pytest_deselected(items=twice)
            items[:] = [item for item in items if item not in twice]
        # Only the rubric's checks (the assignment's own rubric by default: a course's may
        # leave out checks of the assignment it extends).
        wanted = set(config.stash[RUBRIC].check_ids)
        deselected = [item for item in items if check_id(item) not in wanted]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if check_id(item) in wanted]
    # A course's convention turns each call as it is sent: the recorded calls and the
    # reference's replies (sent ahead, compared byte for byte) are the lesson's.
    convention = config.stash[RUBRIC].of.convention if RUBRIC in config.stash else None
    if SUBMISSIONS in config.stash and not config.getoption("attention_live") and convention is None:
        # Each course secret draws other examples: their recordings and traces are its own.
        label = secret.label(config.getoption("attention_course_key"))
        assignment = config.stash[RUBRIC].of
        folder = Path(config.getoption("attention_examples") or examples_cache()) / cache_key() / label / assignment.cache_name
        tests = {check_id(item): item.obj for item in items if isinstance(item, pytest.Function)}
        config.stash[REPLAYS] = recorded_examples(tests, folder, assignment)
        config.stash[TRACES] = traces.store_at(folder / "traces")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Pass a check by replaying its recorded examples; at the first failure, run it live.

    The live run draws the same examples in the same order, so it meets the same failure
    and shrinks it: the result is the one a live run alone would give, sooner. A failure
    that follows the trace of an earlier live run is shrunk by walking that trace
    (grader.engine.traces), with the same result.
    """
    recording = pyfuncitem.config.stash.get(REPLAYS, {}).get(check_id(pyfuncitem))
    if recording is None or not recording.examples:
        return None
    submission = pyfuncitem.funcargs["submission"]
    # The reference's calls, sent ahead in batches: the worker answers while checks run.
    submission.prefetch(recording.batches[0][1])
    try:
        for index, (drawn, calls, replies) in enumerate(zip(recording.examples, recording.calls, recording.replies)):
            if index in recording.sent_next:
                submission.prefetch(recording.sent_next[index], more=True)
            # An example the submission answered byte for byte as the reference did passes.
            if not submission.takes_replies(calls, replies):
                pyfuncitem.obj.hypothesis.inner_test(submission, **drawn)
    except SubmissionError as error:
        if error.fails_fast:
            raise  # a live run would fail every example at once with this same error
    except Exception:
        pass
    else:
        return True
    submission.begin_check(check_id(pyfuncitem))  # the live run starts from a clean slate
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
    submission.begin_check(check)
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
    """How a student running ``pytest --attention-submission`` sees the checks: each by its
    check id, each failure as the grader's feedback and the lines that reproduce it (not
    Hypothesis's traceback), then what went wrong (the diagnoses ``grader check`` tells)
    and the score the rubric gives.

    A bonus check that fails is reported as an expected failure (``x``, "xfailed") and
    its feedback shown under "bonus not earned": it costs no points, so, as in the
    Classroom step, it does not fail a run whose other checks all pass.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rubric = config.stash[RUBRIC]
        self.bonus = {check.id for check in self.rubric.checks if check.bonus}
        self.passed: dict[str, bool] = {}
        self.bonus_missed: dict[str, list[str]] = {}  # check id -> its feedback and repro

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        report = yield
        if call.when == "call" and isinstance(item, pytest.Function):
            check = check_id(item)
            self.passed[check] = report.passed
            outcome = noted_outcome(item, call)
            if call.excinfo is not None:
                # Shown in a terminal: what the submission raised may hold escape sequences.
                details = [shown(line) for line in failure_details(outcome["feedback"], outcome["kind"], outcome["counterexample"])]
                report.longrepr = "\n".join(details)
                if check in self.bonus and outcome["kind"] != "grader_error":  # the grader's failure stays red
                    report.outcome = "skipped"  # with wasxfail: what pytest reports as xfailed
                    report.wasxfail = f"bonus not earned: {details[0] if details else ''}"
                    self.bonus_missed[check] = details
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(self, collector: pytest.Collector, name: str, obj: Any) -> pytest.Function | None:
        """Each check is shown by its id (``attention.py::attention.worked_example``), as
        ``grader check`` and the rubric name it: a bare test name is the same in several
        modules (``test_large_logits``)."""
        if not isinstance(collector, CheckModule) or not name.startswith("test_") or not inspect.isfunction(obj):
            return None
        return pytest.Function.from_parent(collector, name=_check_id(collector.module_name, name), callobj=obj)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        found = self.config.stash[EXTRAS].found[0]["diagnoses"] if EXTRAS in self.config.stash else []
        if found:
            terminalreporter.write_sep("=", "what went wrong")
            for diagnosis in found:
                for line in textwrap.wrap(shown(diagnosis["message"]), width=88, initial_indent="- ", subsequent_indent="  "):
                    terminalreporter.write_line(line)
        if self.bonus_missed:
            terminalreporter.write_sep("=", "bonus not earned")
            for check, details in self.bonus_missed.items():
                terminalreporter.write_line(f"{check}: " + "\n".join(details))
        checks = [check for check in self.rubric.checks if check.id in self.passed]
        score = sum(check.points for check in checks if self.passed[check.id] and not check.bonus)
        bonus = sum(check.points for check in checks if self.passed[check.id] and check.bonus)
        extra = f" (+{bonus:g} bonus)" if bonus else ""
        if len(checks) < len(self.rubric.checks):  # -k, -x, a test file of one's own: not a grade
            ran = sum(check.points for check in checks if not check.bonus)
            terminalreporter.write_sep(
                "=", f"{score:g}/{ran:g} points on the {len(checks)} of {len(self.rubric.checks)} checks run{extra} "
                f"({self.rubric.name}: run them all for a score out of {self.rubric.max_score:g})",
            )
            return
        terminalreporter.write_sep("=", f"{score:g}/{self.rubric.max_score:g} points{extra} ({self.rubric.name})")


class _JournalFull(Exception):
    """A walk kept more reply data than a check process should hold."""


class ReportExtras:
    """Adds to the JSON report what the checks alone do not say (see grader.diagnoses), as
    ``submissions``, one entry per submission: ``pictures``, its attention weights on two
    fixed inputs, for a submission that gave a wrong answer or raised, ``diagnoses``, the
    known mistakes its answers match, and ``duration_s``, the seconds from its first
    check to the end of those. Both are asked of a submission after its last check, with
    the worker its checks left; neither of a submission whose calls hung or crashed (its
    answers would tell nothing, slowly)."""

    def __init__(self, count: int, bonus: frozenset[str] = frozenset()) -> None:
        self.bonus = bonus
        self.kinds: list[set] = [set() for _ in range(count)]
        self.failed: list[set[str]] = [set() for _ in range(count)]  # the checks each did not pass
        self.failed_checks: list[dict[str, diagnoses.FailedCheck]] = [{} for _ in range(count)]  # those that cost points
        self.started: list[float | None] = [None] * count
        self.found: list[dict[str, Any]] = [{"pictures": {}, "diagnoses": [], "duration_s": 0.0} for _ in range(count)]

    def begin(self, index: int) -> None:
        """A check of submission ``index`` starts: the first one starts its clock."""
        if self.started[index] is None:
            self.started[index] = time.monotonic()

    def note(self, index: int, check: str, kind: str | None, failed: diagnoses.FailedCheck | None = None) -> None:
        """``check`` of submission ``index`` ended with ``kind`` (None: it passed); ``failed``:
        what its failing example called, and its feedback."""
        if kind is not None:
            self.kinds[index].add(kind)
            self.failed[index].add(check)
            if check not in self.bonus:  # a failed bonus check costs nothing: no sentence is owed for it
                self.failed_checks[index][check] = failed or diagnoses.FailedCheck(frozenset())

    def explain(self, index: int, submission: Submission) -> None:
        """Ask submission ``index`` for its pictures and diagnoses, after its last check,
        and note how long all of it took (its ``duration_s``)."""
        kinds = self.kinds[index]
        # A function the file does not define is told so too: a head that loses points is told something.
        wrong = kinds & {"wrong_answer", "raised", "nondeterministic", "missing_function"}
        unreliable = kinds & {"timeout", "crashed", "import_failed", "import_timeout", "grader_error"}
        started = self.started[index]

        def budget() -> float | None:
            """Seconds the next phase may take: a check's budget, and never so long that the
            submission's whole run would pass its own budget (its checks' results would be lost)."""
            if started is None:
                return None
            limits = submission.limits
            left = limits.submission_budget - (time.monotonic() - started) - limits.import_timeout - EXPLAIN_MARGIN_S
            return min(limits.check_budget, left) if left > 0 else None

        try:
            left = budget()
            pictures = _pictures(submission, left) if left and not unreliable else {}
            left = budget()
            # A file written for another assignment is told so once, in the report's notes,
            # and nothing per function.
            elsewhere = written_for_another(set(submission.source.defined_names), submission.assignment)
            if left and wrong and not unreliable and elsewhere is None:
                found = _diagnose(submission, self.failed[index], left, self.failed_checks[index])
            elif left and unreliable == {"timeout"}:
                found = _hangs_told(submission, left)
            else:
                found = []
        except Exception:  # these only explain a grade: whatever goes wrong, the grade stands
            pictures, found = {}, []
        duration = time.monotonic() - started if started is not None else 0.0
        self.found[index] = {"pictures": pictures, "diagnoses": found, "duration_s": duration}

    @pytest.hookimpl(optionalhook=True)
    def pytest_json_modifyreport(self, json_report: dict[str, Any]) -> None:
        json_report["submissions"] = self.found


def _probe_call(submission: Submission, deadline: float | None = None) -> Callable[[diagnoses.Probe], diagnoses.Answer]:
    """The submission's answer to a probe; a call that hangs or crashes raises
    :class:`diagnoses.Unanswered` (its function is then not read). With a ``deadline``, the
    calls after it still get what is left of the time until then, not that call's
    failure, and none is made after it."""

    def call(probe: diagnoses.Probe) -> diagnoses.Answer:
        if deadline is not None and time.monotonic() >= deadline:
            raise diagnoses.Unanswered("the diagnosis's time is spent")
        try:
            reply = submission.call(probe.function, list(probe.args), dict(probe.kwargs), return_args=True)
        except SubmissionError as error:
            if error.fails_fast:
                if deadline is not None:
                    submission.begin_check(budget=max(deadline - time.monotonic(), 0.0))
                raise diagnoses.Unanswered(str(error)) from None
            if isinstance(error, CallRaised):
                return diagnoses.Answer(diagnoses.RAISED, raised=error.exception_type, text=error.text, line=error.line)
            if isinstance(error, FunctionMissing):
                return diagnoses.Answer(diagnoses.RAISED, raised=unfinished.NOT_DEFINED, text=error.message)
            return diagnoses.Answer(diagnoses.RAISED)
        return diagnoses.Answer(reply.value, tuple(reply.args_after))

    return call


def _pictures(submission: Submission, budget: float) -> dict[str, Any]:
    submission.begin_check(budget=budget)  # a fresh time budget of their own
    call = _probe_call(submission)
    try:
        return {
            name: {
                "student": diagnoses.weights(call(diagnoses.Probe(picture.function, picture.args)), picture.weights_index),
                "reference": _reference_weights(submission.assignment, name),
            }
            for name, picture in submission.assignment.pictures().items()
        }
    except diagnoses.Unanswered:
        return {}


@functools.cache  # the same for every submission of a check process
def _reference_weights(assignment: Assignment, name: str) -> list[list[float | None]] | None:
    picture = assignment.pictures()[name]
    head = assignment.reference_functions()[picture.function]
    return diagnoses.weights(diagnoses.run(head, diagnoses.Probe(picture.function, picture.args)), picture.weights_index)


def _diagnose(
    submission: Submission, failed: set[str], budget: float, failed_checks: Mapping[str, diagnoses.FailedCheck] | None = None
) -> list[dict[str, str]]:
    """The mistakes of the functions a ``failed`` check tests: a function whose own checks
    all passed is told nothing, whatever the probes show (a head could answer them alone
    wrongly, on purpose)."""
    submission.begin_check(budget=budget)
    assignment = submission.assignment
    suspects = {name for name in assignment.function_names if assignment.checks_of(name, tuple(failed))}
    known = assignment.mistakes()
    found = diagnoses.diagnose(
        _probe_call(submission, time.monotonic() + budget), known, suspects, failed_checks, afresh=submission.start_afresh
    )
    convention = assignment.convention
    if convention is None:
        return found
    # The diagnoses are worded in the lesson's convention: a sentence that speaks of it is not told.
    return [
        entry for entry in found
        if not convention.silences(known.by_id[entry["id"]].function if entry["id"] in known.by_id else None, entry["message"])
    ]


def _hangs_told(submission: Submission, budget: float) -> list[dict[str, str]]:
    """Where each function that timed out in a check, but answers some input, hangs (see
    :func:`grader.diagnoses.hangs`), within ``budget``: each probe gets HANG_PROBE_S, and one
    that does not return then is called again as the first call of a fresh worker, with the
    whole call timeout. Only a call that does not return then either counts as a hang: a
    slow answer, or a loop that depends on earlier calls (a counter), is not one."""
    deadline = time.monotonic() + budget
    timeout = submission.limits.call_timeout

    def within(probe: diagnoses.Probe, seconds: float) -> bool | None:
        """Whether the call finished within ``seconds``."""
        if deadline - time.monotonic() < seconds:
            return None  # too little time to tell a hang from a slow answer
        submission.begin_check(budget=seconds, probe=False)  # each call gets its own seconds
        try:
            submission.call(probe.function, list(probe.args), dict(probe.kwargs))
        except CallTimedOut:
            return False
        except SubmissionError as error:
            return None if error.fails_fast else True  # a raise is an answer; a crash tells nothing
        return True

    def returns(probe: diagnoses.Probe) -> bool | None:
        quick = within(probe, min(HANG_PROBE_S, timeout))
        if quick is not False:
            return quick
        try:
            submission.start_afresh(ready=True)
        except SubmissionError:
            return None
        return None if within(probe, timeout) is not False else False

    return diagnoses.hangs(returns, submission.assignment.mistakes(), submission.hangs_on_some_inputs, timeout)


@pytest.fixture(scope="session")
def submission(request: pytest.FixtureRequest) -> Submission:
    """The submission under test (one of several when parametrized); checks are skipped
    when none was given."""
    submissions = request.config.stash.get(SUBMISSIONS, [])
    if not submissions:
        pytest.skip("no --attention-submission given")
    return submissions[getattr(request, "param", 0)]


def _checks_a_submission(item: pytest.Item) -> bool:
    return SUBMISSIONS in item.config.stash and "submission" in getattr(item, "fixturenames", ())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Each check's clock starts once its fixtures are set up."""
    result = yield
    if _checks_a_submission(item):
        submission_of(item).begin_check(check_id(item))
        if EXTRAS in item.config.stash:
            item.config.stash[EXTRAS].begin(_submission_index(item))
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After a submission's last check: its pictures and diagnoses, its worker stopped,
    and the next submission's worker started (as the first one's is at configure), all
    before the next submission's first check starts its clock."""
    if not _checks_a_submission(item):
        return
    index = _submission_index(item)
    if nextitem is not None and _checks_a_submission(nextitem) and _submission_index(nextitem) == index:
        return
    submission = submission_of(item)
    if EXTRAS in item.config.stash:
        item.config.stash[EXTRAS].explain(index, submission)
    submission.close()
    if nextitem is not None and _checks_a_submission(nextitem) and _claimed(nextitem.config, _submission_index(nextitem)):
        submission_of(nextitem).start_worker()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """The checks of a submission another job took over (see :func:`_claimed`) do not run
    here, and leave no report. Whole submissions are skipped, and every submission's
    checks start with the same one, so pytest's setup state stays as it expects."""
    if _checks_a_submission(item) and not _claimed(item.config, _submission_index(item)):
        return True
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item: pytest.Item, call: pytest.CallInfo) -> dict[str, Any]:
    index = _submission_index(item)
    metadata: dict[str, Any] = {"check_id": check_id(item), "submission": index}
    if call.when != "call" or SUBMISSIONS not in item.config.stash:
        return metadata
    return {**metadata, **noted_outcome(item, call)}


def noted_outcome(item: pytest.Item, call: pytest.CallInfo) -> dict[str, Any]:
    """How a check's call ended (:func:`outcome_of`, or passed), noted for the submission's
    diagnoses (:class:`ReportExtras`)."""
    outcome = (
        {"status": "passed", "kind": None, "feedback": None, "counterexample": None}
        if call.excinfo is None
        else outcome_of(call.excinfo.value, submission_of(item))
    )
    if EXTRAS in item.config.stash:
        example = outcome["counterexample"] or {}
        failed = diagnoses.FailedCheck(frozenset(call["function"] for call in example.get("calls", ())), outcome["feedback"] or "")
        item.config.stash[EXTRAS].note(_submission_index(item), check_id(item), outcome["kind"], failed)
    return outcome


def outcome_of(error: BaseException, submission: Submission) -> dict[str, Any]:
    """Status, kind, feedback and counterexample for the exception that ended a check of ``submission``."""
    cause = _root_cause(error)
    if isinstance(cause, (CheckFailure, SubmissionError)):
        status, kind, feedback = cause.status, cause.kind, cause.message
    elif isinstance(cause, Flaky):
        status, kind = "failed", "nondeterministic"
        feedback = "the same input gave different results on different runs; is the code random or stateful?"
    else:
        status, kind = "error", "grader_error"
        feedback = f"the check itself failed ({type(cause).__name__}: {cause}); please report this to your instructor"
    calls = getattr(cause, "calls", None) or submission.example_calls
    if not getattr(cause, "caused_by_input", True):
        calls = []
    expected = getattr(cause, "expected", None)
    got = getattr(cause, "got", None)
    return {
        "status": status,
        "kind": kind,
        "feedback": feedback,
        "counterexample": (
            counterexample.describe(
                calls,
                module=Path(submission.source.name).stem,
                expected=expected,
                got=got,
                notebook=submission.source.kind == "notebook",
            )
            if calls
            else None
        ),
    }


def _root_cause(error: BaseException) -> BaseException:
    """The check or submission failure inside Hypothesis's exception groups, if any."""
    if isinstance(error, BaseExceptionGroup) and not isinstance(error, Flaky):
        for inner in error.exceptions:
            found = _root_cause(inner)
            if isinstance(found, (CheckFailure, SubmissionError)):
                return found
    return error
