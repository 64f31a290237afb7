"""Consent: the lab's text, then agree (y) or decline (n). Declining ends the session with nothing recorded.

The choice goes up as a :class:`~benchlab.tui.screens.step_done.StepDone` message ("agree" / "decline")."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Markdown, Static

from benchlab.tui.screens.step_done import StepDone


class ConsentScreen(Screen[None]):
    CSS_PATH = "consent.tcss"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self._done = False

    def compose(self) -> ComposeResult:
        yield Static("Consent", id="title")
        with VerticalScroll(id="consent-text", can_focus=False):
            yield Markdown(self.text)
        with Horizontal(id="choices"):
            yield Button("y  I agree to take part", id="agree", variant="success")
            yield Button("n  I do not agree", id="decline", variant="error")

    def _choose(self, agree: bool) -> None:
        if self._done:
            return
        self._done = True
        self.post_message(StepDone(self, "agree" if agree else "decline"))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key == "y":
            self._choose(True)
        elif event.key == "n":
            self._choose(False)
        elif event.key in ("down", "pagedown", "up", "pageup"):
            scroll = self.query_one("#consent-text", VerticalScroll)
            {"down": scroll.scroll_down, "up": scroll.scroll_up, "pagedown": scroll.scroll_page_down,
             "pageup": scroll.scroll_page_up}[event.key]()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._choose(event.button.id == "agree")
