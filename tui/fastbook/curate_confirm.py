"""A yes/no question before something that cannot be taken back (overwrite a changed file, quit unsaved)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class CurateConfirm(ModalScreen[bool]):
    """Dismisses with True (y / the confirm button) or False (n / escape / cancel)."""

    CSS_PATH = "curate_confirm.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, message: str, *, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__()
        self.message = message
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.message, id="message", markup=False)
            with Horizontal(id="buttons"):
                yield Button(f"{self.yes_label} (y)", variant="warning", id="yes")
                yield Button(f"{self.no_label} (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
