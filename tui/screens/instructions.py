"""Paged instructions: forward with Space/Enter/right arrow, back with the left arrow; Enter on the last page
starts (a :class:`~benchlab.tui.screens.step_done.StepDone` message). A page longer than the window scrolls (↑ ↓,
Page Up / Page Down); below a few readable rows the screen pauses (``size_guard``)."""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widgets import Markdown, Static

from benchlab.tui.screens.size_guard import MIN_TEXT_ROWS, MIN_WIDTH, SizeGuardedScreen, box_rows
from benchlab.tui.screens.step_done import StepDone
from benchlab.tui.widgets.session_progress import SessionProgress

NEXT_KEYS = ("space", "enter", "right")
BACK_KEYS = ("left",)
SCROLL_KEYS = ("up", "down", "pageup", "pagedown")


class InstructionsScreen(SizeGuardedScreen):
    CSS_PATH = "instructions.tcss"

    def __init__(self, pages: Sequence[str]) -> None:
        super().__init__()
        if not pages:
            raise ValueError("no instruction pages")
        self.pages = list(pages)
        self.page = 0
        self._done = False

    def compose(self) -> ComposeResult:
        yield SessionProgress(self._label(), 1, len(self.pages), id="instructions-progress")
        with VerticalScroll(id="page", can_focus=False):
            yield Markdown(self.pages[0], id="page-text")
        yield Static(self._hint(), id="hint")

    def needed_size(self, width: int) -> Size:
        """The progress line, ``MIN_TEXT_ROWS`` rows of the (scrolling) page and the hint."""
        width = max(width, MIN_WIDTH)
        page = self.query_one("#page", VerticalScroll)
        rows = (box_rows(self.query_one(SessionProgress), width) + page.styles.gutter.height + MIN_TEXT_ROWS
                + box_rows(self.query_one("#hint", Static), width))
        return Size(MIN_WIDTH, rows)

    def _label(self) -> str:
        return f"Instructions: page {self.page + 1} of {len(self.pages)}"

    def _hint(self) -> str:
        back = "← back    " if self.page > 0 else ""
        if self.page == len(self.pages) - 1:
            return f"{back}Press Enter to begin"
        return f"{back}Space or → for the next page"

    def _show(self) -> None:
        self.query_one("#page-text", Markdown).update(self.pages[self.page])
        self.query_one("#hint", Static).update(self._hint())
        self.query_one(SessionProgress).set_progress(self._label(), self.page + 1)

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if self._done or self.too_small_now():
            return
        if event.key in SCROLL_KEYS:
            page = self.query_one("#page", VerticalScroll)
            {"down": page.scroll_down, "up": page.scroll_up, "pagedown": page.scroll_page_down,
             "pageup": page.scroll_page_up}[event.key]()
            return
        last = self.page == len(self.pages) - 1
        if event.key in NEXT_KEYS:
            if last:
                if event.key == "enter":
                    self._done = True
                    self.post_message(StepDone(self))
                return
            self.page += 1
            self._show()
        elif event.key in BACK_KEYS and self.page > 0:
            self.page -= 1
            self._show()
