"""Starting a task's session from plain values (a form's strings, a test's keywords): one call for every front end.

The values are split between the task's session options and its plan options by field name, checked (a wrong
one raises :class:`~benchlab.annotations.options.OptionError` naming its field), the texts are read, and the task
prepares its runner.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchlab.annotations.options import OptionError, Options, parse_options
from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.session.texts import session_text
from benchlab.annotations.task import SessionOptions, Task


def session_options(task: Task, values: Mapping[str, Any]) -> tuple[SessionOptions, Options]:
    """The checked session and plan options of ``task`` from values by field name (unknown names are refused)."""
    session_fields = task.session_options.model_fields
    plan_fields = task.plan_options.model_fields
    unknown = [name for name in values if name not in session_fields and name not in plan_fields]
    if unknown:
        raise OptionError(unknown[0], f"is not an option of {task.name}")
    session = parse_options(task.session_options, {k: v for k, v in values.items() if k in session_fields})
    plan = parse_options(task.plan_options, {k: v for k, v in values.items() if k in plan_fields})
    return session, plan


def prepare_session(task: Task, values: Mapping[str, Any] | None = None, **kw: Any) -> SessionRunner:
    """The opened runner of a session of ``task`` (see :meth:`Task.prepare`) from values by field name."""
    session, plan = session_options(task, {**(values or {}), **kw})
    return task.prepare(session, plan, session_text(task, session, plan))
