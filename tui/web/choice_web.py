"""The ``choice`` trial kind on the native web page (WorldSense and every choice-kit task): the prompt's text above,
one large button per option; keys 1..n answer as in the terminal. Declared in benchlab's ``pyproject.toml`` under
``benchlab.web_trials`` like a plug-in's renderer."""

from __future__ import annotations

from html import escape

from benchlab.annotations.session.plan import PlannedStep
from benchlab.annotations.session.runner import ResponseTiming, SessionRunner
from benchlab.annotations.task import ChoiceSession
from benchlab.data.errors import BenchlabError
from benchlab.tui.web.markup import plain
from benchlab.tui.web.web_trials import Stamp, WebView


def answer_buttons(options: list[tuple[str, str, str]]) -> str:
    """Buttons ``(value, key shown, label)`` in a row that wraps (a column on a phone)."""
    out = []
    for value, key, label in options:
        out.append(f"<button type=button class=answer data-act=answer data-value=\"{escape(value)}\" "
                   f"aria-keyshortcuts=\"{escape(key)}\"><span class=key aria-hidden=true>{escape(key)}</span>"
                   f"<span class=label>{escape(label)}</span></button>")
    return f"<div class=answers role=group aria-label=\"Answers\">{''.join(out)}</div>"


class ChoiceWebTrial:
    """One view: the question and its answer buttons."""

    def __init__(self, text: str, options: tuple[str, ...]) -> None:
        if not options or len(options) > 9:
            raise ValueError("a choice trial needs 1 to 9 options")
        self.text, self.options = text, options
        self._view: WebView | None = None

    def view(self) -> WebView:
        """The question view, rendered once per trial (it is asked for again on every showing)."""
        if self._view is None:
            buttons = answer_buttons([(o, str(i + 1), o) for i, o in enumerate(self.options)])
            html = f"<div class=stimulus id=question>{plain(self.text)}</div>{buttons}"
            self._view = WebView("question", html, {str(i + 1): ("answer", o) for i, o in enumerate(self.options)},
                                 answers=True)
        return self._view

    def proceed(self, stamp: Stamp) -> None:
        """A choice trial has only its answer view."""

    def left(self, stamp: Stamp) -> None:
        """Nothing to keep: the question is shown again (the engine marks the trial interrupted)."""

    def timing(self, base: ResponseTiming) -> ResponseTiming:
        return base


def choice_web_trial(runner: SessionRunner, step: PlannedStep) -> ChoiceWebTrial:
    """The ``choice`` kind's web renderer: the session's prompt of the item."""
    task = runner.task_session
    if not isinstance(task, ChoiceSession):
        raise BenchlabError(f"task {task.name} has choice trials but its session has no prompt(item_id)")
    prompt = task.prompt(step.item_id)
    return ChoiceWebTrial(prompt.text, tuple(prompt.options))
