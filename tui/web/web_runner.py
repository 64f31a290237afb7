"""Opening a participant's web session (either page): a new session, or the resumed one with a "welcome back" page.

Kept apart from the terminal-in-browser app (:mod:`benchlab.tui.web.run`) so the native page's server opens
sessions without loading Textual.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from benchlab.annotations.session.opening import Opening, prepare_opening
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionRunner
from benchlab.annotations.session.texts import session_text
from benchlab.annotations.task import SessionOptions, Task


def welcome_back(runner: SessionRunner) -> str:
    """The page a participant sees on coming back (markdown)."""
    done = runner.recorded_main
    left = runner.n_main - done
    return (f"# Welcome back\n\nYour answers so far are saved: {done} of {runner.n_main} questions answered, "
            f"{left} to go.\n\nYou continue where you left off.")


def web_opening(task: Task, session: SessionOptions, plan: Any,
                planned: Callable[[], SessionPlan | None] | None = None) -> Opening:
    """A participant's web session about to open (see :class:`~benchlab.annotations.session.opening.Opening`): a
    new session (``planned`` gives the plan built ahead for it, asked when it opens), or (this participant's
    session was started before) the resumed one, with its "welcome back" page."""
    text = session_text(task, session, plan)
    returning = dataclasses.replace(text, consent=None, instructions=["# Welcome back"])
    opening = prepare_opening(task, session.model_copy(update={"resume": True}), plan,
                              dataclasses.replace(text, returning=returning), planned=planned)

    def open_now() -> SessionRunner:
        runner = opening.open()
        if runner.resume:
            runner.text.instructions = [welcome_back(runner)]  # with the counts, now that the answers are read back
        return runner

    return dataclasses.replace(opening, open=open_now)


def prepare_web_session(task: Task, session: SessionOptions, plan: Any,
                        planned: SessionPlan | None = None) -> SessionRunner:
    """The opened runner: a new session (with ``planned``, the plan built ahead for it), or (this participant's
    session was started before) the resumed one."""
    return web_opening(task, session, plan, lambda: planned).open()
