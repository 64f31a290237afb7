"""``benchlab run NAME ... --web-session``: one participant's session in a browser, as ``benchlab serve`` starts it.

The server starts the same command for a first visit and for every reconnect, so the session resumes when this
participant's session is already in progress (its plan is saved) and starts otherwise: that is what ``resume``
means when the session is opened (:func:`~benchlab.annotations.session.opening.open_session` reads the session's
files and decides). A resumed session opens on a short "welcome back" page instead of the instructions (and never
shows consent again). Nothing is printed on stdout: it carries the page's packet stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.task import SessionOptions, Task
from benchlab.tui.app import BenchlabApp
from benchlab.tui.web.web_runner import prepare_web_session, welcome_back

__all__ = ["prepare_web_session", "run_web_session", "welcome_back"]


def run_web_session(task: Task, session: SessionOptions, plan: Any, *,
                    on_prepared: Callable[[SessionRunner], None] | None = None) -> None:
    """Run the session on the web session driver (or ``TEXTUAL_DRIVER``'s); raises what the session raised.
    ``on_prepared``: as for a terminal session (a study records its assignment once the runner holds the session)."""
    runner = prepare_web_session(task, session, plan)
    try:
        if on_prepared is not None:
            on_prepared(runner)
        app = BenchlabApp(session=(runner, task), web_session=True)
        app.run()
        if app.error is not None:
            raise app.error
    finally:
        runner.close()
