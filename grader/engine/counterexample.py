"""A failed check's counterexample: the calls of the failing example, and a repro snippet.

Pure functions of what the trusted side recorded; arrays become JSON lists (non-finite
numbers as the strings "nan", "inf" and "-inf", since JSON has no such numbers).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.diagnoses.located import literal
from grader.engine.proxy import Call

MAX_ELEMENTS = 2000


def jsonable(value: Any) -> Any:
    """``value`` with arrays as nested lists and non-finite floats as strings."""
    if isinstance(value, np.ndarray):
        if value.size > MAX_ELEMENTS:
            return {"shape": list(value.shape), "dtype": str(value.dtype), "note": "too large to show"}
        return jsonable(value.tolist())
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, (np.generic,)):
        return jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


NOTEBOOK_HINT = "# Paste into a new cell at the end of your notebook, after running the cells above it."


def repro(calls: list[Call], *, module: str, notebook: bool = False) -> str:
    """Python lines that rebuild the inputs and repeat the calls, to paste into a REPL
    beside the student's ``module`` (or, for a notebook, into a new cell of it, where the
    functions are defined already)."""
    functions = sorted({call.function for call in calls})
    if notebook:
        lines = [NOTEBOOK_HINT, "import numpy as np", ""]
    else:
        lines = ["import numpy as np", f"from {module} import {', '.join(functions)}", ""]
    for number, call in enumerate(calls, start=1):
        suffix = "" if len(calls) == 1 else f"_{number}"
        names = []
        for name, value in call.arguments.items():
            if isinstance(value, np.ndarray):
                lines.append(f"{name}{suffix} = {literal(value)}")
                shown = f"{name}{suffix}"
            else:
                shown = repr(value)
            names.append(f"{name}={shown}" if name in call.keywords else shown)
        called = f"{call.function}({', '.join(names)})"
        if not call.reads_arguments:
            lines.append(f"print({called})")
            continue
        # A check of what the call changes in place: show each array argument before and after.
        arrays = [f"{name}{suffix}" for name, value in call.arguments.items() if isinstance(value, np.ndarray)]
        lines += [f"{name}_before = {name}.copy()" for name in arrays]
        lines.append(called)
        lines += [f"print({name!r}, 'unchanged:', np.array_equal({name}, {name}_before, equal_nan=True))" for name in arrays]
    return "\n".join(lines)


def describe(
    calls: list[Call], *, module: str, expected: Any = None, got: Any = None, notebook: bool = False
) -> dict[str, Any]:
    """The JSON form of a counterexample (its repro written for a notebook if ``notebook``,
    else for a file importable as ``module``)."""
    return {
        "calls": [
            {"function": call.function, "arguments": {name: jsonable(v) for name, v in call.arguments.items()}}
            for call in calls
        ],
        "expected": jsonable(expected),
        "got": jsonable(got),
        "repro": repro(calls, module=module, notebook=notebook),
    }
