"""Mutation score of an assignment's checks: mutants of the reference, graded as students' files.

The mutants come from cosmic-ray (the ``authoring`` extra), a maintained mutation tool,
through the calls its API reference lists (operator plugins, its parso tree, and
``mutate_code``, which returns the mutated text and writes nothing): its own runner would
run a test command per mutant with the file changed in place, where the grader grades a
folder of mutants at once, sandboxed, with its own jobs.

A mutant the checks fail is killed. One that still gets full marks is a hole in the checks
if it answers some probe of the assignment (its known mistakes' probes, and its quick
calls) otherwise than the reference; if it answers every one alike it is told apart as
probably equivalent (``axis=1`` for ``axis=-1`` on 2-D inputs), and not counted.
"""

from __future__ import annotations

import difflib
import pickle
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.assignments import Assignment
from grader.assignments.rubric import Rubric
from grader.batch import grade_folder
from grader.errors import UsageError
from grader.sandbox import Limits

# Replacements that only make float code raise (bitwise operators), or that name an
# exception the mutant does not define.
SKIPPED_OPERATORS = ("_RShift", "_LShift", "_BitOr", "_BitAnd", "_BitXor", "ExceptionReplacer")
PROBE_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Mutant:
    name: str  # the operator and occurrence, as cosmic-ray names them: "core/NumberReplacer 3"
    source: str


@dataclass(frozen=True)
class Survivor:
    mutant: Mutant
    diff: str
    equivalent: bool  # it answered every probe as the reference does


@dataclass(frozen=True)
class Score:
    graded: int
    killed: int
    survivors: list[Survivor]
    made: int  # how many mutants the reference has (graded: the first `graded` of them)
    minimum: float  # the least score, in percent, that passes

    @property
    def holes(self) -> list[Survivor]:
        return [survivor for survivor in self.survivors if not survivor.equivalent]

    @property
    def percent(self) -> float:
        counted = self.graded - (len(self.survivors) - len(self.holes))
        return 100.0 * self.killed / counted if counted else 100.0

    @property
    def passed(self) -> bool:
        return self.percent >= self.minimum


def mutants(source: str) -> list[Mutant]:
    """Every mutant cosmic-ray makes of ``source`` that is valid Python, in its order."""
    try:
        from cosmic_ray.ast import ast_nodes, get_ast
        from cosmic_ray.mutating import mutate_code
        from cosmic_ray.plugins import get_operator, operator_names
    except ImportError:
        raise UsageError(
            "mutation scores need cosmic-ray: install the grader with its authoring extra "
            "(python -m pip install -e '.[authoring]' in a clone), or give --mutants 0"
        ) from None
    nodes = list(ast_nodes(get_ast(source)))  # reading positions changes nothing: parsed once
    made = []
    for name in sorted(operator_names()):
        operator_class = get_operator(name)
        if operator_class.arguments() or name.endswith(SKIPPED_OPERATORS):
            continue
        operator = operator_class()
        positions = sum(1 for node in nodes for _ in operator.mutation_positions(node))
        for occurrence in range(positions):
            mutated = mutate_code(source, operator, occurrence)
            if mutated is None or mutated == source or not _compiles(mutated):
                continue
            made.append(Mutant(f"{name} {occurrence}", mutated))
    return made


def _compiles(source: str) -> bool:
    try:
        compile(source, "<mutant>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def score(
    assignment: Assignment, rubric: Rubric, limits: Limits, workdir: Path, jobs: int, most: int, minimum: float
) -> Score:
    """Grade the first ``most`` mutants of ``assignment``'s reference in ``workdir``."""
    reference = assignment.path(assignment.reference).read_text(encoding="utf-8")
    made = mutants(reference)
    chosen = made[:: -(-len(made) // most)] if made else []  # spread over every operator, not the first few
    folder = workdir / "files"
    folder.mkdir(parents=True)
    names = {}
    for number, mutant in enumerate(chosen, start=1):
        student = f"mutant-{number:04d}"
        names[student] = mutant
        (folder / f"{student}.py").write_text(mutant.source, encoding="utf-8")
    reports = grade_folder(folder, workdir / "reports", rubric, limits, jobs=jobs, regrade=True)
    alive = [names[report.student] for report in reports if report.status != "error" and report.score >= report.max_score]
    same = _answers_alike(assignment, reference, alive, workdir)
    survivors = [Survivor(mutant, _diff(reference, mutant.source), alike) for mutant, alike in zip(alive, same)]
    return Score(len(chosen), len(chosen) - len(alive), survivors, len(made), minimum)


def _diff(before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "reference", "mutant", n=1, lineterm="")
    return "\n".join(lines)


def _answers_alike(assignment: Assignment, reference: str, alive: list[Mutant], workdir: Path) -> list[bool]:
    """Whether each mutant answers the assignment's probes as the reference does, each run
    in a child process with a timeout (a mutant may loop forever)."""
    if not alive:
        return []
    probes = [(probe.function, probe.args, probe.kwargs) for found in assignment.mistakes().probes.values() for probe in found]
    probes += [(function, args, {}) for function, (args, _) in assignment.small_calls().items()]
    (workdir / "probes.pickle").write_bytes(pickle.dumps(probes))
    (workdir / "reference.py").write_text(reference, encoding="utf-8")
    expected = _answers(workdir / "reference.py", workdir)
    alike = []
    for number, mutant in enumerate(alive):
        path = workdir / f"alive-{number}.py"
        path.write_text(mutant.source, encoding="utf-8")
        got = _answers(path, workdir)
        alike.append(got is not None and expected is not None and _same(got, expected))
    return alike


ANSWERS = """
import importlib.util, pickle, sys
import numpy as np
spec = importlib.util.spec_from_file_location("mutant", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
answers = []
for function, args, kwargs in pickle.load(open(sys.argv[2], "rb")):
    try:
        with np.errstate(all="ignore"):
            answers.append(getattr(module, function)(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args], **kwargs))
    except Exception as error:
        answers.append(("raised", type(error).__name__))
sys.stdout.buffer.write(pickle.dumps(answers))
"""


def _answers(path: Path, workdir: Path) -> list[Any] | None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", ANSWERS, str(path), str(workdir / "probes.pickle")],
            capture_output=True, timeout=PROBE_TIMEOUT_S, cwd=workdir, check=False,
        )
        return pickle.loads(done.stdout) if done.returncode == 0 else None
    except (subprocess.TimeoutExpired, pickle.UnpicklingError, EOFError):
        return None


def _same(got: list[Any], expected: list[Any]) -> bool:
    from grader.diagnoses import same

    return len(got) == len(expected) and all(same(a, b) for a, b in zip(got, expected))
