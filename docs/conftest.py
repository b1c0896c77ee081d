"""Every example in the documentation runs: ``python -m pytest docs``.

Sybil makes each fenced block of a page a pytest item. A page's blocks run in order, in
a temporary folder of the page's own that starts as a copy of ``docs/demo/`` (the demo
class, a student's file and notebook) with the course assignments of ``tests/courses/``
in ``courses/``, so a page can build on what its earlier blocks did, as a reader
following it would.

What each kind of block must do:

``console``
    Each ``$ command`` line (with ``\\`` continuations) runs in bash in the page's folder.
    The lines after it, up to the next command, are what it prints (stdout and stderr
    together); ``...`` stands for any text. A command with no lines after it may print
    anything. Every command must exit 0, unless the block is marked ``exit N``.
``bash``, ``sh``, ``shell``
    The block runs as one bash script (``set -euo pipefail``) and must exit 0.
``python``
    Runs in one namespace per page, with the page's folder as working directory.
``ipython``
    A notebook cell, magics included (``%grade``): turned into Python as IPython turns it,
    and compiled; never run (it needs a kernel).
``toml``, ``json``, ``yaml``
    Parsed.
anything else (``text``, ``ini``, ``dockerfile``, ...)
    Not checked: outputs, trees of files, snippets of other tools' formats.

A marker in an HTML comment on the line just before a block changes that:

``<!-- docs: not run: REASON -->``
    The block cannot run here (Slurm, an upload, a Colab cell, a command that never
    ends): it is only checked (Python compiled, shell parsed by ``bash -n``, data files
    parsed). The reason is required.
``<!-- docs: exit N -->``
    The block's last command exits with status N (its other commands with 0).

Code a reader copies into their own files (a course's check, its pyproject.toml) is not
pasted in a page: pages include it from the real files under ``tests/`` that the tests
use, with MyST's ``literalinclude``.
"""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import tomllib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

DOCS = Path(__file__).resolve().parent
DEMO = DOCS / "demo"
# The course assignments the grader's tests use (a layer-norm lesson, an extension of the
# first, a course's own mask convention): what the course authors' pages work on.
COURSES = DOCS.parent / "tests" / "courses"
# A command of the docs that outlives this is a mistake of the page, not a slow machine.
COMMAND_TIMEOUT_S = 600
MARKER = re.compile(r"<!--\s*docs:\s*(?P<marker>not run|exit)\s*:?\s*(?P<argument>.*?)\s*-->\s*\n\s*\Z")
SHELLS = ("bash", "sh", "shell")


def _environment() -> dict[str, str]:
    """The environment the shell blocks run in: this interpreter's scripts first on PATH
    (``grader`` as the reader installed it), and none of a course secret the machine may set."""
    environment = {key: value for key, value in os.environ.items() if key != "GRADER_SECRET"}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment["COLUMNS"] = "100"  # Click's help texts wrap alike on every terminal
    return environment


def _commands(source: str) -> list[tuple[str, list[str]]]:
    """A console block's ``$`` commands (continuations joined), each with the lines shown after it."""
    commands: list[tuple[str, list[str]]] = []
    continuing = False
    for line in source.splitlines():
        if continuing:
            command, shown = commands[-1]
            commands[-1] = (f"{command}\n{line}", shown)
            continuing = line.endswith("\\")
        elif line.startswith("$ "):
            commands.append((line[2:], []))
            continuing = line.endswith("\\")
        elif commands:
            commands[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"a console block starts with a command ($ ...), not {line!r}")
    return commands


def _matches(shown: list[str], printed: str) -> bool:
    """Whether ``printed`` is what the page shows, trailing spaces and blank lines ignored:
    ``...`` within a line stands for any text, and a line of ``...`` alone for any number
    of whole lines, none included (a warning that only some machines print)."""
    lines = "\n".join(line.rstrip() for line in shown).strip("\n").split("\n")
    actual = "\n".join(line.rstrip() for line in printed.splitlines()).strip("\n")
    pattern = ""
    for index, line in enumerate(lines):
        first, last = index == 0, index == len(lines) - 1
        if line.strip() == "...":
            pattern += ".*" if first and last else "(?:.*\n)?" if first else "(?:\n.*)?" if last else "(?:.*\n)?"
            continue
        if not first and lines[index - 1].strip() != "...":  # a line of ... before it ends in its own newline
            pattern += "\n"
        pattern += ".*?".join(re.escape(part) for part in line.split("..."))
    return re.fullmatch(pattern, actual, re.DOTALL) is not None


