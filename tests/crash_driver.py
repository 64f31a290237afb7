"""Test-only driver: ``benchlab`` with a trial screen that raises on the first key of a given question.

Run as ``python tests/crash_driver.py <benchlab args>`` in a child process (so the product has no crash switch).
``CRASH_DRIVER_AFTER``: how many trials are answered before the crash; ``CRASH_DRIVER_SECRET``: a string the
raising handler holds in a local variable (it must appear neither in the crash report nor on the terminal).
"""

from __future__ import annotations

import os
import sys

from textual import events

from benchlab.tui import cli
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen

_original_on_key = ChoiceTrialScreen.on_key
_answered = 0


def _on_key(self: ChoiceTrialScreen, event: events.Key) -> None:
    global _answered
    if _answered >= int(os.environ["CRASH_DRIVER_AFTER"]):
        participant_answer = os.environ["CRASH_DRIVER_SECRET"]  # a local a rich traceback would print
        raise RuntimeError(f"planted crash on key {event.key!r} ({len(participant_answer)} chars held)")
    was_answered = self.answered
    _original_on_key(self, event)
    if self.answered and not was_answered:
        _answered += 1


ChoiceTrialScreen.on_key = _on_key  # type: ignore[method-assign]

if __name__ == "__main__":
    cli.main(sys.argv[1:])
