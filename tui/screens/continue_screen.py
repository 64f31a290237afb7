"""The shape of every "read this, then press a key to go on" screen of a session (break, feedback, end).

Keys are ignored for ``guard_s`` after the screen was created, so the key that answered the last trial (held, or
pressed twice) cannot skip what the screen says; after that one of ``CONTINUE_KEYS`` continues, once. The screen
only says so, with a :class:`~benchlab.tui.screens.step_done.StepDone` message; the session flow decides what
continuing means.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual._time import get_time
from textual.screen import Screen

from benchlab.tui.screens.step_done import StepDone


class ContinueScreen(Screen[None]):
    """Subclasses compose the text (and their hint naming the key) and may narrow ``CONTINUE_KEYS``."""

    CONTINUE_KEYS: ClassVar[tuple[str, ...]] = ("space", "enter")
    #: The default guard; the session passes its own (tests: 0).
    GUARD_S: ClassVar[float] = 1.0

    def __init__(self, *, guard_s: float | None = None) -> None:
        super().__init__()
        self.guard_s = self.GUARD_S if guard_s is None else guard_s
        self._shown_at = get_time()
        self._done = False

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if self._done or event.key not in self.CONTINUE_KEYS or event.time - self._shown_at < self.guard_s:
            return
        self._done = True
        self.post_message(StepDone(self))
