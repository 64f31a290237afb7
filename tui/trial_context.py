"""What the session gives every trial screen, and what the session reads back from the screen on show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from benchlab.annotations.session_runner import ResponseTiming
from benchlab.tui.key_debounce import KeyDebounce

AnswerCallback = Callable[[str, ResponseTiming], None]


@dataclass(frozen=True)
class TrialContext:
    """What the session gives every trial screen: the progress line, the answer callback, the key debouncer."""

    label: str
    done: int
    total: int
    on_answer: AnswerCallback
    debounce: KeyDebounce


@runtime_checkable
class TimedTrial(Protocol):
    """A trial screen's stimulus times (Textual's monotonic clock), which the session reads when the experimenter
    skips or interrupts a trial. ``first_onset_mono``: when the trial first showed anything (the excerpt of a SORT
    STM trial, else the question)."""

    @property
    def onset_mono(self) -> float | None: ...

    @property
    def requested_mono(self) -> float | None: ...

    @property
    def first_onset_mono(self) -> float | None: ...


@runtime_checkable
class OnsetHooked(Protocol):
    """A screen that wants to know when a frame showing its stimulus is written to the terminal (see
    ``BenchlabApp._display``): ``onset_hook()`` returns the callback for what the next frame shows, or ``None``."""

    def onset_hook(self) -> Callable[[float], None] | None: ...
