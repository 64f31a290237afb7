"""Consent: the lab's text, then agree (y) or decline (n). Declining ends the session with nothing recorded.

The choice goes up as a :class:`~benchlab.tui.screens.step_done.StepDone` message ("agree" / "decline"). The text
scrolls (arrow and page keys); below a few readable rows and both buttons whole the screen pauses (``size_guard``)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.widgets import Button, Markdown, Static

from benchlab.tui.screens.size_guard import MIN_TEXT_ROWS, MIN_WIDTH, SizeGuardedScreen, box_rows, button_row
from benchlab.tui.screens.step_done import StepDone


class ConsentScreen(SizeGuardedScreen):
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

    def needed_size(self, width: int) -> Size:
        """The title, ``MIN_TEXT_ROWS`` rows of the (scrolling) text and both buttons whole."""
        choices = self.query_one("#choices", Horizontal)
        buttons_width, buttons_rows = button_row(choices.query(Button))
        need_width = max(MIN_WIDTH, buttons_width + choices.styles.gutter.width)
        text = self.query_one("#consent-text", VerticalScroll)
        rows = (box_rows(self.query_one("#title", Static), max(width, need_width)) + text.styles.gutter.height
                + MIN_TEXT_ROWS + buttons_rows + choices.styles.gutter.height)
        return Size(need_width, rows)

    def _choose(self, agree: bool) -> None:
        if self._done or self.too_small_now():
            return
        self._done = True
        self.post_message(StepDone(self, "agree" if agree else "decline"))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if self.too_small_now():
            return
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
