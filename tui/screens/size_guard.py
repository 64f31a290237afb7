"""Participant screens that pause behind a "please make the window larger" notice while the terminal is too small.

Why: at 20x5 a choice trial showed only "1 TRUE" and key 2 was recorded with a normal RT; a reading-task excerpt box
with zero rows still gave a reading time. A participant's font zoom is the same case (a resize). Each screen says
what it needs (:meth:`SizeGuardedScreen.needed_size`, measured from its own widgets and styles: the whole question
and its answer buttons, both segments of a two-passage trial and their buttons, a usable excerpt box); below that
the screen hides its content, shows :class:`~benchlab.tui.widgets.enlarge_notice.EnlargeNotice`, and no key or
click does anything until the window is large enough again. Trial screens then restart the stimulus onset (see
:class:`~benchlab.tui.screens.trial_base.TrialScreen`).

The size is checked on the screen's resize event and again at every key and click against the app's size, which
Textual updates at once (the screen's resize event comes up to 1/120 s later): a key pressed right after a shrink is
never an answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events, on
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget

from benchlab.tui.widgets.enlarge_notice import EnlargeNotice

#: Below this width no participant screen is readable (a line of a question or instruction would be a few words).
MIN_WIDTH = 40
#: Rows of a scrollable text (consent, instructions, a reading excerpt) that still make it readable.
MIN_TEXT_ROWS = 5
_TALL = 10_000


def content_rows(widget: Widget, width: int) -> int:
    """Rows ``widget``'s content takes in ``width`` columns, wrapped as the widget itself wraps it."""
    width = max(1, width)
    return widget.get_content_height(Size(width, _TALL), Size(width, _TALL), width)


def content_columns(widget: Widget) -> int:
    """The columns ``widget``'s content takes unwrapped (a button's label)."""
    return widget.get_content_width(Size(_TALL, _TALL), Size(_TALL, _TALL))


def box_width(widget: Widget, available: int) -> int:
    """The width an auto-height widget gets in ``available`` columns: less its margins, at most its max-width."""
    styles = widget.styles
    width = available - styles.margin.width
    if styles.max_width is not None:
        width = min(width, int(styles.max_width.resolve(Size(available, _TALL), Size(available, _TALL))))
    return width


def box_rows(widget: Widget, available: int) -> int:
    """Rows a widget takes in ``available`` columns, margins, border and padding included: its fixed height when
    its CSS gives one in cells, else its content wrapped at its width."""
    styles = widget.styles
    height = styles.height
    if height is not None and height.is_cells:
        return int(height.value) + styles.margin.height
    inner = box_width(widget, available) - styles.gutter.width
    return content_rows(widget, inner) + styles.gutter.height + styles.margin.height


def stacked_rows(widgets: Iterable[Widget], available: int) -> int:
    return sum(box_rows(widget, available) for widget in widgets)


def button_row(buttons: Iterable[Widget]) -> tuple[int, int]:
    """(columns, rows) a row of buttons needs with every label whole (margins included)."""
    width = rows = 0
    for button in buttons:
        styles = button.styles
        natural = content_columns(button) + styles.gutter.width
        if styles.min_width is not None and styles.min_width.is_cells:
            natural = max(natural, int(styles.min_width.value))
        width += natural + styles.margin.width
        rows = max(rows, 1 + styles.gutter.height + styles.margin.height)
    return width, rows


class SizeGuardedScreen(Screen[None]):
    """A participant screen with a minimum terminal size; subclasses say what they need in :meth:`needed_size`.

    Subclasses call :meth:`too_small_now` first in their key and click handlers (``True``: the input does nothing)
    and :meth:`check_size` when what they show changes (a trial's question after its excerpt).
    """

    def __init__(self) -> None:
        super().__init__()
        self.too_small = False
        #: How often this screen paused for its size (for tests and the record of trial screens).
        self.size_pauses = 0
        self.notice = EnlargeNotice()
        self._hidden: list[Widget] = []
        self._checked_size: Size | None = None

    def needed_size(self, width: int) -> Size:
        """The smallest terminal that shows this screen's content whole when the terminal is ``width`` wide."""
        return Size(MIN_WIDTH, 0)

    def fits(self, size: Size) -> bool:
        need = self.needed_size(max(size.width, 1))
        return size.width >= need.width and size.height >= need.height

    @on(events.Mount)
    def _mount_notice(self) -> None:
        # Checked at once, before any frame: a trial started in a small window never shows part of its stimulus.
        self.mount(self.notice)
        self.check_size()

    def on_resize(self, event: events.Resize) -> None:
        self.check_size()

    def check_size(self) -> bool:
        """Pause or go on for the app's current size; ``True`` when the content is whole (not paused)."""
        size = self.app.size
        self._checked_size = size
        if self.fits(size):
            if self.too_small:
                self._resume()
            return True
        need = self.needed_size(max(size.width, 1))
        self.notice.show_sizes(Size(max(need.width, size.width), need.height), size)
        if not self.too_small:
            self._pause()
        return False

    def too_small_now(self) -> bool:
        """For key and click handlers: paused, or the terminal was resized below the need a moment ago."""
        if self.app.size != self._checked_size:
            self.check_size()
        return self.too_small

    def _pause(self) -> None:
        self.too_small = True
        self.size_pauses += 1
        self._hidden = [w for w in self.children if w is not self.notice and w.display]
        for widget in self._hidden:
            widget.display = False
        self.notice.display = True
        self.size_paused()

    def _resume(self) -> None:
        self.too_small = False
        for widget in self._hidden:
            widget.display = True
        self._hidden = []
        self.notice.display = False
        self.size_resumed()

    def size_paused(self) -> None:
        """The content was just hidden (the terminal is too small)."""

    def size_resumed(self) -> None:
        """The content is shown again (the terminal is large enough)."""
