"""Every key of the curation editor, over the editor (a modal): the footer has room for a few, and a docked help
panel reflowed the chapter and lost its scroll position."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.table import Table
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class CurateKeysScreen(ModalScreen[None]):
    """``rows``: (key, what it does, where it applies); ?, Escape or q closes it."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        table = Table(box=None, pad_edge=False, expand=True, show_header=True, header_style="bold")
        table.add_column("key", no_wrap=True, style="bold")
        table.add_column("does")
        table.add_column("where", style="dim")
        for key, does, where in self.rows:
            table.add_row(key, does, where)
        with VerticalScroll(id="keys-box"):
            yield Static("Keys (?, Escape or q closes)", id="keys-title")
            yield Static(table, id="keys-table")

    def on_key(self, event: events.Key) -> None:
        if event.key in ("question_mark", "escape", "q"):
            event.stop()
            self.dismiss(None)


def binding_rows(*owners: tuple[str, Sequence[BindingType]]) -> list[tuple[str, str, str]]:
    """(key, description, where) for every described binding of the given (where, bindings) pairs."""
    rows: list[tuple[str, str, str]] = []
    for where, bindings in owners:
        for binding in bindings:
            if not isinstance(binding, Binding) or not binding.description:
                continue
            keys = ", ".join(_shown(k) for k in binding.key.split(","))
            rows.append((keys, binding.tooltip or binding.description, where))
    return rows


def _shown(key: str) -> str:
    names = {"question_mark": "?", "slash": "/", "delete": "Delete", "escape": "Escape"}
    if key in names:
        return names[key]
    return key.replace("ctrl+", "Ctrl+")