def _run(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], cwd=folder, env=_environment(), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=COMMAND_TIMEOUT_S,
    )


def _check_console(example: Example, last_status: int) -> None:
    commands = _commands(str(example.parsed))
    for number, (command, shown) in enumerate(commands, start=1):
        done = _run(command, example.namespace["folder"])
        wanted = last_status if number == len(commands) else 0
        if done.returncode != wanted:
            raise AssertionError(f"$ {command}\nexited {done.returncode}, not {wanted}:\n{done.stdout}")
        if any(line.strip() for line in shown) and not _matches(shown, done.stdout):
            raise AssertionError(
                f"$ {command}\nprinted:\n{textwrap.indent(done.stdout, '    ')}\nwhere the page shows:\n"
                + textwrap.indent("\n".join(shown), "    ")
            )


def _check_script(example: Example, last_status: int) -> None:
    done = _run("set -eu\n" + str(example.parsed), example.namespace["folder"])
    if done.returncode != last_status:
        raise AssertionError(f"the script exited {done.returncode}, not {last_status}:\n{done.stdout}")


def _check_python(example: Example) -> None:
    """Run a Python block; a warning it causes fails it, named here (raised later, by pytest's
    own warning checks, it would escape Sybil's report of where the failure is)."""
    namespace = example.namespace
    previous = Path.cwd()
    os.chdir(namespace["folder"])
    try:
        code = compile("\n" * example.line + str(example.parsed), example.path, "exec", dont_inherit=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(code, namespace)
            gc.collect()  # a file left open warns when it is collected
    finally:
        os.chdir(previous)
        namespace.pop("__builtins__", None)
    if caught:
        raise AssertionError("the block warns: " + "; ".join(f"{w.category.__name__}: {w.message}" for w in caught))


def _parse_only(language: str, source: str, path: str, line: int) -> None:
    """What a block that is not run still must be: valid in its language."""
    if language == "python":
        compile(source, f"{path}:{line}", "exec", dont_inherit=True)
    elif language == "console":
        for command, _ in _commands(source):
            _bash_syntax(command)
    elif language in SHELLS:
        _bash_syntax(source)
    else:
        _parse_data(language, source)


def _bash_syntax(script: str) -> None:
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"not valid bash: {done.stderr.strip()}\n{script}")


def _parse_data(language: str, source: str) -> None:
    if language == "ipython":
        from IPython.core.inputtransformer2 import TransformerManager

        compile(TransformerManager().transform_cell(source), "<cell>", "exec", dont_inherit=True)
    elif language == "toml":
        tomllib.loads(source)
    elif language == "json":
        json.loads(source)
    elif language == "yaml":
        yaml.safe_load(source)


CHECKED = ("console", *SHELLS, "python", "ipython", "toml", "json", "yaml")


def parse_blocks(document: Document) -> Iterator[Region]:
    """Every fenced block of a checked language, with the evaluator its marker asks for."""
    lexer = FencedCodeBlockLexer(language=r"[\w+-]*")
    for region in lexer(document):
        language = region.lexemes["language"]
        if language not in CHECKED:
            continue
        before = document.text[max(0, region.start - 300) : region.start]
        marked = MARKER.search(before)
        marker, argument = (marked["marker"], marked["argument"]) if marked else (None, "")
        source = region.lexemes["source"]
        if marker == "not run":
            if not argument:
                raise ValueError(f"{document.path}: a block marked 'not run' must say why")
            region.evaluator = lambda example, language=language: _parse_only(
                language, str(example.parsed), example.path, example.line
            )
        elif language == "console":
            status = int(argument) if marker == "exit" else 0
            region.evaluator = lambda example, status=status: _check_console(example, status)
        elif language in SHELLS:
            status = int(argument) if marker == "exit" else 0
            region.evaluator = lambda example, status=status: _check_script(example, status)
        elif language == "python":
            region.evaluator = _check_python
        else:
            region.evaluator = lambda example, language=language: _parse_data(language, str(example.parsed))
        region.parsed = source
        yield region


def _setup(namespace: dict[str, Any]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="grader-docs-"))
    shutil.copytree(DEMO, folder, dirs_exist_ok=True)
    shutil.copytree(COURSES, folder / "courses", ignore=shutil.ignore_patterns("__pycache__"))
    namespace["folder"] = folder


def _teardown(namespace: dict[str, Any]) -> None:
    shutil.rmtree(namespace["folder"], ignore_errors=True)


pytest_collect_file = Sybil(
    parsers=[parse_blocks], patterns=["*.md"], excludes=["_build/*", "demo/*"], setup=_setup, teardown=_teardown
).pytest()
