"""The sandboxed side: import one submission and answer calls to its functions.

Run as a script, never imported by the grader::

    python -I worker.py SUBMISSION LIMITS_JSON FUNCTIONS_JSON MODULE

or forked by :mod:`zygote` (bubblewrap), which then calls :func:`serve`. It is copied, with ``wire.py``, into the worker's own temporary folder, so it
imports nothing from the grader package. Requests arrive on stdin and replies leave on stdout
as :mod:`wire` frames; before the submission runs, both are moved to private file
descriptors and fds 0/1 are pointed at /dev/null and stderr, so whatever the submission
prints cannot corrupt a frame.

Everything here runs in the same process as student code, which may patch any module,
including this one. That is fine: the trusted side treats every reply as untrusted data.
"""

import importlib.util
import json
import os
import resource
import sys
import traceback

import numpy as np

import wire  # the copy beside this script in the sandbox folder, not grader.sandbox.wire

MAX_MESSAGE = 500


def _claim_protocol_fds() -> tuple[int, int]:
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    return requests, replies


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the grader that started it dies."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the grader's deadlines still stop the worker


def _apply_limits(limits: dict) -> None:
    for name, value in limits.items():
        which = getattr(resource, name)
        _, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, value))


def _describe(error: BaseException, path: str) -> dict:
    """Type, message and the line of the submission where ``error`` was raised."""
    line = getattr(error, "lineno", None) if isinstance(error, SyntaxError) else None
    function = None  # the qualified name of the submission's function that raised it
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        if frame.f_code.co_filename == path:
            line = lineno
            if frame.f_code.co_flags & 0x1:  # a function's code (CO_OPTIMIZED): a class body is its function's
                function = frame.f_code.co_qualname
    message = str(error)
    if isinstance(error, SyntaxError):
        message = error.msg or message
    return {
        "type": type(error).__name__,
        # The built-in classes it is an instance of: a check's "raises ValueError" holds for a
        # subclass of the student's own, and not for a class of theirs merely named ValueError.
        "kinds": [kind.__name__ for kind in type(error).__mro__ if kind.__module__ == "builtins" and kind is not object],
        "message": message[:MAX_MESSAGE],
        "line": line if isinstance(line, int) else None,
        "function": function if isinstance(function, str) else None,
    }


def _import_submission(path: str, name: str):
    """Import the submission as the module ``name``, the handout's (``import <name>`` in
    the student's own code finds it, as it would beside their file)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _answer(module, request: dict, arrays: list, path: str, functions: tuple) -> bytes:
    name = request.get("function")
    function = getattr(module, name, None) if name in functions else None
    if not callable(function):
        return wire.encode({"status": "missing", "function": name}, [])
    args = [_owned(wire.unpack(arg, arrays)) for arg in request.get("args", [])]
    kwargs = {key: _owned(wire.unpack(value, arrays)) for key, value in request.get("kwargs", {}).items()}
    try:
        result = function(*args, **kwargs)
    except BaseException as error:  # SystemExit and KeyboardInterrupt are answers too
        return wire.encode({"status": "raised", **_describe(error, path)}, [])
    return wire.answer_frame(result, args if request.get("return_args") else None)


def _owned(value):
    """``value`` as a head's own test data would be: each array a fresh one that owns its
    memory, not a view into the frame it came in (whose flags, base and neighbours would
    tell a head the grader's inputs from anyone else's)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_owned(item) for item in value)
    return value


def _seed_numpy() -> None:
    """Seed numpy's global generator, so a head that draws from np.random gets the same
    answers, and so the same report, at every run (a fresh worker starts the sequence anew)."""
    np.random.seed(0)


def serve(requests: int, replies: int, path: str, load, functions: tuple) -> None:
    """Import the submission with ``load()`` and answer calls to ``functions`` (the names
    the assignment grades) until the requests pipe closes."""
    _seed_numpy()
    try:
        module = load()
    except BaseException as error:
        wire.write_all(replies, wire.encode({"status": "import_failed", **_describe(error, path)}, []))
        return
    present = [name for name in functions if callable(getattr(module, name, None))]
    # A function's name bound to something else (a number, say): its type, for the feedback.
    bound = {name: type(getattr(module, name)).__name__ for name in functions if name not in present and hasattr(module, name)}
    wire.write_all(replies, wire.encode({"status": "ready", "functions": present, "bound": bound}, []))
    reader = wire.FrameReader(requests)
    while True:
        try:
            request, arrays = reader.read_frame()
        except wire.PipeClosed:
            return
        # A batch is answered call by call, each reply as soon as it is ready.
        for call in request.get("calls", []) if request.get("op") == "batch" else [request]:
            wire.write_all(replies, _answer(module, call, arrays, path, functions))


def main() -> None:
    requests, replies = _claim_protocol_fds()
    _die_with_parent()
    path, limits, functions = os.path.abspath(sys.argv[1]), json.loads(sys.argv[2]), tuple(json.loads(sys.argv[3]))
    module = sys.argv[4]
    _apply_limits(limits)
    serve(requests, replies, path, lambda: _import_submission(path, module), functions)


if __name__ == "__main__":
    main()
