"""What the session gives every trial screen (the screens themselves share :mod:`benchlab.tui.screens.trial_base`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchlab.annotations.session.runner import ResponseTiming
from benchlab.tui.key_debounce import KeyDebounce
from benchlab.tui.web.client import ClientState

AnswerCallback = Callable[[str, ResponseTiming], None]


@dataclass(frozen=True)
class TrialContext:
    """What the session gives every trial screen: the progress line, the answer callback, the key debouncer."""

    label: str
    done: int
    total: int
    on_answer: AnswerCallback
    debounce: KeyDebounce
    #: Web sessions: the page's onset and key stamps (``None`` in the terminal).
    client: ClientState | None = None
