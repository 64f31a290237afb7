"""Shown when a session started from the launcher ends: the participant cannot get back to the launcher (results,
other participants' scores, curation with gold answers) from here; only the experimenter's keys leave it."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static


class HandbackScreen(Screen[None]):
    """Swallows every key; the app dismisses it on the experimenter's keys (Ctrl+X, then menu) and then shows the
    session summary."""

    CSS_PATH = "handback.tcss"

    def compose(self) -> ComposeResult:
        with Vertical(id="center"):
            yield Static("Session finished.", id="handback-title")
            yield Static("Please tell the experimenter.", id="handback-message")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
