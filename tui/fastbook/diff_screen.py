"""The session's edits as a unified diff of each changed question's JSON, before saving."""

from __future__ import annotations

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class CurateDiff(ModalScreen[None]):
    CSS_PATH = "diff_screen.tcss"
    BINDINGS = [Binding("escape,v,q", "close", "Close")]

    def __init__(self, diff: str, title: str) -> None:
        super().__init__()
        self.diff = diff
        self.title_text = title

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="title", markup=False)
        with VerticalScroll(id="body"):
            if self.diff:
                yield Static(Syntax(self.diff, "diff", word_wrap=True, theme="ansi_dark"), id="diff")
            else:
                yield Static("No changes in this session (or all were undone).", id="diff")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
