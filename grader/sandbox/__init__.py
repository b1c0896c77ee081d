"""The security boundary: everything that starts a sandbox or runs in one.

- this module: where submissions run (the isolation, its limits, the environment, the
  bubblewrap command);
- :mod:`.workers`: starts workers, and talks to a sandbox's zygote;
- :mod:`.zygote` and :mod:`.worker`: run inside the sandbox, as scripts copied there
  with :mod:`.wire` (the frames both sides speak), importing nothing of the grader;
- :mod:`.bounds`: kernel bounds on a whole sandbox (cgroups, and which bounds hold).

Every worker (started by :mod:`grader.sandbox.workers`) gets an environment built from scratch
(nothing of the grader's is inherited, so no token can be printed), its own session so
it can be killed as a whole, and rlimits it applies to itself before the submission is
imported.

Two isolations:

- ``bubblewrap`` (the grade of record): workers run under ``bwrap`` with every
  namespace unshared (no network, their own PIDs), no capabilities, uid/gid 65534, a
  read-only view of only the system libraries, the Python standard library and numpy,
  their folder mounted read-only, and nothing writable but a private, size-capped
  ``/tmp`` and ``/dev/shm`` (the root and every other mount are read-only). The grader, the reference head
  and other submissions are not in their view. A grader run by root starts ``bwrap``
  itself as uid/gid 65534 wherever that user can read this Python and numpy, so the
  sandbox is not root outside its user namespace either, and RLIMIT_NPROC (counted per
  user namespace, and never enforced on root) bounds its processes. Each process keeps one such sandbox
  running :mod:`grader.sandbox.zygote`, which has imported numpy and forks a worker per
  submission from it, after killing whatever the previous one left running (see
  there for what keeps submissions apart).
- ``process`` (a self-check): a plain subprocess with the limits above, for machines
  without bubblewrap (a student's laptop, macOS). Run by root (a Gradescope container),
  it drops to uid/gid 65534, so the submission cannot write the grader's files or its
  results, wherever that user can run this Python at all.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from grader.checking import secret
from grader.errors import UsageError

MIB = 1024 * 1024
ISOLATIONS = ("bubblewrap", "process")
NOBODY = "65534"
NOBODY_ID = int(NOBODY)
UNPRIVILEGED: dict[str, Any] = {"user": NOBODY_ID, "group": NOBODY_ID, "extra_groups": []}
# Paths inside the bubblewrap sandbox.
SANDBOX_FOLDER = "/submission"
SANDBOX_SITE = "/opt/grader-site"
SCRATCH_BYTES = 16 * 1024 * 1024  # each of the sandbox's /tmp and /dev/shm


@dataclass(frozen=True)
class Limits:
    """Time and resource budgets for one submission; every default is documented here.

    call_timeout: seconds one call may take before it fails as a timeout.
    import_timeout: seconds the worker may take to start and import the submission.
    check_budget: seconds all calls of one check may take together, so shrinking a
        counterexample against a slow head stays bounded.
    submission_budget: seconds the whole check run of one submission may take; a
        backstop, since the budgets above already bound every check.
    memory_mb: address-space cap of the worker (RLIMIT_AS); the sandbox as a whole gets
        this plus room for the zygote where a memory cgroup can hold it (grader.sandbox.bounds).
    max_processes: processes and threads the sandbox may hold at once (a cgroup's
        ``pids.max``, and RLIMIT_NPROC where the sandbox is an unprivileged user's).
    cpu_seconds: CPU-time cap of one worker (RLIMIT_CPU); wall-clock deadlines above
        catch a worker that sleeps instead.
    isolation: ``bubblewrap`` or ``process`` (see the module docstring).
    course_key: the key a course secret gives the checks' examples (grader.checking.secret), None
        for the public ones: not a limit, but it travels wherever the limits go (the
        check process, a cluster's workers) and, like the isolation, it is part of what
        a report was graded under.
    """

    call_timeout: float = 5.0
    import_timeout: float = 20.0
    check_budget: float = 60.0
    submission_budget: float = 900.0
    memory_mb: int = 1024
    max_processes: int = 32
    cpu_seconds: int = 300
    file_size_mb: int = 16
    open_files: int = 64
    isolation: str = "process"
    course_key: str | None = field(default=None, repr=False)

    def budgets(self) -> dict[str, float]:
        """The time and resource budgets a report was graded under (its ``limits``): a slow
        head's grade depends on them, so a report of other budgets is not kept on resume."""
        return {
            "call_timeout_s": self.call_timeout, "import_timeout_s": self.import_timeout,
            "check_budget_s": self.check_budget, "submission_budget_s": self.submission_budget,
            "memory_mb": self.memory_mb, "max_processes": self.max_processes, "cpu_seconds": self.cpu_seconds,
            "file_size_mb": self.file_size_mb, "open_files": self.open_files,
        }

    @property
    def examples(self) -> str:
        """What the checks' examples are drawn from, as a report says it (grader.checking.secret)."""
        return secret.label(self.course_key)

    def rlimits(self) -> dict[str, int]:
        """The rlimits a worker sets on itself before the submission runs."""
        limits = {
            "RLIMIT_AS": self.memory_mb * MIB,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_size_mb * MIB,
            "RLIMIT_NOFILE": self.open_files,
            # No POSIX message queue: one lives in the sandbox's IPC namespace, which every
            # worker of a job shares, and nothing would remove it between them.
            "RLIMIT_MSGQUEUE": 0,
        }
        if self.isolation == "bubblewrap":
            # Counted in the sandbox's own user namespace, so it bounds the sandbox alone
            # (the kernel ignores it where the sandbox is root outside). A plain worker's
            # count would take in every process of its user, the grader's included.
            limits["RLIMIT_NPROC"] = self.max_processes
        return limits


def worker_environment(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        # One BLAS thread: graded heads are tiny, and threads would cost memory and time.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def bubblewrap_command(
    folder: Path, environment: dict[str, str], python_args: list[str], *, as_pid_1: bool = False
) -> list[str]:
    """``bwrap`` arguments that show the worker only what Python and numpy need.

    ``as_pid_1`` runs the command as the init of the sandbox's PID namespace (the zygote):
    no other process in the sandbox can then stop, kill or ptrace it.
    """
    # Located, not imported: the CLI process never needs numpy itself.
    numpy_folder = Path(importlib.util.find_spec("numpy").origin).resolve().parent
    command = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    command += ["--unshare-user", "--uid", NOBODY, "--gid", NOBODY, "--clearenv"]
    if "--disable-userns" in _bubblewrap_options():
        command += ["--disable-userns"]  # no nested user namespaces (bubblewrap 0.8 and later)
    if as_pid_1:
        command += ["--as-pid-1"]
    command += list(_interpreter_view())
    command += ["--ro-bind", str(numpy_folder), f"{SANDBOX_SITE}/numpy"]
    libraries = numpy_folder.parent / "numpy.libs"  # OpenBLAS, in wheels built for Linux
    if libraries.is_dir():
        command += ["--ro-bind", str(libraries), f"{SANDBOX_SITE}/numpy.libs"]
    command += ["--ro-bind", str(folder), SANDBOX_FOLDER, "--chdir", SANDBOX_FOLDER]
    # Writable space is small where bubblewrap can say so (0.5 and later): what a worker
    # leaves there is not counted in its RLIMIT_AS.
    size = ["--size", str(SCRATCH_BYTES)] if "--size" in _bubblewrap_options() else []
    command += ["--proc", "/proc", "--dev", "/dev", *size, "--tmpfs", "/dev/shm", *size, "--tmpfs", "/tmp"]
    # Nothing else may be written: a file left in the root tmpfs, /opt or /dev would outlive
    # its worker and meet every later one of the job (a module on the sandbox's path, or
    # memory its cgroup keeps counting). Remounts are not recursive, so they come after
    # every mount beneath them, and /tmp and /dev/shm stay writable.
    command += ["--remount-ro", "/dev", "--remount-ro", "/"]
    for name, value in {**environment, "HOME": "/tmp", "PYTHONPATH": SANDBOX_SITE}.items():
        command += ["--setenv", name, value]
    return command + ["--", os.path.realpath(sys.executable), "-S", *python_args]


# A package folder is never shown, whatever folder holds it.
PACKAGE_FOLDERS = ("site-packages", "dist-packages")


@cache
def _interpreter_view() -> tuple[str, ...]:
    """``bwrap`` arguments that show this Python (its binary, its libpython, its standard
    library less any package folder in it) and the shared libraries the dynamic loader finds,
    and nothing else of the machine: not ``/usr`` whole, whose ``bin`` holds every program
    and whose ``lib`` holds the system's Python packages (``python3/dist-packages``,
    ``/usr/local/lib/python3.X/dist-packages``, where a system pip installs a course)."""
    view: list[str] = []
    # The top-level links of a merged /usr (/lib -> usr/lib), which the loader's paths go through.
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            view += ["--symlink", os.readlink(top), top]
    for folder in _library_folders():
        view += ["--ro-bind", folder, folder]
        view += [arg for path in _not_libraries(folder) for arg in _hidden(path)]
    if os.path.isdir("/etc/alternatives"):  # a system numpy's BLAS is found through these links
        view += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    interpreter = os.path.realpath(sys.executable)
    view += ["--ro-bind", interpreter, interpreter]
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix, "installed_base": sys.base_prefix}
    stdlib = os.path.realpath(sysconfig.get_path("stdlib", vars=base))
    view += ["--ro-bind", stdlib, stdlib]
    dynload = sysconfig.get_config_var("DESTSHARED")
    if dynload and os.path.isdir(dynload) and not os.path.realpath(dynload).startswith(stdlib + os.sep):
        view += ["--ro-bind", os.path.realpath(dynload), dynload]
    # The packages an installed Python carries (ensurepip's wheels of pip and setuptools) too.
    hidden = {os.path.join(stdlib, name) for name in (*PACKAGE_FOLDERS, os.path.join("ensurepip", "_bundled"))}
    hidden.add(os.path.realpath(sysconfig.get_path("purelib", vars=base)))  # the grader may be installed here
    view += [arg for folder in sorted(hidden) if os.path.isdir(folder) and folder.startswith(stdlib + os.sep)
             for arg in _hidden(folder)]
    # The shared libraries beside this Python's own (its libpython; in a conda environment,
    # the BLAS its numpy links to), file by file: the folder holds its packages too.
    libraries = sysconfig.get_config_var("LIBDIR") or ""
    if os.path.isdir(libraries) and os.path.realpath(libraries) not in _library_folders():
        for name in sorted(os.listdir(libraries)):
            path = os.path.join(libraries, name)
            if ".so" in name and os.path.isfile(path):
                view += ["--ro-bind", os.path.realpath(path), path]
    return tuple(view)


def _hidden(path: str) -> list[str]:
    """An empty, read-only folder in place of the folder ``path`` (the final remount of / is
    not recursive), or an empty file in place of the file ``path``."""
    if not os.path.isdir(path):
        return ["--ro-bind", os.devnull, path]
    return ["--tmpfs", path, "--remount-ro", path]


def _not_libraries(folder: str) -> list[str]:
    """What a library folder holds besides shared libraries, hidden from a submission: its
    subfolders (programs such as gio-querymodules, other languages' modules such as Perl's,
    and, where libraries and interpreters share a folder, Pythons' packages), except those
    /etc/alternatives leads into (a system numpy's BLAS), and its programs."""
    wanted = set()
    if os.path.isdir("/etc/alternatives"):
        for name in os.listdir("/etc/alternatives"):
            target = os.path.realpath(os.path.join("/etc/alternatives", name))
            if target.startswith(folder + os.sep):
                wanted.add(target[len(folder) + 1:].split(os.sep, 1)[0])
    hidden = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.islink(path) or name in wanted:
            continue
        if os.path.isdir(path) or (".so" not in name and os.path.isfile(path) and os.access(path, os.X_OK)):
            hidden.append(path)
    return hidden


def _library_folders() -> list[str]:
    """The folders the dynamic loader reads this Python's and numpy's shared libraries
    from: the multiarch ones (``/usr/lib/x86_64-linux-gnu``) and the loader's own, where the
    system has them; else ``/lib`` and ``/usr/lib`` (their Python folders hidden)."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    candidates = [f"/lib/{multiarch}", f"/usr/lib/{multiarch}"] if multiarch else ["/lib", "/usr/lib"]
    candidates += ["/lib64", "/usr/lib64", "/lib32", "/usr/lib32"]
    found: list[str] = []
    for folder in candidates:
        real = os.path.realpath(folder)
        if os.path.isdir(real) and real not in found and not any(real.startswith(kept + os.sep) for kept in found):
            found.append(real)
    return found


@cache
def _bubblewrap_options() -> str:
    """The options this machine's ``bwrap`` knows (its --help text)."""
    try:
        return subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


@cache
def bubblewrap_works() -> bool:
    """Whether a worker can start under bubblewrap on this machine (tried once)."""
    return (os.geteuid() == 0 and _bubblewrap_starts(as_nobody=True)) or _bubblewrap_starts(as_nobody=False)


@cache
def _bubblewrap_starts(*, as_nobody: bool) -> bool:
    if shutil.which("bwrap") is None:
        return False
    folder = Path(tempfile.mkdtemp(prefix="grader-probe-"))
    folder.chmod(0o755)
    try:
        probe = bubblewrap_command(folder, {}, ["-c", "import numpy"])
        run = subprocess.run(probe, capture_output=True, timeout=30, preexec_fn=drop_to_nobody if as_nobody else None)
        return run.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@cache
def unprivileged_python_works() -> bool:
    """Whether uid/gid 65534 can start this Python and import numpy (tried once). Not
    where the interpreter lives in root's home, as with pyenv under /root."""
    try:
        probe = subprocess.run(
            [sys.executable, "-s", "-c", "import numpy"],
            cwd="/",
            env=worker_environment("/"),
            capture_output=True,
            timeout=30,
            **UNPRIVILEGED,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def starts_as_nobody(isolation: str) -> bool:
    """Whether this process starts a sandbox of ``isolation`` as uid/gid 65534: only root
    does, wherever that user can run this Python (and, for bubblewrap, start ``bwrap``)."""
    if os.geteuid() != 0:
        return False
    return _bubblewrap_starts(as_nobody=True) if isolation == "bubblewrap" else unprivileged_python_works()


def sandbox_uid(isolation: str) -> int:
    """The real uid a sandbox's processes have outside every user namespace: 65534 where
    the grader drops to it, else the grader's own (0: the sandbox is root outside)."""
    return NOBODY_ID if starts_as_nobody(isolation) else os.geteuid()


def drop_to_nobody() -> None:
    """Become uid/gid 65534 with no supplementary groups: for Popen's ``preexec_fn``, after
    whatever needs root there (joining a cgroup)."""
    os.setgroups([])
    os.setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID)
    os.setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID)


