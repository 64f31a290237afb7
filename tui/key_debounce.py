"""Which key presses count as responses: none before onset, none from a held (auto-repeating) key.

Terminals send no key-up events, and a key held down repeats about every 30-50 ms after a 250-600 ms delay, so a
press of the same key shortly after the previous one is treated as a repeat, and presses faster than a minimum
response time after onset are ignored (the leftovers of the previous answer; jsPsych's ``allow_held_key=false``
and ``minimum_valid_rt``). Ignored presses are counted in the record, never silently lost.
"""

from __future__ import annotations


class KeyDebounce:
    """Shared by all trials of a session, so a key held across a trial change is still seen as held."""

    def __init__(self, repeat_window_s: float = 0.12, min_rt_s: float = 0.15) -> None:
        self.repeat_window_s = repeat_window_s
        self.min_rt_s = min_rt_s
        self._last: dict[str, float] = {}

    def is_repeat(self, key: str, when: float) -> bool:
        """Record a press and say whether it continues a run of the same key (an auto-repeat)."""
        previous = self._last.get(key)
        self._last[key] = when
        return previous is not None and 0 <= when - previous < self.repeat_window_s

    def accepts(self, key: str, when: float, onset: float | None) -> bool:
        """A press is a response when the stimulus is on, the press is not a repeat and not implausibly fast."""
        repeat = self.is_repeat(key, when)
        if onset is None or when < onset:
            return False
        return not repeat and when - onset >= self.min_rt_s
