"""The one seam between the app's screens and the tasks: which tasks there are, preparing and starting a session.

The launcher, the session form and the Results screen only talk to tasks through these functions, so how a task
prepares its session (and which tasks exist) is decided in one place.

INTERIM (until the built-in ``TASK`` objects land): when those modules are missing, :func:`tasks` falls back to
:mod:`benchlab.tui.legacy_tasks` and :func:`start` hands the app the old ``TaskUI``. At merge: ``tasks`` returns
``registry()``, ``start`` calls ``app.start_session(runner, task)``, and ``legacy_tasks.py`` is deleted.
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from benchlab.annotations import registry as _registry
from benchlab.annotations.options import Options
from benchlab.annotations.session_runner import SessionRunner, SessionText
from benchlab.annotations.task import Registry, SessionOptions, Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.session_text import read_text_file, split_pages


def tasks() -> Registry:
    """Every task the app offers, in launcher order (built-ins, then plug-ins)."""
    try:
        return _registry.registry()
    except ModuleNotFoundError as exc:  # INTERIM: the built-in TASK modules are not there yet
        builtin = {spec.partition(":")[0] for spec in _registry.BUILTIN}
        if exc.name not in builtin:
            raise
    from benchlab.tui.legacy_tasks import legacy_registry

    return legacy_registry()


def session_text(task: Task, session: SessionOptions, plan: Options) -> SessionText:
    """What the participant reads: the consent file, the instructions file (or the task's built-in pages)."""
    consent = read_text_file(session.consent_file, "consent") if session.consent_file else None
    if session.no_instructions:
        pages: list[str] = []
    elif session.instructions_file:
        pages = split_pages(read_text_file(session.instructions_file, "instructions"))
    else:
        pages = task.instructions(plan, session)
    return SessionText(consent=consent, instructions=pages, practice_feedback=session.feedback)


def prepare(task: Task, session: SessionOptions, plan: Options) -> SessionRunner:
    """Load the data, build (or reload) the plan and open the runner; slow, so screens call it from a worker.

    Raises :class:`~benchlab.annotations.options.OptionError` naming a field, or ``BenchlabError``.
    """
    return task.prepare(session, plan, session_text(task, session, plan))


def start(app: App[Any], runner: SessionRunner, task: Task) -> bool:
    """Hand a prepared session to the app (``False``, and the runner closed, in an app that runs no sessions)."""
    from benchlab.tui.app import BenchlabApp
    from benchlab.tui.legacy_tasks import LegacyTask

    if not isinstance(app, BenchlabApp):
        runner.close()
        return False
    if not isinstance(task, LegacyTask):  # INTERIM: at merge, app.start_session(runner, task) for every task
        runner.close()
        raise BenchlabError(f"the app cannot show {task.name} trials yet")
    app.start_session(runner, task.ui)
    return True
