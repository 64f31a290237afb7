"""The shape of every "read this, then press a key to go on" screen of a session (break, feedback, end).

Keys are ignored for ``guard_s`` after the screen was created, so the key that answered the last trial (held, or
pressed twice) cannot skip what the screen says; after that one of ``CONTINUE_KEYS`` continues, once. The screen
only says so, with a :class:`~benchlab.tui.screens.step_done.StepDone` message; the session flow decides what
continuing means. While the terminal is too small for the whole text the screen pauses (see ``size_guard``) and
the guard starts again when it shows.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.geometry import Size
from textual.widgets import Static

from benchlab.tui.screens.size_guard import MIN_WIDTH, SizeGuardedScreen, box_rows
from benchlab.tui.screens.step_done import StepDone
from benchlab.tui.textual_private import get_time
from benchlab.tui.widgets.session_progress import SessionProgress


class ContinueScreen(SizeGuardedScreen):
    """Subclasses compose the text (and their hint naming the key) and may narrow ``CONTINUE_KEYS``."""

    CONTINUE_KEYS: ClassVar[tuple[str, ...]] = ("space", "enter")
    #: The default guard; the session passes its own (tests: 0).
    GUARD_S: ClassVar[float] = 1.0

    def __init__(self, *, guard_s: float | None = None) -> None:
        super().__init__()
        self.guard_s = self.GUARD_S if guard_s is None else guard_s
        self._shown_at = get_time()
        self._done = False

    def needed_size(self, width: int) -> Size:
        """The progress line (if any) and every text of the screen (its ``#center`` statics), whole."""
        width = max(width, MIN_WIDTH)
        parts = [*self.query(SessionProgress), *self.query("#center > Static").results(Static)]
        return Size(MIN_WIDTH, sum(box_rows(part, width) for part in parts))

    def size_resumed(self) -> None:
        self._shown_at = get_time()  # the text was hidden: a key pressed as it comes back must not skip it

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if self.too_small_now():
            return
        if self._done or event.key not in self.CONTINUE_KEYS or event.time - self._shown_at < self.guard_s:
            return
        self._done = True
        self.post_message(StepDone(self))
