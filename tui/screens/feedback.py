"""Practice feedback after an answer (practice only; the main trials never say whether an answer was right)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from benchlab.annotations.session.runner import Feedback
from benchlab.tui.screens.continue_screen import ContinueScreen

#: Presses within this time of the screen appearing are ignored, so a held answer key cannot skip the feedback.
GUARD_S = 0.3


class FeedbackScreen(ContinueScreen):
    CSS_PATH = "feedback.tcss"
    GUARD_S = GUARD_S

    def __init__(self, feedback: Feedback, *, guard_s: float | None = None) -> None:
        super().__init__(guard_s=guard_s)
        self.feedback = feedback

    def compose(self) -> ComposeResult:
        with Vertical(id="center"):
            yield Static(self.feedback.message, id="feedback", markup=False,
                         classes="correct" if self.feedback.correct else "wrong")
            yield Static("Press Space to continue", id="hint")