def resolve_isolation(
    choice: str, *, self_check: bool = False, warn: Callable[[str], object] | None = None
) -> str:
    """``auto`` becomes bubblewrap where it works, else process; bubblewrap must work.

    As root, ``auto`` falls back only for a ``self_check`` (a student grading their own
    file, as on a fresh container: the report says ``self_check``), and says so through
    ``warn`` in one line. For a grade of record it never does: a plain worker would run
    student code as root, so that takes an explicit ``--sandbox process``.
    """
    if choice == "auto":
        if bubblewrap_works():
            return "bubblewrap"
        if os.geteuid() == 0:
            if not self_check:
                raise UsageError(
                    "grading as root needs bubblewrap (Debian package 'bubblewrap'); to run submissions "
                    "as root in a plain process anyway, pass --sandbox process"
                )
            if warn is not None:
                warn(
                    "bubblewrap is missing or cannot start here, so the submission runs in a plain process: "
                    "a self-check, not a grade of record (for the real sandbox, install the Debian package "
                    "'bubblewrap')"
                )
        return "process"
    if choice == "bubblewrap" and not bubblewrap_works():
        raise UsageError("bubblewrap cannot start a worker here: install the 'bubblewrap' package, or use --sandbox process")
    return choice


def kill_session(process: subprocess.Popen) -> None:
    """SIGKILL the session ``process`` leads (started with start_new_session), close its
    pipes and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pipe in (process.stdin, process.stdout):
        if pipe is None:
            continue
        try:
            pipe.close()
        except OSError:
            pass
    process.wait()
