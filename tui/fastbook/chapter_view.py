"""The chapter text a curator selects contexts from: read-only, scrollable, with marked spans.

A read-only ``TextArea`` gives keyboard (shift+arrows) and mouse selection for free; we only add marks
(the current question's contexts, the one in focus, search hits, chunk starts) drawn in ``get_line`` so the
stored context is always the exact substring under the selection, never retyped.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from benchlab.annotations.fastbook.text_units import Unit, extended

MARK_CLASSES = ("context", "context-warn", "current", "search", "chunk-start")


class ChapterView(TextArea):
    """Chapter text with marks given as character offsets ``(start, end, kind)``; kinds are in MARK_CLASSES."""

    DEFAULT_CSS = (Path(__file__).with_suffix(".tcss")).read_text(encoding="utf-8")
    COMPONENT_CLASSES = TextArea.COMPONENT_CLASSES | {f"chapter-view--{kind}" for kind in MARK_CLASSES}
    BINDINGS = [
        Binding("W", "select_unit('word')", "Word", tooltip="Select the word at the cursor; again: add the next"),
        Binding("S", "select_unit('sentence')", "Sentence", tooltip="Select the sentence; again: add the next"),
        Binding("P", "select_unit('paragraph')", "Paragraph", tooltip="Select the paragraph; again: the next"),
    ]
    #: What a double, triple and quadruple click selects.
    CLICK_UNITS: dict[int, Unit] = {2: "word", 3: "sentence", 4: "paragraph"}

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(text, read_only=True, soft_wrap=True, show_line_numbers=True, id=id)
        self._line_starts: list[int] = [0]
        self._marks_by_line: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
        self._index_lines(text)

    def set_chapter(self, text: str) -> None:
        """Show another chapter (marks are cleared)."""
        self.load_text(text)
        self._index_lines(text)
        self.set_marks(())

    def _index_lines(self, text: str) -> None:
        starts = [0]
        pos = text.find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = text.find("\n", pos + 1)
        self._line_starts = starts

    def location_of(self, index: int) -> tuple[int, int]:
        """(row, column) of a character offset into the chapter text."""
        row = bisect.bisect_right(self._line_starts, index) - 1
        return row, index - self._line_starts[row]

    def index_of(self, location: tuple[int, int]) -> int:
        row, column = location
        return self._line_starts[row] + column

    def selected_span(self) -> tuple[int, int]:
        """The selection as ``(start, end)`` character offsets (equal when nothing is selected)."""
        start, end = sorted(self.selection)
        return self.index_of(start), self.index_of(end)

    def select_span(self, start: int, end: int) -> None:
        """Select ``text[start:end]`` (cursor at its end, so shift+arrows extend it) and scroll its start into view."""
        self.selection = Selection(self.location_of(start), self.location_of(end))
        self.scroll_to_span(start, end)

    def action_select_unit(self, unit: Unit) -> None:
        """Select the word, sentence or paragraph at the cursor; pressed again, add the next one."""
        start, end = self.selected_span()
        if start == end:
            start = end = self.index_of(self.cursor_location)
        new_start, new_end = extended(self.text, start, end, unit)
        self.selection = Selection(self.location_of(new_start), self.location_of(new_end))

    async def _on_click(self, event: events.Click) -> None:
        """Double click: the word; triple: the sentence; four clicks: the paragraph (at the clicked place)."""
        unit = self.CLICK_UNITS.get(min(event.chain, 4))
        if unit is None:
            return
        index = self.index_of(self.cursor_location)
        self.selection = Selection(self.location_of(index), self.location_of(index))
        self.action_select_unit(unit)

    def scroll_to_span(self, start: int, end: int) -> None:
        """Bring ``text[start:end]`` into view without touching the selection (the curator may be mid-select)."""
        offset = self.wrapped_document.location_to_offset(self.location_of(start))
        self.scroll_to(y=max(0, offset.y - self.scrollable_content_region.height // 3), animate=False)

    def set_marks(self, marks: Iterable[tuple[int, int, str]]) -> None:
        """Replace all marks; a mark spanning lines is split per line."""
        by_line: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
        for start, end, kind in marks:
            if end <= start:
                continue
            first_row, first_col = self.location_of(start)
            last_row, last_col = self.location_of(end)
            for row in range(first_row, last_row + 1):
                col_start = first_col if row == first_row else 0
                col_end = last_col if row == last_row else -1
                by_line[row].append((col_start, col_end, kind))
        if by_line == self._marks_by_line:
            return  # nothing to redraw (e.g. after a flag edit): re-rendering 100k chars of text is not free
        self._marks_by_line = by_line
        self._line_cache.clear()
        self.refresh()

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        marks = self._marks_by_line.get(line_index)
        if marks:
            # Later kinds in MARK_CLASSES win, so "current" shows over "context".
            for start, end, kind in sorted(marks, key=lambda m: MARK_CLASSES.index(m[2])):
                style = self.get_component_rich_style(f"chapter-view--{kind}", partial=True)
                line.stylize(style, start, len(line.plain) if end < 0 else end)
        return line
