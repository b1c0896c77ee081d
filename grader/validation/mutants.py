"""Mutation score of an assignment's checks: mutants of the reference, graded as students' files.

The mutants come from cosmic-ray (the ``authoring`` extra), a maintained mutation tool,
through the calls its API reference lists (operator plugins, its parso tree, and
``mutate_code``, which returns the mutated text and writes nothing): its own runner would
run a test command per mutant with the file changed in place, where the grader grades a
folder of mutants at once, sandboxed, with its own jobs.

A mutant the checks fail is killed. One that still gets full marks is a hole in the checks
if it answers some input otherwise than the reference: the assignment's probes (its known
mistakes' probes, and its quick calls), then a stronger search of :data:`SEARCHED_PER_PROBE`
random inputs for each probe (its arrays drawn anew at several scales, in float64 and
float32, its masks at random). Only a survivor that search finds no difference on is left
out of the score, listed with its diff as "no difference found in N inputs" (``axis=1`` for
``axis=-1`` on 2-D inputs, say): never called equivalent.
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
PROBE_TIMEOUT_S = 60.0
SEARCHED_PER_PROBE = 24  # random inputs of each probe's shapes, for a survivor the probes do not tell apart


@dataclass(frozen=True)
class Mutant:
    name: str  # the operator and occurrence, as cosmic-ray names them: "core/NumberReplacer 3"
    source: str


@dataclass(frozen=True)
class Survivor:
    mutant: Mutant
    diff: str
    # How many inputs it answered as the reference does when no input told them apart (0:
    # one did, and it is a hole).
    no_difference_in: int = 0


@dataclass(frozen=True)
class Score:
    graded: int
    killed: int
    survivors: list[Survivor]
    made: int  # how many mutants the reference has (graded: the first `graded` of them)
    minimum: float  # the least score, in percent, that passes

    @property
    def holes(self) -> list[Survivor]:
        return [survivor for survivor in self.survivors if not survivor.no_difference_in]

    @property
    def not_counted(self) -> list[Survivor]:
        """The survivors no input told apart from the reference: left out of the score."""
        return [survivor for survivor in self.survivors if survivor.no_difference_in]

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
    # ``most`` of them (all when there are no more), spread over every operator, not the first few.
    chosen = made if len(made) <= most else [made[index * len(made) // most] for index in range(most)]
    folder = workdir / "files"
    folder.mkdir(parents=True)
    names = {}
    for number, mutant in enumerate(chosen, start=1):
        student = f"mutant-{number:04d}"
        names[student] = mutant
        (folder / f"{student}.py").write_text(mutant.source, encoding="utf-8")
    reports = grade_folder(folder, workdir / "reports", rubric, limits, jobs=jobs, regrade=True)
    alive = [names[report.student] for report in reports if report.status != "error" and report.score >= report.max_score]
    alike_in = _answers_alike(assignment, reference, alive, workdir)
    survivors = [Survivor(mutant, _diff(reference, mutant.source), inputs) for mutant, inputs in zip(alive, alike_in)]
    return Score(len(chosen), len(chosen) - len(alive), survivors, len(made), minimum)


def _diff(before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "reference", "mutant", n=1, lineterm="")
    return "\n".join(lines)


def _answers_alike(assignment: Assignment, reference: str, alive: list[Mutant], workdir: Path) -> list[int]:
    """For each mutant, how many inputs it answers as the reference does when none tells
    them apart (0: one does): the assignment's probes, then the stronger search's random
    inputs. Each is run in a child process with a timeout (a mutant may loop forever)."""
    if not alive:
        return []
    probes = [(probe.function, probe.args, probe.kwargs) for found in assignment.mistakes().probes.values() for probe in found]
    probes += [(function, args, {}) for function, (args, _) in assignment.small_calls().items()]
    (workdir / "reference.py").write_text(reference, encoding="utf-8")
    rounds = [("probes", probes), ("searched", searched(probes))]
    for name, calls in rounds:
        (workdir / f"{name}.pickle").write_bytes(pickle.dumps(calls))
    expected = {name: _answers(workdir / "reference.py", workdir / f"{name}.pickle", workdir) for name, _ in rounds}
    alike = []
    for number, mutant in enumerate(alive):
        path = workdir / f"alive-{number}.py"
        path.write_text(mutant.source, encoding="utf-8")
        told_apart = False
        for name, _ in rounds:
            got = _answers(path, workdir / f"{name}.pickle", workdir)
            if got is None or expected[name] is None or not _same(got, expected[name]):
                told_apart = True
                break
        alike.append(0 if told_apart else sum(len(calls) for _, calls in rounds))
    return alike


def searched(probes: list[tuple[str, tuple, dict]]) -> list[tuple[str, tuple, dict]]:
    """:data:`SEARCHED_PER_PROBE` random calls of each probe's function with arguments of its
    shapes: float arrays drawn anew at scales from 0.1 to 1000 (every other one in float32),
    boolean arrays (masks) at random, everything else as the probe gives it."""
    import numpy as np

    rng = np.random.default_rng(0)
    scales = (0.1, 1.0, 10.0, 1000.0)
    calls = []
    for function, args, kwargs in probes:
        for number in range(SEARCHED_PER_PROBE):
            scale, dtype = scales[number % len(scales)], (np.float64, np.float32)[number % 2]

            def drawn(value: Any, scale: float = scale, dtype: Any = dtype) -> Any:
                if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                    return (rng.standard_normal(value.shape) * scale).astype(dtype)
                if isinstance(value, np.ndarray) and value.dtype == bool:
                    return rng.random(value.shape) < 0.7
                return value

            calls.append((function, tuple(drawn(arg) for arg in args), {key: drawn(v) for key, v in kwargs.items()}))
    return calls


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


def _answers(path: Path, calls: Path, workdir: Path) -> list[Any] | None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", ANSWERS, str(path), str(calls)],
            capture_output=True, timeout=PROBE_TIMEOUT_S, cwd=workdir, check=False,
        )
        return pickle.loads(done.stdout) if done.returncode == 0 else None
    except (subprocess.TimeoutExpired, pickle.UnpicklingError, EOFError):
        return None


def _same(got: list[Any], expected: list[Any]) -> bool:
    from grader.diagnoses import same

    return len(got) == len(expected) and all(same(a, b) for a, b in zip(got, expected))
