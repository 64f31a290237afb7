"""A yes/no confirmation for experimenter actions that cannot be undone (y confirms, n cancels)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    CSS_PATH = "confirm.tcss"

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question, id="question", markup=False)
            with Horizontal(id="buttons"):
                yield Button("y  Yes", id="yes", variant="error")
                yield Button("n  No", id="no", variant="primary")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("y", "n"):
            self.dismiss(event.key == "y")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")
