"""The last screen a participant sees; Enter closes it (everything is already on disk)."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from benchlab.tui.screens.continue_screen import ContinueScreen

GUARD_S = 1.0


class EndScreen(ContinueScreen):
    CSS_PATH = "end.tcss"
    CONTINUE_KEYS: ClassVar[tuple[str, ...]] = ("enter",)
    GUARD_S = GUARD_S

    def __init__(self, title: str, message: str, *, guard_s: float | None = None, closing: str | None = None) -> None:
        """``closing``: the last words of a session in a browser ("you may close this tab"); the page then stays
        (no key closes it) until the participant closes the tab."""
        super().__init__(guard_s=guard_s)
        self.title_text = title
        self.message = message
        self.closing = closing

    def compose(self) -> ComposeResult:
        with Vertical(id="center"):
            yield Static(self.title_text, id="end-title", markup=False)
            yield Static(self.message, id="end-message", markup=False)
            yield Static(self.closing or "Press Enter to close", id="hint", markup=False)

    class Closing(Message):
        """A browser session's end page is showing: the app tells the page that leaving is fine now."""

    def on_mount(self) -> None:
        if self.closing is not None:
            self.post_message(self.Closing())

    def on_key(self, event: events.Key) -> None:
        if self.closing is not None:
            event.stop()  # the page stays until the tab is closed
            return
        super().on_key(event)
