"""``grader validate``: an assignment checked before students see it.

What it grades (:mod:`grader.validation.submissions`) and what each must get:

- the reference: full marks, every check passed, nothing named;
- the template: 0, and every function told it is not written yet;
- each known mistake's variant: points lost on each check its mistake says catches it
  (``Mistake.caught_by``), and that mistake named, and no other;
- each file of the assignment's ``variants`` folder: points lost on each check its
  ``# must-fail:`` line names, and exactly the mistakes its ``# diagnosis:`` line names;
- all of them graded twice, with one job and with several: the same scores, check
  statuses and named mistakes;
- the mutants of the reference (:mod:`grader.validation.mutants`): one that still gets
  full marks while it answers some probe otherwise than the reference is a hole in the
  checks, listed with its diff;
- and how long grading the reference alone takes.

It is pure orchestration of the grader's own batch: the files are graded exactly as
students' are (sandbox, check process, rubric).
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.assignments import Assignment
from grader.assignments.rubric import Rubric, load_rubric
from grader.batch import grade_folder, read_in_full
from grader.engine.grading import grade_file
from grader.errors import UsageError
from grader.report import NOT_MISTAKES, Report
from grader.sandbox import Limits
from grader.validation import mutants as mutation
from grader.validation.submissions import Planted, planted

NOT_WRITTEN = "is not written yet"


@dataclass(frozen=True)
class Finding:
    """One thing validation looked at: whether it holds, in a line, and why not."""

    passed: bool
    what: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class Validation:
    findings: list[Finding]
    reference_seconds: float
    mutation: mutation.Score | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(finding.passed for finding in self.findings) and (self.mutation is None or self.mutation.passed)


def validate(
    assignment: Assignment,
    rubric: Rubric,
    limits: Limits,
    workdir: Path,
    *,
    jobs: int = 2,
    mutants: int = 0,
    min_mutation_score: float = 0.0,
    progress: Callable[[str], None] = lambda line: None,
) -> Validation:
    """Validate ``assignment`` graded with ``rubric``; its files are written under ``workdir``.
    ``mutants``: how many mutants of the reference to grade at most (0: none)."""
    files, unwritable = planted(assignment)
    folder = workdir / "submissions"
    folder.mkdir(parents=True)
    for file in files:
        (folder / f"{file.student}.py").write_text(file.source, encoding="utf-8")

    progress("grading the reference alone")
    started = time.monotonic()
    grade_file(folder / "reference.py", rubric, limits)
    reference_seconds = time.monotonic() - started

    progress(f"grading {len(files)} files with one job, then again with {jobs}")
    first = _graded(folder, workdir / "one-job", rubric, limits, 1)
    second = _graded(folder, workdir / f"{jobs}-jobs", rubric, limits, jobs)
    alike = _alike_on_every_probe(assignment)
    findings = [_expected(file, first[file.student], rubric, assignment.function_names, alike) for file in files]
    findings.append(_same_twice(first, second, jobs))
    warnings = [f"mistake {item.mistake} is not validated: {item.why}" for item in unwritable]
    declared = {mistake for file in files if file.kind == "variant" and file.caught_by for mistake in file.mistakes}
    warnings += [
        f"mistake {mistake.id} names no check in caught_by: validation cannot tell that its checks catch it"
        for mistake in assignment.mistakes().mistakes if mistake.variants and not mistake.caught_by and mistake.id not in declared
    ]
    warnings += _left_to_do(assignment)

    score = None
    if mutants and findings[0].passed:  # mutants of a reference that fails prove nothing
        progress("grading mutants of the reference")
        score = mutation.score(assignment, rubric, limits, workdir / "mutants", jobs, mutants, min_mutation_score)
    return Validation(findings, reference_seconds, score, warnings)


def _graded(folder: Path, out: Path, rubric: Rubric, limits: Limits, jobs: int) -> dict[str, Report]:
    reports = grade_folder(folder, out, rubric, limits, jobs=jobs, regrade=True)
    return {report.student: report for report in read_in_full(out, reports)}


def _named(report: Report) -> set[str]:
    return {entry["id"] for entry in report.diagnoses if entry["id"] not in NOT_MISTAKES}


def _alike_on_every_probe(assignment: Assignment) -> set[str]:
    """The mistakes with a variant that answers every probe of its function as the reference
    does: the diagnosis can never tell it apart (a mistake read from the inputs a call
    leaves changed, or from a test of the answers, is not read from its variant's answers)."""
    from grader.diagnoses import run, same_answer

    known = assignment.mistakes()
    alike = set()
    for mistake in known.mistakes:
        probes = known.probes.get(mistake.function, [])
        if mistake.shows_in is not None or mistake.beside_answers:
            continue
        for variant in mistake.variants:
            if all(same_answer(run(variant, probe), run(known.reference[probe.function], probe), known.atol) for probe in probes):
                alike.add(mistake.id)
    return alike


def _left_to_do(assignment: Assignment) -> list[str]:
    """The TODO lines ``grader new-assignment`` left in the files students and feedback see."""
    if assignment.folder is None:
        return []
    found = []
    for path in sorted(assignment.folder.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".md") and "__pycache__" not in path.parts:
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
                if "TODO" in line:
                    found.append(f"{path.relative_to(assignment.folder)}, line {number} still says: {line.strip()[:100]}")
    return found


def _variant_expected(file: Planted, report: Report, rubric: Rubric, failed: list[str]) -> Finding:
    """A file of the variants folder: it loses points on every check its ``# must-fail:``
    names (a glob: on one check at least of those it matches), and is told exactly the
    mistakes its ``# diagnosis:`` names."""
    problems = []
    for pattern in file.caught_by:
        matched = [check for check in rubric.check_ids if fnmatch.fnmatchcase(check, pattern)]
        if not matched:
            problems.append(f"{pattern} is not a check of the rubric (must-fail)")
        elif not set(matched) & set(failed):
            problems.append(f"{pattern} passes: the file is meant to fail it")
    named = _named(report)
    problems += [f"{mistake} is not named (named: {', '.join(sorted(named)) or 'nothing'})" for mistake in file.mistakes if mistake not in named]
    problems += [f"{other} is named too" for other in sorted(named - set(file.mistakes))]
    if not any(check.status != "passed" and not check.bonus for check in report.checks):
        problems.append("it gets full marks")
    lost = f"loses points on {', '.join(failed)}" if failed else "loses no points"
    told = ", ".join(file.mistakes) or "no mistake"
    return Finding(not problems, f"variant {file.student.removeprefix('variant-')} ({told}): {lost}", tuple(problems))


def _expected(file: Planted, report: Report, rubric: Rubric, functions: tuple[str, ...], alike: set[str]) -> Finding:
    if report.status == "error":
        return Finding(False, f"{file.student}: graded with an error", (report.error or "",))
    failed = [check.id for check in report.checks if check.status != "passed"]
    if file.kind == "reference":
        problems = [
            f"{check.id} {check.status}: {check.feedback}" for check in report.checks if check.status != "passed" and not check.bonus
        ]
        problems += [f"named {name}" for name in sorted(_named(report))]
        what = f"the reference gets {report.score:g}/{report.max_score:g}"
        return Finding(not problems and report.score >= report.max_score, what, tuple(problems))
    if file.kind == "template":
        told = " ".join([check.feedback or "" for check in report.checks] + [d["message"] for d in report.diagnoses])
        untold = [name for name in functions if f"{name}() {NOT_WRITTEN}" not in told]
        problems = [f"{name} is not told it is not written yet" for name in untold]
        what = f"the template gets {report.score:g}/{report.max_score:g}"
        return Finding(not problems and report.score == 0, what, tuple(problems))
    if file.kind == "variant":
        return _variant_expected(file, report, rubric, failed)
    graded = set(rubric.check_ids)
    problems = [f"{check} is not a check of the rubric (caught_by)" for check in file.caught_by if check not in graded]
    problems += [f"{check} passes: it is meant to catch {file.mistake}" for check in file.caught_by if check in graded and check not in failed]
    named = _named(report)
    if file.mistake not in named:
        problems.append(f"{file.mistake} is not named (named: {', '.join(sorted(named)) or 'nothing'})")
        if file.mistake in alike:
            problems.append(
                f"its variant answers every probe of {file.function} as the reference does, within the diagnosis's "
                "tolerance (Mistakes.atol, 1e-5 unless lowered, + 1e-4 x |expected|): add a probe that tells them "
                "apart, or lower Mistakes(atol=...) where the answers that show it are tiny"
            )
    problems += [f"{other} is named too" for other in sorted(named - {file.mistake})]
    if not failed:
        problems.append("it gets full marks")
    lost = f"loses points on {', '.join(failed)}" if failed else "loses no points"
    return Finding(not problems, f"mistake {file.mistake} ({file.student}): {lost}", tuple(problems))


def refuse_a_revealing_template(rubric: Rubric, limits: Limits) -> None:
    """A :class:`UsageError` when the template students would receive is the reference head or
    scores any point: ``export-student`` hands it to every student. Graded as a student's
    file is (sandbox, check process, rubric)."""
    assignment = rubric.of
    reference = assignment.path(assignment.reference)
    for handed_out, source in assignment.template.items():  # the handout, and every other file handed out
        path = assignment.path(source)
        if path.resolve() == reference.resolve() or path.read_bytes() == reference.read_bytes():
            raise UsageError(
                f"the template's {handed_out} is the reference head {assignment.reference}: export-student would hand "
                "every student the answers; name the file students start from in the Assignment's template"
            )
    name = assignment.template[assignment.handout]
    template = assignment.path(name)
    # Other files handed out that hold code (a hint.py) are graded as the template is.
    code = [template, *(
        assignment.path(source) for handed_out, source in assignment.template.items()
        if handed_out != assignment.handout and Path(handed_out).suffix in (".py", ".ipynb", ".txt")
    )]
    # Under the rubric exported and under the assignment's own: a rubric that leaves out the
    # checks the template passes would hide what it gives away.
    own = load_rubric(assignment.path(assignment.rubric), assignment)
    for graded_by in [rubric, own] if own.sha256 != rubric.sha256 else [rubric]:
        for path in code:
            report = grade_file(path, graded_by, limits, student="template")
            if report.score > 0:
                raise UsageError(
                    f"the template's {path.name} scores {report.score:g} of {report.max_score:g} points under the rubric "
                    f"{Path(graded_by.path).name}: what students start from scores 0 (its functions raise "
                    "NotImplementedError); `grader validate` shows what it answers"
                )


def _same_twice(first: dict[str, Report], second: dict[str, Report], jobs: int) -> Finding:
    differ = [
        student for student in sorted(first)
        if student not in second or _grade(first[student]) != _grade(second[student])
    ]
    return Finding(not differ, f"every file gets the same grade with one job and with {jobs}", tuple(f"{s} differs" for s in differ))


def _grade(report: Report) -> tuple:
    return report.score, tuple((check.id, check.status, check.points) for check in report.checks), sorted(_named(report))


def render(validation: Validation, name: str) -> str:
    """What ``grader validate`` prints: each finding, the mutants that no check kills
    (with their diffs), the time, and the verdict."""
    lines = [f"Validating {name}:"]
    for finding in validation.findings:
        lines.append(f"  {'ok  ' if finding.passed else 'FAIL'}  {finding.what}")
        lines.extend(f"          {detail}" for detail in finding.details)
    lines.extend(f"  warn  {warning}" for warning in validation.warnings)
    score = validation.mutation
    if score is not None:
        uncounted = len(score.not_counted)
        lines.append(
            f"  {'ok  ' if score.passed else 'FAIL'}  mutation score {score.percent:.0f}% (at least {score.minimum:g}%): "
            f"{score.killed} of {score.graded} mutants of the reference killed"
            + (f" (of {score.made} made)" if score.made > score.graded else "")
            + (f"; {uncounted} not counted, no input telling them from the reference (listed below)" if uncounted else "")
        )
        for survivor in score.holes:
            lines.append(f"          hole: {survivor.mutant.name} gets full marks:")
            lines.extend(f"            {line}" for line in survivor.diff.splitlines()[2:])
        for survivor in score.not_counted:
            lines.append(
                f"          not counted: {survivor.mutant.name} gets full marks, and no difference was found in "
                f"{survivor.no_difference_in} inputs:"
            )
            lines.extend(f"            {line}" for line in survivor.diff.splitlines()[2:])
    lines.append(f"  time  grading the reference alone took {validation.reference_seconds:.1f} s")
    verdict = "passes" if validation.passed else "fails"
    lines.append(f"{name} {verdict} validation.")
    return "\n".join(lines)
