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
