"""The last screen a participant sees; Enter closes it (everything is already on disk)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from benchlab.tui.screens.continue_screen import ContinueScreen

GUARD_S = 1.0


class EndScreen(ContinueScreen):
    CSS_PATH = "end.tcss"
    CONTINUE_KEYS: ClassVar[tuple[str, ...]] = ("enter",)
    GUARD_S = GUARD_S

    def __init__(self, title: str, message: str, *, guard_s: float | None = None) -> None:
        super().__init__(guard_s=guard_s)
        self.title_text = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="center"):
            yield Static(self.title_text, id="end-title", markup=False)
            yield Static(self.message, id="end-message", markup=False)
            yield Static("Press Enter to close", id="hint")
