"""Self-paced breaks: after practice and between blocks; the participant continues when ready."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual._time import get_time
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from benchlab.tui.widgets.session_progress import SessionProgress

#: A break cannot be skipped by the key that answered the last trial (held or pressed twice).
GUARD_S = 1.0


class BreakScreen(Screen[None]):
    CSS_PATH = "break_screen.tcss"

    def __init__(
        self, title: str, message: str, progress: tuple[str, int, int], on_continue: Callable[[], None],
        *, guard_s: float = GUARD_S,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.progress = progress
        self.on_continue = on_continue
        self.guard_s = guard_s
        self._shown_at = get_time()
        self._done = False

    def compose(self) -> ComposeResult:
        yield SessionProgress(*self.progress)
        with Vertical(id="center"):
            yield Static(self.title_text, id="break-title", markup=False)
            yield Static(self.message, id="break-message", markup=False)
            yield Static("Press Space when you are ready to continue", id="hint")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if self._done or event.key != "space" or event.time - self._shown_at < self.guard_s:
            return
        self._done = True
        self.on_continue()
