"""The experimenter's summary of a session run from the launcher, shown after the hand-back screen.

It stays until the experimenter dismisses it: a toast vanished after 15 s, often before anyone read where the results
went or how many trials were recorded (and a stopped session's error with it)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class SessionSummaryScreen(ModalScreen[None]):
    """Title, the runner's summary (and an error, if the session stopped on one); Enter, Escape or Done closes it."""

    CSS_PATH = "session_summary.tcss"

    def __init__(self, title: str, summary: str, *, error: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.summary = summary
        self.error = error

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="error" if self.error else ""):
            yield Static(self.title_text, id="summary-title", markup=False)
            if self.error:
                yield Static(self.error, id="summary-error", markup=False)
            yield Static(self.summary, id="summary-text", markup=False)
            yield Button("Done  (Enter)", id="done", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#done", Button).focus()

    def on_key(self, event: events.Key) -> None:
        if event.key in ("enter", "escape"):
            event.stop()
            self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)
