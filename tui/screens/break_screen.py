"""Self-paced breaks: after practice and between blocks; the participant continues when ready."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from benchlab.tui.screens.continue_screen import ContinueScreen
from benchlab.tui.widgets.session_progress import SessionProgress

#: A break cannot be skipped by the key that answered the last trial (held or pressed twice).
GUARD_S = 1.0


class BreakScreen(ContinueScreen):
    CSS_PATH = "break_screen.tcss"
    CONTINUE_KEYS: ClassVar[tuple[str, ...]] = ("space",)
    GUARD_S = GUARD_S

    def __init__(self, title: str, message: str, progress: tuple[str, int, int], *, guard_s: float | None = None,
                 ) -> None:
        super().__init__(guard_s=guard_s)
        self.title_text = title
        self.message = message
        self.progress = progress

    def compose(self) -> ComposeResult:
        yield SessionProgress(*self.progress)
        with Vertical(id="center"):
            yield Static(self.title_text, id="break-title", markup=False)
            yield Static(self.message, id="break-message", markup=False)
            yield Static("Press Space when you are ready to continue", id="hint")
