"""The last screen a participant sees; Enter closes it (everything is already on disk)."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual._time import get_time
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

GUARD_S = 1.0


class EndScreen(Screen[None]):
    CSS_PATH = "end.tcss"

    def __init__(self, title: str, message: str, on_close: Callable[[], None], *, guard_s: float = GUARD_S) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.on_close = on_close
        self.guard_s = guard_s
        self._shown_at = get_time()
        self._done = False

    def compose(self) -> ComposeResult:
        with Vertical(id="center"):
            yield Static(self.title_text, id="end-title", markup=False)
            yield Static(self.message, id="end-message", markup=False)
            yield Static("Press Enter to close", id="hint")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if self._done or event.key != "enter" or event.time - self._shown_at < self.guard_s:
            return
        self._done = True
        self.on_close()
