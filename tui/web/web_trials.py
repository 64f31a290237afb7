"""Which web renderer shows a trial, by the task's ``trial_kind``: the ``benchlab.web_trials`` entry-point group,
loaded like ``benchlab.trial_screens`` (:mod:`benchlab.tui.trial_screens`), so this module names no benchmark::

    [project.entry-points."benchlab.web_trials"]
    rating-scale = "my_package.rating_web:rating_web_trial"

An entry is a factory ``(runner, step) -> WebTrial``. A trial kind without one (a plug-in that declares only a
terminal screen) is served by the terminal-in-browser page (one app process per participant), as before.

A :class:`WebTrial` is a small state machine over *views*: the server asks for :meth:`WebTrial.view`, shows it,
and tells the trial when the page continued (:meth:`WebTrial.proceed`), left the page mid-view
(:meth:`WebTrial.left`), or answered (:meth:`WebTrial.timing` builds the record's timing). The engine
(:mod:`benchlab.tui.web.engine`) owns onsets, client stamps, interruptions and fsync; a trial only says what is on
screen and what its timing record holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol, TypeAlias, runtime_checkable

from benchlab.annotations.plugins import Entry, GroupReport, load_group, name_problem, remember
from benchlab.annotations.session.plan import PlannedStep
from benchlab.annotations.session.runner import ResponseTiming, SessionRunner

ENTRY_POINT_GROUP = "benchlab.web_trials"


@dataclass(frozen=True)
class WebView:
    """One view of a trial. ``html`` is a fragment built with :mod:`benchlab.tui.web.markup` (escaped); buttons in
    it carry ``data-act`` (``answer``/``continue``) and ``data-value``. ``keys`` maps a key (``KeyboardEvent.key``,
    lower case) to an action and value. ``phase`` names the view (``question``, ``reading``, ``delay``...)."""

    phase: str
    html: str
    keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: The answer view: its onset is the trial's, answers are taken only here.
    answers: bool = False
    #: The page may continue only after this long (ms from onset): a minimum reading time.
    min_ms: float = 0.0
    #: The page continues by itself after this long (ms from onset), marked as timed out: a maximum reading time.
    max_ms: float | None = None
    #: The server moves on by itself after this long (ms): a delay screen (no input).
    auto_ms: float | None = None
    #: The page reports how far the element ``#scroll-track`` was scrolled (seen share, 0-1).
    track_scroll: bool = False
    #: The page may continue only once this share of ``#scroll-track`` has been on screen (SORT's
    #: ``min_seen_share``, as the terminal's Enter waits for it); the server refuses an earlier continue.
    min_seen: float = 0.0


@dataclass(frozen=True)
class Stamp:
    """One visit of a view: its onset and end, on the server's monotonic clock (s) and the page's clock (ms)."""

    onset_mono: float | None
    end_mono: float | None
    client_onset_ms: float | None = None
    client_end_ms: float | None = None
    timed_out: bool = False
    seen_share: float | None = None

    @property
    def client_ms(self) -> float | None:
        """The visit's length on the page's clock (``None`` when it was not ended on the page)."""
        if self.client_onset_ms is None or self.client_end_ms is None:
            return None
        return max(0.0, self.client_end_ms - self.client_onset_ms)

    @property
    def server_ms(self) -> float | None:
        if self.onset_mono is None or self.end_mono is None:
            return None
        return max(0.0, (self.end_mono - self.onset_mono) * 1000.0)


@runtime_checkable
class WebTrial(Protocol):
    """A trial shown as web views (see the module docstring)."""

    def view(self) -> WebView:
        """What to show now (again after a reconnect: a trial may then skip what must not be shown twice)."""
        ...

    def proceed(self, stamp: Stamp) -> None:
        """The current (non-answer) view ended: by the page's continue, its maximum time or the server's delay."""
        ...

    def left(self, stamp: Stamp) -> None:
        """The page went away during the current view (it is shown again, or the next one, on reconnect)."""
        ...

    def timing(self, base: ResponseTiming) -> ResponseTiming:
        """The answer's timing: ``base`` (the engine's stamps of the answer view) plus the trial's own fields."""
        ...


WebTrialFactory: TypeAlias = Callable[[SessionRunner, PlannedStep], WebTrial]


def _problem(entry: Entry, obj: Any) -> str | None:
    if not callable(obj):
        return f"{type(obj).__name__} is not a web trial factory: it is not callable as (runner, step)"
    return name_problem(entry.name, "trial kind")


@cache
def _loaded() -> tuple[GroupReport, dict[str, WebTrialFactory]]:
    report = remember(load_group(ENTRY_POINT_GROUP, _problem))
    kept = report.refuse_clashes("trial kind", lambda entry, _: entry.name)
    return report, {entry.name: factory for entry, factory in kept}


def web_trial_report() -> GroupReport:
    """What the ``benchlab.web_trials`` group gave (for ``benchlab plugins``)."""
    return _loaded()[0]


def has_web_trial(kind: str) -> bool:
    """Whether trials of ``kind`` have a native web page (else the terminal-in-browser page serves them)."""
    return kind in _loaded()[1]


def register_web_trial(kind: str, factory: WebTrialFactory) -> None:
    """Show trials of ``kind`` with ``factory`` in this process only (tests, notebooks)."""
    factories = _loaded()[1]
    if kind in factories:
        raise ValueError(f"trial kind {kind!r} already has a web renderer")
    factories[kind] = factory


def web_trial(kind: str, runner: SessionRunner, step: PlannedStep) -> WebTrial:
    """The web trial of ``step`` (``KeyError`` when ``kind`` has none: see :func:`has_web_trial`)."""
    return _loaded()[1][kind](runner, step)
