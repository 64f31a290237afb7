"""A read-only, scrollable text for long excerpts (up to 20,000 words and more) that stays fast.

A ``Static`` holding 120 kB of text is wrapped and laid out as one renderable, and re-laid out on every change;
this view wraps the words once per width (a plain greedy wrap, a few ms for 20,000 words) and renders only the
lines on screen through Textual's line API, so first paint and scrolling cost the same for 250 or 20,000 words.
Because only the lines on screen are rendered, the view also knows how far down the text the reader has been shown
(:attr:`ExcerptView.seen_share`, recorded with each STM trial), whether they scrolled by key or by mouse wheel.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from pathlib import Path

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


def wrap_words(widths: list[int], width: int) -> list[tuple[int, int]]:
    """Greedy word wrap: (start, stop) word ranges per line; a word longer than the line gets a line of its own.

    With ``ends[i]`` = cells taken by words 0..i-1 each followed by a space, a line starting at word ``s`` ends
    before the first word that would overflow: one bisection per line instead of a Python step per word.
    """
    width = max(1, width)
    ends = [0, *accumulate(w + 1 for w in widths)]
    n = len(widths)
    lines: list[tuple[int, int]] = []
    start = 0
    while start < n:
        stop = bisect_right(ends, ends[start] + width + 1, lo=start + 1) - 1
        stop = max(stop, start + 1)
        lines.append((start, stop))
        start = stop
    return lines


class ExcerptView(ScrollView, can_focus=False):
    """Wrapped text rendered line by line; the screen that owns it handles the scroll keys."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self, text: str, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._words = text.split()
        self._widths = [len(w) if w.isascii() else cell_len(w) for w in self._words]
        self._lines: list[tuple[int, int]] = []
        self._wrapped_at = -1
        self._cache: dict[int, str] = {}
        self._stops: list[int] = []  # per line, the index after its last word
        self._furthest_word = 0  # every word before this one has been on screen (end of the lowest line shown)

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def _rewrap(self, width: int) -> None:
        if width == self._wrapped_at or width <= 0:
            return
        self._wrapped_at = width
        self._lines = wrap_words(self._widths, width)
        self._stops = [stop for _, stop in self._lines]
        self._cache.clear()
        self.virtual_size = Size(width, len(self._lines))

    @property
    def seen_share(self) -> float:
        """The furthest line that has been on screen, as a share of all lines (0-1; 1 = the end was shown).

        Kept as a word position, so a resize (new wrapping) does not change what was seen, only how lines count it.
        """
        if not self._lines or not self._furthest_word:
            return 0.0
        return min(1.0, (bisect_left(self._stops, self._furthest_word) + 1) / len(self._lines))

    def on_resize(self, event: Resize) -> None:
        self._rewrap(self.scrollable_content_region.width)

    def render_line(self, y: int) -> Strip:
        self._rewrap(self.scrollable_content_region.width)
        index = round(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, style)
        if self._stops[index] > self._furthest_word:
            self._furthest_word = self._stops[index]
        text = self._cache.get(index)
        if text is None:
            start, stop = self._lines[index]
            text = " ".join(self._words[start:stop])
            self._cache[index] = text
        return Strip([Segment(text, style)], cell_len(text)).adjust_cell_length(width, style or Style())
