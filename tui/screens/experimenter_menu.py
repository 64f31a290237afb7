"""The experimenter's menu (opened by the experimenter's keys: a chord, then a typed word): continue, skip, end.

Skip and End ask for confirmation first; Continue returns to exactly where the participant was.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from benchlab.tui.screens.confirm import ConfirmScreen


class ExperimenterMenu(ModalScreen[str | None]):
    """Dismisses with ``"skip"`` (offered on trials only), ``"end"`` or ``None`` (continue)."""

    CSS_PATH = "experimenter_menu.tcss"

    def __init__(self, can_skip: bool, status: str) -> None:
        super().__init__()
        self.can_skip = can_skip
        self.status = status

    def compose(self) -> ComposeResult:
        with Vertical(id="menu"):
            yield Static("Experimenter menu", id="menu-title")
            yield Static(self.status, id="menu-status", markup=False)
            yield Button("c  Continue the session", id="continue", variant="primary")
            if self.can_skip:  # only on a trial: elsewhere there is nothing to skip
                yield Button("s  Skip this trial (records an empty answer)", id="skip")
            yield Button("e  End the session now (responses so far are saved)", id="end", variant="error")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        choice = {"c": "continue", "s": "skip", "e": "end"}.get(event.key)
        if choice:
            self._choose(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id:
            self._choose(event.button.id)

    def _choose(self, choice: str) -> None:
        if choice == "continue":
            self.dismiss(None)
            return
        if choice == "skip" and not self.can_skip:
            return
        question = {
            "skip": "Skip this trial? It is recorded as an empty answer and counts as wrong.",
            "end": "End the session now? Everything answered so far is saved; resume later with --resume.",
        }[choice]

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.dismiss(choice)

        self.app.push_screen(ConfirmScreen(question), done)
