"""Practice feedback after an answer (practice only; the main trials never say whether an answer was right)."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual._time import get_time
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from benchlab.annotations.session_runner import Feedback

#: Presses within this time of the screen appearing are ignored, so a held answer key cannot skip the feedback.
GUARD_S = 0.3


class FeedbackScreen(Screen[None]):
    CSS_PATH = "feedback.tcss"

    def __init__(self, feedback: Feedback, on_continue: Callable[[], None], *, guard_s: float = GUARD_S) -> None:
        super().__init__()
        self.guard_s = guard_s
        self.feedback = feedback
        self.on_continue = on_continue
        self._shown_at = get_time()
        self._done = False

    def compose(self) -> ComposeResult:
        with Vertical(id="center"):
            yield Static(self.feedback.message, id="feedback", markup=False,
                         classes="correct" if self.feedback.correct else "wrong")
            yield Static("Press Space to continue", id="hint")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if self._done or event.key not in ("space", "enter") or event.time - self._shown_at < self.guard_s:
            return
        self._done = True
        self.on_continue()
