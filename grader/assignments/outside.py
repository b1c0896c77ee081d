"""Assignments from outside the grader: a folder in a course's repository, or an installed
package that declares one under the entry point group :data:`ENTRY_POINT_GROUP`.

A folder is imported as a package under a name made of a digest of its files
(``grader_course_<digest>``), never under its own folder's name: two courses' folders
called ``layer_norm`` never meet in ``sys.modules``, the same files load once per process,
and a Dask worker or a bundle that receives the files (:func:`folder_files`,
:func:`unpack`) imports them under the very same name. Its modules import each other
relatively (``from .reference import FUNCTIONS``) for the same reason.

Once loaded, an assignment is found by its name too, in this process, and by its name
with its files' digest (:attr:`Assignment.cache_name`), which rubrics and reports carry.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import site
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from grader.assignments import NAMES, Assignment
from grader.errors import UsageError
from grader.resources import PACKAGE, is_shipped

ENTRY_POINT_GROUP = "grader.assignments"
SKIPPED_PARTS = ("__pycache__", ".git", ".ipynb_checkpoints")
_BY_NAME: dict[str, Assignment] = {}
_BY_FOLDER: dict[tuple[Path, str], Assignment] = {}  # (folder, digest of its files)
_COURSE_FOLDERS: set[Path] = set()  # every course folder this process loaded or is loading
_NAMED: dict[Path, set[str]] = {}  # course folder -> the files its modules named with here()


def find(spec: str) -> Assignment:
    """The outside assignment ``spec`` names: one loaded already (by its name), an
    installed one (by its entry point's name), or the folder at that path."""
    if spec in _BY_NAME:
        return _BY_NAME[spec]
    installed = _installed()
    if spec in installed:
        return _load_installed(spec, installed[spec].value)
    folder = Path(spec)
    if folder.is_dir():
        return load_folder(folder)
    known = ", ".join((*NAMES, *sorted(installed)))
    if "/" in spec or spec.startswith("."):
        raise UsageError(f"--assignment {spec}: no such folder (an assignment's folder holds its __init__.py and checks/)")
    raise UsageError(f"no assignment is called {spec!r}: the grader knows {known}, and a course's own is given by its folder's path")


def installed(name: str) -> bool:
    """Whether an installed package declares an assignment called ``name``."""
    return name in _installed()


def _installed() -> dict[str, importlib.metadata.EntryPoint]:
    return _entry_points(tuple(sys.path))


@functools.lru_cache(maxsize=4)  # read once per search path: pages ask it of every report
def _entry_points(search_path: tuple[str, ...]) -> dict[str, importlib.metadata.EntryPoint]:
    return {entry.name: entry for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def loaded(name: str) -> bool:
    return name in _BY_NAME


def load_folder(folder: Path) -> Assignment:
    """The assignment the folder ``folder`` declares (its ``__init__.py``'s ``ASSIGNMENT``),
    as its files are now: a folder edited while a kernel lives is loaded anew."""
    folder = folder.resolve()
    if not (folder / "__init__.py").is_file():
        raise UsageError(f"--assignment {folder}: the folder has no __init__.py defining ASSIGNMENT")
    digest = files_digest(folder_files(folder))
    _COURSE_FOLDERS.add(folder)
    if (folder, digest) not in _BY_FOLDER:
        package = f"grader_course_{digest}"
        with _reading_only(folder, folder):
            module = sys.modules.get(package) or _import_package(package, folder)
            described = _described(module, folder, str(folder), digest)
        _BY_FOLDER[folder, digest] = described
    return _registered(_BY_FOLDER[folder, digest])


def _load_installed(name: str, module_name: str) -> Assignment:
    try:
        found = importlib.util.find_spec(module_name.partition(":")[0])
        folder = Path(found.origin).resolve().parent if found is not None and found.origin else None
        if folder is not None:
            _COURSE_FOLDERS.add(folder)  # before its modules name their files
        with _reading_only(folder, name) if folder is not None else contextlib.nullcontext():
            module = importlib.import_module(module_name.partition(":")[0])
    except UsageError:
        raise
    except Exception as error:
        raise UsageError(f"the installed assignment {name} ({module_name}) failed to import: {_said(error)}") from None
    folder = Path(module.__file__).resolve().parent
    with _reading_only(folder, name):
        loaded = _registered(_described(module, folder, name, files_digest(folder_files(folder))))
    _BY_NAME.setdefault(name, loaded)  # its entry point's name finds it again without importing it anew
    return loaded


def _import_package(package: str, folder: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py", submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    try:
        spec.loader.exec_module(module)
    except UsageError:  # already one sentence (a file outside the folder, say)
        del sys.modules[package]
        raise
    except Exception as error:
        del sys.modules[package]
        raise UsageError(f"--assignment {folder}: its __init__.py failed: {_said(error)}") from None
    return module


def _said(error: BaseException) -> str:
    """An exception in one line, with the author's file and line it was raised at."""
    grader = str(Path(__file__).resolve().parents[1])
    frames = [
        frame for frame in _frames(error.__traceback__)
        if not frame.f_code.co_filename.startswith((grader, "<"))  # the grader's own, and importlib's
    ]
    where = f" ({Path(frames[-1].f_code.co_filename).name}, line {frames[-1].f_lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"


def _frames(traceback):  # noqa: ANN001, ANN202 (a traceback's frames, innermost last)
    while traceback is not None:
        yield traceback.tb_frame
        traceback = traceback.tb_next


def _described(module: ModuleType, folder: Path, spec: str, digest: str) -> Assignment:
    declared = getattr(module, "ASSIGNMENT", None)
    if not isinstance(declared, Assignment):
        raise UsageError(f"--assignment {spec}: its __init__.py must define ASSIGNMENT, an Assignment (grader.authoring)")
    if declared.name in NAMES:
        raise UsageError(
            f"--assignment {spec}: it is called {declared.name!r}, as a shipped assignment is; "
            "a course's own (an extension too) needs a name of its own"
        )
    for what, relative in (("reference", declared.reference), ("rubric", declared.rubric), *(
        (f"template[{handout!r}]", source) for handout, source in declared.template.items()
    ), *((("variants", declared.variants),) if declared.variants else ())):
        if not is_shipped(folder / relative):  # an extension's base files are the grader's
            refuse_outside(folder, folder / relative, f"its {what} {relative!r}", spec)
    own_checks = (f"{module.__name__}.checks",) if (folder / "checks").is_dir() else ()
    loaded = dataclasses.replace(
        declared, folder=folder, check_packages=declared.check_packages + own_checks, spec=spec, digest=digest,
        package=module.__name__,
    )
    if not loaded.check_packages:
        raise UsageError(f"--assignment {spec}: it has no checks/ folder, and extends no assignment")
    _refuse_clashing_modules(loaded)
    _refuse_broken_modules(loaded)
    return loaded


def _registered(assignment: Assignment) -> Assignment:
    # Its name finds the one loaded last (a folder changed while a Dask worker or a kernel
    # lives, say); rubrics and reports name it with its digest, which never changes meaning.
    _BY_NAME[assignment.name] = _BY_NAME.setdefault(assignment.cache_name, assignment)
    return assignment


def _refuse_clashing_modules(assignment: Assignment) -> None:
    """Check ids are ``<module>.<name>``: an extension's check module may not share a name
    with one of the assignment it extends."""
    seen: dict[str, Path] = {}
    for folder in assignment.checks_folders:
        for module in folder.glob("*.py"):
            if module.stem in seen and module.stem != "__init__":
                raise UsageError(
                    f"--assignment {assignment.spec}: checks/{module.name} has the name of a check module of the "
                    f"assignment it extends ({seen[module.stem]}): its ids would clash, so name it otherwise"
                )
            seen[module.stem] = module


def _refuse_broken_modules(assignment: Assignment) -> None:
    """Its check modules and its known mistakes, loaded now: an author's slip (an absolute
    import of the folder's own modules, a name left undefined) is told here, with its file
    and line, instead of failing every student's check run or silencing every diagnosis."""
    for package, folder in zip(assignment.check_packages, assignment.checks_folders):
        for module in sorted(folder.glob("*.py")):
            try:
                importlib.import_module(f"{package}.{module.stem}")
            except UsageError:
                raise
            except Exception as error:
                hint = (
                    "; an assignment's modules import each other relatively (from ..calls import FUNCTIONS)"
                    if isinstance(error, ImportError) else ""
                )
                raise UsageError(f"--assignment {assignment.spec}: checks/{module.name} failed: {_said(error)}{hint}") from None
    try:
        assignment.mistakes()
    except Exception as error:
        raise UsageError(f"--assignment {assignment.spec}: its known mistakes failed: {_said(error)}") from None


# What a course's modules may read while it loads, besides its own folder: Python's own files
# and installed packages, the grader's, and the kernel's (numpy reads /proc, /sys).
_LOADING: dict[int, tuple[Path, tuple[str, ...], list[str]]] = {}  # thread -> folder, may read, read outside
_HOOKED: list[bool] = []


# Ways to read what lies outside a course's folder that are no open() of a file: a program
# (cat). (Code loaded with ctypes opens files unseen; numpy loads libraries so, legitimately.)
_RUNS_A_PROGRAM = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.startfile"})


def _audit(event: str, args: tuple) -> None:
    """Note what a course's module does while it loads that reads outside its folder (see
    :func:`_reading_only`): each file it opens (or database it connects to) outside what it
    may read, and each program it runs."""
    if not _LOADING or (event not in ("open", "sqlite3.connect") and event not in _RUNS_A_PROGRAM):
        return
    watched = _LOADING.get(threading.get_ident())
    if watched is None:
        return
    folder, readable, found = watched
    if event in _RUNS_A_PROGRAM:
        found.append(f"ran a program ({str(args[0])[:80]})")
        return
    if isinstance(args[0], int) or args[0] in (":memory:", b":memory:", ""):
        return
    try:
        real = os.path.realpath(os.fsdecode(args[0]).removeprefix("file:").split("?", 1)[0])
    except (TypeError, ValueError):
        return
    if not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in (str(folder), *readable)):
        if not is_shipped(Path(real)):
            found.append(f"read {real}, which lies outside the assignment's folder")


@contextlib.contextmanager
def _reading_only(folder: Path, spec: str | Path) -> Iterator[None]:
    """Refuse, in one sentence, a course whose modules read what lies outside its folder while
    it loads (an open() of ``../x``, a module imported from a folder put on sys.path, a
    program it runs): what it reads must be in its folder, which its digest, caches and
    bundles cover."""
    if not _HOOKED:
        sys.addaudithook(_audit)  # once per process; it does nothing while no course loads
        _HOOKED.append(True)
    cwd = os.getcwd()
    readable = {
        sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages(),
        site.getusersitepackages(), str(PACKAGE), "/dev", "/proc", "/sys",
        *(os.path.realpath(entry) for entry in sys.path if entry and os.path.realpath(entry) != cwd),
    }
    found: list[str] = []
    modules, path = set(sys.modules), list(sys.path)
    _LOADING[threading.get_ident()] = (folder.resolve(), tuple(os.path.realpath(root) for root in readable), found)
    try:
        yield
    finally:
        del _LOADING[threading.get_ident()]
    if found:
        for name in set(sys.modules) - modules:  # nothing it imported stays, to be found without a read next time
            del sys.modules[name]
        sys.path[:] = path
        named = next((what for what in found if "__pycache__" not in what), found[0])  # a source, not its cache
        raise UsageError(
            f"--assignment {spec}: loading it {named}; an assignment reads only files in its own folder: copy what "
            "it needs into the folder, and read it there"
        )


def course_folder_of(path: Path) -> Path | None:
    """The course folder (loaded or loading in this process) that holds ``path``, if any."""
    path = path.resolve()
    return next((folder for folder in _COURSE_FOLDERS if folder == path or folder in path.parents), None)


def named_with_here(folder: Path, path: Path) -> None:
    """Note that a module of the course folder ``folder`` named ``path`` (inside it) with
    ``here()``: a file it reads, which a bundle carries."""
    _NAMED.setdefault(folder.resolve(), set()).add(path.resolve().relative_to(folder.resolve()).as_posix())


def declared_files(assignment: Assignment) -> dict[str, bytes]:
    """The files of a course's folder that a bundle carries: its modules (any .py file it
    may import), the files its Assignment declares (reference, rubric, template sources)
    and those its modules named with ``here()``; never what else lies there (reports, a
    class's submissions, notes). Links that leave the folder are refused."""
    folder = assignment.folder.resolve()
    declared = {assignment.reference, assignment.rubric, *assignment.template.values()}
    wanted = {Path(relative).as_posix() for relative in declared} | _NAMED.get(folder, set())
    files = folder_files(folder)
    carried = {relative: content for relative, content in files.items() if relative in wanted or _a_module(relative, files)}
    for relative, content in carried.items():
        if not relative.endswith(".py") and _a_grader_output(content):  # whatever its name
            raise UsageError(
                f"--assignment {assignment.spec}: {relative} in its folder is a report the grader wrote, which a bundle "
                "never carries (it may be published): move it out of the folder"
            )
    return carried


def _a_grader_output(content: bytes) -> bool:
    """Whether a file is a report or a batch's summary (JSON that says its grader's version)."""
    if not content.lstrip().startswith(b"{"):
        return False
    try:
        data = json.loads(content)
    except ValueError:
        return False
    return isinstance(data, dict) and "schema_version" in data and "grader_version" in data


def _a_module(relative: str, files: dict[str, bytes]) -> bool:
    """Whether ``relative`` is a module the course's package may import: a .py file at its
    top, in checks/, or in a subpackage (a folder with an __init__.py, all the way up)."""
    parts = relative.split("/")
    if not relative.endswith(".py"):
        return False
    if len(parts) == 1 or parts[:-1] == ["checks"]:
        return True
    return all("/".join(parts[:depth] + ["__init__.py"]) in files for depth in range(1, len(parts)))


def refuse_outside(folder: Path, path: Path, what: str, spec: str | Path) -> None:
    """A :class:`UsageError` unless ``path`` (a link followed) lies inside ``folder``: an
    assignment is its folder, so its digest, its caches and its bundles hold all it reads."""
    real, home = path.resolve(), folder.resolve()
    if real != home and home not in real.parents:
        raise UsageError(
            f"--assignment {spec}: {what} lies outside the assignment's folder ({real}); an assignment reads "
            "only files in its own folder: copy the file into it"
        )


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file of an assignment's folder, by its path relative to the folder (what a Dask
    worker or a bundle receives); caches and hidden folders are left out. A link that
    leaves the folder is refused."""
    files = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part in SKIPPED_PARTS or part.startswith(".") for part in relative.parts):
            continue
        if path.is_symlink():
            refuse_outside(folder, path, f"the link {relative.as_posix()}", folder)
        if path.is_file():
            files[relative.as_posix()] = path.read_bytes()
    return files


def files_digest(files: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for relative, content in sorted(files.items()):
        digest.update(relative.encode() + b"\0" + hashlib.sha256(content).digest())
    return digest.hexdigest()[:16]


@contextlib.contextmanager
def read_once(assignment: Assignment) -> Iterator[Assignment]:
    """``assignment`` as its folder is now, read once into a snapshot that lasts as long as
    the context: a batch grades every submission with it, so an edit of the folder while the
    batch runs changes none of its grades (nor the digest its reports are labelled with).
    A shipped or installed assignment, which no one edits while it is used, is itself."""
    if assignment.folder is None or assignment.spec in _installed():
        yield assignment
        return
    with tempfile.TemporaryDirectory(prefix="grader-course-") as root:
        yield load_folder(unpack(folder_files(assignment.folder), Path(root), assignment.folder.name))


def unpack(files: dict[str, bytes], root: Path, name: str) -> Path:
    """``files`` written to a folder of their own under ``root`` (once: its name is their
    digest), and that folder's path, to load with :func:`load_folder`."""
    folder = root / files_digest(files) / name
    if not folder.is_dir():
        staging = folder.with_name(f".{name}-{id(files)}")
        for relative, content in files.items():
            target = staging / relative
            if ".." in Path(relative).parts or Path(relative).is_absolute():
                raise UsageError(f"an assignment's file may not point out of its folder: {relative}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        try:
            staging.rename(folder)
        except OSError:  # another process unpacked the same files first
            pass
    return folder


@dataclass(frozen=True)
class Carried:
    """An assignment as another machine receives it (a Dask worker): a shipped or installed
    one by name, which that machine has too; a folder by its files."""

    spec: str
    folder_name: str = ""
    files: dict[str, bytes] = field(default_factory=dict)


def carried(assignment: Assignment) -> Carried:
    if assignment.folder is None:
        return Carried(assignment.spec)
    return Carried(assignment.spec, assignment.folder.name, folder_files(assignment.folder))


def received(assignment: Carried, root: Path) -> Assignment:
    """The assignment ``assignment`` carries, its files (if any) unpacked under ``root``."""
    if not assignment.files:
        from grader.assignments import get

        return get(assignment.spec)
    return load_folder(unpack(assignment.files, root, assignment.folder_name))
