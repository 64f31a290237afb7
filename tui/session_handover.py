"""Handing a prepared session from a screen to the app: which tasks there are, preparing, previewing and starting.

The launcher, the session form, the study form and the Results screen only talk to tasks through these
functions, so how a task prepares its session (and which tasks exist) is decided in one place. The app is reached
through :class:`SessionHost` (what it must be able to do), never imported: the screens sit below the app.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from textual.app import App

from benchlab.annotations.options import Options
from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import open_session
from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.task import Registry, SessionOptions, Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.screens.session_preview import SessionPreviewScreen


@runtime_checkable
class SessionHost(Protocol):
    """An app that runs sessions (``BenchlabApp``): a screen hands it a prepared session and its task."""

    def start_session(self, runner: SessionRunner, task: Task) -> None: ...


def tasks() -> Registry:
    """Every task the app offers, in launcher order (built-ins, then plug-ins)."""
    return registry()


def prepare(task: Task, session: SessionOptions, plan: Options) -> SessionRunner:
    """Load the data, build (or reload) the plan and open the runner; slow, so screens call it from a worker.

    Raises :class:`~benchlab.annotations.options.OptionError` naming a field, or ``BenchlabError``.
    """
    return open_session(task, session, plan)


def preview_then_start(app: App[Any], runner: SessionRunner, task: Task, plan: Options, *,
                       extra: Sequence[tuple[str, str]] = (), before_start: Callable[[], None] | None = None,
                       on_error: Callable[[BenchlabError], None]) -> None:
    """Show the preview of a prepared session; Start runs ``before_start`` (remember the form, record a study's
    assignment) and hands over, Back undoes the preparation. ``on_error`` gets what stops the start."""
    def decided(go: bool | None) -> None:
        if not go:
            runner.discard()
            return
        try:
            if before_start is not None:
                before_start()
            start(app, runner, task)
        except BenchlabError as exc:
            runner.close()
            on_error(exc)

    app.push_screen(SessionPreviewScreen(runner, task.title, plan, extra=extra), decided)


def start(app: App[Any], runner: SessionRunner, task: Task) -> bool:
    """Hand a prepared session to the app (``False``, and the runner closed, in an app that runs no sessions)."""
    if not isinstance(app, SessionHost):
        runner.close()
        return False
    app.start_session(runner, task)
    return True
