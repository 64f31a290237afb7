""""This participant already has that session": two buttons instead of a dead end ("add resume ..."), shown at the
top of a session form. Used by the session form and the study form, which differ only in where the answer goes."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button

from benchlab.annotations.options import OptionError
from benchlab.annotations.session.status import read_statuses
from benchlab.data.errors import BenchlabError
from benchlab.tui.widgets.option_form import OptionForm


def already_started(exc: BenchlabError) -> bool:
    """The error a form gets when the participant's session exists (its plan is saved)."""
    return isinstance(exc, OptionError) and exc.field == "session" and "already started" in exc.problem


def next_session_number(out: Path, participant: str, task: str, current: str) -> int:
    """One more than the highest numbered session of this participant and task in ``out`` (and than ``current``)."""
    numbers = [int(s.session) for s in read_statuses(out)
               if s.participant == participant and s.task == task and s.session.isdigit()]
    return max([*numbers, int(current) if current.isdigit() else 0]) + 1


def session_finished(out: Path, participant: str, task: str, session: str) -> bool:
    """This participant's session is finished (every trial answered): it is not offered for resume."""
    return any(s.state == "finished" for s in read_statuses(out)
               if s.participant == participant and s.task == task and s.session == session)


def existing_message(participant: str, session: str, following: int, finished: bool, where: str = "here") -> str:
    """What the form says above the offer: a finished session can only be followed by a new one."""
    if finished:
        return (f"Participant {participant} already finished session {session} {where}: start session "
                f"{following}.")
    return f"Participant {participant} already has session {session} {where}: resume it, or start session {following}."


class ExistingSessionOffer(Horizontal):
    """Hidden until :meth:`offer`; its buttons post :class:`Chosen` (resume the session, or start the next)."""

    DEFAULT_CSS = """
    ExistingSessionOffer {
        height: auto;
        padding: 0 0 1 0;
        display: none;
    }
    ExistingSessionOffer Button {
        margin: 0 2 0 0;
    }
    """

    class Chosen(Message):
        """``resume``: continue the existing session; otherwise start session ``session``."""

        def __init__(self, resume: bool, session: str) -> None:
            super().__init__()
            self.resume = resume
            self.session = session

        def apply(self, form: OptionForm) -> None:
            """Set the form's Resume box and, for a new session, its Session field."""
            form.set_raw("resume", self.resume)
            if not self.resume:
                form.set_raw("session", self.session)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._next = "2"

    def compose(self) -> ComposeResult:
        yield Button("Resume it", id="resume-existing", variant="warning")
        yield Button("New session", id="new-session", variant="primary")

    def offer(self, session: str, next_session: int, *, finished: bool = False) -> None:
        """Show the buttons; a ``finished`` session has nothing left to resume, so only the new one is offered."""
        self._next = str(next_session)
        resume = self.query_one("#resume-existing", Button)
        resume.label = f"Resume session {session}"
        resume.display = not finished
        self.query_one("#new-session", Button).label = f"New session {self._next}"
        self.display = True
        (self.query_one("#new-session", Button) if finished else resume).focus()
        self.scroll_visible(animate=False)

    def hide(self) -> None:
        self.display = False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.hide()
        self.post_message(self.Chosen(event.button.id == "resume-existing", self._next))
