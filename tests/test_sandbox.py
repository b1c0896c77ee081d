"""Choosing the isolation of the worker."""

from __future__ import annotations

import pytest

from grader import sandbox
from grader.errors import UsageError


@pytest.fixture
def no_bubblewrap(monkeypatch):
    monkeypatch.setattr(sandbox, "bubblewrap_works", lambda: False)


def test_auto_falls_back_to_a_plain_process_for_an_ordinary_user(no_bubblewrap, monkeypatch):
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 1000)
    assert sandbox.resolve_isolation("auto") == "process"


def test_auto_refuses_to_run_submissions_as_root_without_bubblewrap(no_bubblewrap, monkeypatch):
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    with pytest.raises(UsageError, match="grading as root needs bubblewrap"):
        sandbox.resolve_isolation("auto")
    assert sandbox.resolve_isolation("process") == "process"


def test_asking_for_bubblewrap_where_it_does_not_work_is_an_error(no_bubblewrap):
    with pytest.raises(UsageError, match="bubblewrap cannot start a worker here"):
        sandbox.resolve_isolation("bubblewrap")


def test_auto_as_root_without_bubblewrap_runs_a_self_check_with_a_warning(no_bubblewrap, monkeypatch):
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    warnings: list[str] = []
    assert sandbox.resolve_isolation("auto", self_check=True, warn=warnings.append) == "process"
    (warning,) = warnings
    assert "a self-check, not a grade of record" in warning and "install the Debian package 'bubblewrap'" in warning


def test_a_self_check_warns_only_when_root_falls_back(no_bubblewrap, monkeypatch):
    warnings: list[str] = []
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 1000)
    assert sandbox.resolve_isolation("auto", self_check=True, warn=warnings.append) == "process"
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    assert sandbox.resolve_isolation("process", self_check=True, warn=warnings.append) == "process"
    assert warnings == []
