"""Edit a context (or a question_context's question text) by typing, with validation before it is accepted.

Contexts are normally taken from a chapter selection; typing is for fixes such as letter case or a stray
escape. The validator runs on submit and its message keeps the dialog open, so a context that is not in the
chapter text is never accepted silently.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea


class ContextTextEdit(ModalScreen[str | None]):
    """ctrl+s (or ctrl+enter) submits, escape cancels; ``validate`` returns an error message or None."""

    CSS_PATH = "context_text_edit.tcss"
    BINDINGS = [
        Binding("ctrl+s,ctrl+enter", "submit", "Accept", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, title: str, text: str, validate: Callable[[str], str | None] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.initial = text
        self.validate = validate

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.title_text, id="title", markup=False)
            yield TextArea(self.initial, id="editor", soft_wrap=True)
            yield Static("ctrl+s accept · escape cancel", id="error", markup=False)

    def on_mount(self) -> None:
        self.query_one("#editor", TextArea).focus()

    def action_submit(self) -> None:
        text = self.query_one("#editor", TextArea).text
        problem = self.validate(text) if self.validate else None
        if problem:
            error = self.query_one("#error", Static)
            error.update(f"Not accepted: {problem}")
            error.add_class("invalid")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
