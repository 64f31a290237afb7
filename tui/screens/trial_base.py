"""What every trial screen shares: stimulus onsets, the response's time, key debouncing and the mouse rule.

Timing follows the anchors notes (section 6). A stimulus's onset is stamped right after the first frame that shows
it has been handed to the terminal writer (the app's frame clock calls back from the writer thread; see
:meth:`TrialScreen.onset_hook`); where no frame is written (headless runs) a ``call_after_refresh`` stamp is the
fallback, and it is kept as an audit stamp. A response's time is the input event's own ``time`` (set by Textual's
input thread). Both are on Textual's monotonic clock and RT is their difference; ``benchlab timing-check``
measures both. Written once, so that the choice trial and a task's own trial screens (an excerpt, then a question)
cannot drift apart on how a response time is measured.

A trial screen pauses while the terminal is too small to show its stimulus whole
(:class:`~benchlab.tui.screens.size_guard.SizeGuardedScreen`): no key or click is an answer then, and when the
stimulus is whole again its onset restarts (a new :class:`Onset`, stamped by the next frame write as above), like
after the experimenter menu's Continue: the record gets ``interrupted`` and the trial's first onset.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import partial

from textual import events
from textual.widgets import Button

from benchlab.annotations.session.runner import ResponseTiming, wall_clock_now
from benchlab.tui.frame_clock import FlushCallback
from benchlab.tui.screens.size_guard import SizeGuardedScreen
from benchlab.tui.textual_private import get_time
from benchlab.tui.trial_context import TrialContext
from benchlab.tui.widgets.option_button import OptionButton

#: ``onset_source`` values in the records: the frame's write to the terminal, or the headless fallback.
FRAME_WRITTEN = "frame_written"
AFTER_REFRESH = "after_refresh"


class Onset:
    """When one stimulus (a question, an excerpt to read) came on screen, and how that moment was stamped."""

    __slots__ = ("after_refresh_mono", "mark", "mono", "replaced", "source")

    def __init__(self) -> None:
        self.mono: float | None = None
        self.source = ""
        self.after_refresh_mono: float | None = None
        #: Web sessions: the onset marker written after the frame that showed it (the page reports its paint).
        self.mark: str | None = None
        #: A size pause replaced it with a fresh onset: a late stamp must not count.
        self.replaced = False

    def fresh(self) -> Onset:
        """A new onset for the same stimulus shown again; this one is marked replaced."""
        self.replaced = True
        return Onset()

    @property
    def frame_stamped(self) -> bool:
        """A frame write stamped it: final (an after-refresh stamp may still be replaced by the frame's write)."""
        return self.source == FRAME_WRITTEN


class TrialScreen(SizeGuardedScreen):
    """A screen showing one trial: the session engine and the app read its onsets through this class only.

    Subclasses compose the stimulus, set :attr:`answer_keys`, and (when they show more than one stimulus, e.g.
    an excerpt before the question) override :meth:`showing`, :meth:`on_trial_key`, :meth:`accepting_answers`,
    :meth:`trial_first_onset`, :meth:`response_timing` and the size pause hooks (:meth:`restart_onset`,
    :meth:`restamp`). :attr:`question` is the stimulus the answer responds to.
    """

    def __init__(self, context: TrialContext) -> None:
        super().__init__()
        self.context = context
        self.debounce = context.debounce
        #: The stimulus was asked for (screen created); brackets the onset in timing audits.
        self.requested_mono: float | None = get_time()
        self.question = Onset()
        #: Key -> the option it answers; nothing else is a response.
        self.answer_keys: Mapping[str, str] = {}
        self.ignored_keys = 0
        self.answered = False
        #: The terminal got too small while (part of) the trial was on screen; its first onset is kept.
        self.size_interrupted = False
        self._kept_first_onset: float | None = None

    # -- onsets ---------------------------------------------------------------------------------------------

    @property
    def onset_mono(self) -> float | None:
        """The onset of the stimulus the answer responds to (RT = response - this)."""
        return self.question.mono

    @property
    def onset_source(self) -> str:
        return self.question.source

    @property
    def first_onset_mono(self) -> float | None:
        """When this trial was first on screen (kept for a trial the experimenter menu or a resize interrupts)."""
        return self._kept_first_onset if self._kept_first_onset is not None else self.trial_first_onset()

    def trial_first_onset(self) -> float | None:
        """The onset of the trial's first stimulus as stamped now (with an excerpt first: the excerpt's)."""
        return self.question.mono

    def showing(self) -> Onset | None:
        """The stimulus the frame being queued now shows (``None``: no onset to stamp, e.g. a delay screen)."""
        return self.question

    def onset_hook(self) -> FlushCallback | None:
        """The app asks this as each frame is queued: until a frame has stamped the stimulus on screen, that frame's
        write is its onset. Asked on the main thread; the callback runs on the writer thread."""
        onset = None if self.answered or self.too_small else self.showing()
        if onset is None or onset.frame_stamped:
            return None
        return partial(self._frame_written, onset)

    def _frame_written(self, onset: Onset, when: float) -> None:
        # Also replaces an after_refresh stamp taken while the first frame was still held back (app start-up).
        if not onset.frame_stamped and not self.answered:
            onset.mono, onset.source = when, FRAME_WRITTEN

    def stamp_after_refresh(self, onset: Onset) -> None:
        """Fallback onset where no frame is written (headless runs); also kept as an audit stamp.
        Call it through ``call_after_refresh`` once the stimulus is on the screen."""
        if self.too_small or onset.replaced:
            return  # hidden (the resume stamps it), or an onset the size pause has replaced
        now = get_time()
        onset.after_refresh_mono = now
        if onset.mono is None:
            onset.mono, onset.source = now, AFTER_REFRESH

    # -- the size pause ---------------------------------------------------------------------------------------

    def size_paused(self) -> None:
        first = self.first_onset_mono
        if first is not None and not self.answered:
            self.size_interrupted = True
            self._kept_first_onset = first
        self.restart_onset()

    def size_resumed(self) -> None:
        self.call_after_refresh(self.restamp)

    def restart_onset(self) -> None:
        """The stimulus on screen gets a new, unstamped onset (a pending frame stamp goes to the old one)."""
        self.question = self.question.fresh()

    def restamp(self) -> None:
        """After the pause: the fallback stamp of the stimulus shown again (the frame's write stamps it first)."""
        onset = self.showing()
        if onset is not None:
            self.stamp_after_refresh(onset)

    def interruption(self) -> tuple[bool, float | None]:
        """``(interrupted, first onset)`` for the record: whether a size pause interrupted this trial."""
        return self.size_interrupted, self._kept_first_onset if self.size_interrupted else None

    # -- responses ------------------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        # Every key stops here: the trial screen is the only place keys mean anything (no focus moves, no escape).
        event.stop()
        event.prevent_default()
        if self.too_small_now():
            self.debounce.is_repeat(event.key, event.time)  # still seen, so a held key stays held
            if self.first_onset_mono is not None and not self.answered:
                self.ignored_keys += 1
            return
        self.on_trial_key(event)

    def on_trial_key(self, event: events.Key) -> None:
        """Screens with phases before the answer handle those here and call :meth:`answer_key` for the answer."""
        self.answer_key(event.key, event.time)

    def answer_key(self, key: str, when: float) -> None:
        """A key is an answer when it is an answer key, the stimulus is on, and the debouncer accepts it; every other
        press after onset is counted in the record (``ignored_keys``), never silently lost. In a web session a key
        the page stamped must also be later than the page's paint of the stimulus (a key pressed before the page
        showed it does not count, however late its bytes reached the app)."""
        if self.answered:
            self.debounce.is_repeat(key, when)  # still seen, so a key held into the next trial counts as held
            return
        if not self._after_page_onset(when):
            self.debounce.is_repeat(key, when)
            if self.onset_mono is not None:
                self.ignored_keys += 1
            return
        accepted = self.debounce.accepts(key, when, self.onset_mono)
        if key not in self.answer_keys or not accepted:
            if self.onset_mono is not None:
                self.ignored_keys += 1
            return
        self._answer(self.answer_keys[key], when, "key")

    def _after_page_onset(self, when: float) -> bool:
        """Whether the page pressed the key (created at ``when``) after it painted the stimulus (``True`` when
        there is no page stamp: terminal sessions, clicks)."""
        client = self.context.client
        stamp = client.key_stamp(when) if client is not None else None
        if client is None or stamp is None:
            return True
        painted = client.onset_ms(self.question.mark)
        return painted is not None and stamp.page_ms > painted

    def client_timing(self, timing: ResponseTiming, when: float) -> ResponseTiming:
        """``timing`` plus the page's own stamps of the stimulus and of the answer's key (web sessions)."""
        client = self.context.client
        if client is None:
            return timing
        stamp = client.key_stamp(when)
        onset = client.onset_ms(self.question.mark)
        key_ms = stamp.page_ms if stamp is not None else None
        rt = round(key_ms - onset, 3) if key_ms is not None and onset is not None else None
        return dataclasses.replace(timing, client_rt_ms=rt, client_onset_ms=onset, client_key_ms=key_ms,
                                   client_clock_offset_ms=client.clock_offset_ms)

    def accepting_answers(self) -> bool:
        """Whether a click on an answer button may answer now (a phased screen: only in its answer phase)."""
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A click answers when it comes after the onset, timed by the click event's own time."""
        event.stop()
        if self.answered or self.too_small_now() or not self.accepting_answers():
            return
        clicked = OptionButton.clicked_answer(event, self.onset_mono)
        if clicked is not None:
            self._answer(*clicked, "mouse")

    def response_timing(self, when: float, source: str) -> ResponseTiming:
        """The record's timing for an answer given at ``when`` by ``source`` (key, mouse)."""
        interrupted, first = self.interruption()
        return ResponseTiming(
            onset_mono=self.onset_mono, response_mono=when, wall_clock=wall_clock_now(),
            requested_mono=self.requested_mono, handler_mono=get_time(), input=source,
            ignored_keys=self.ignored_keys, onset_source=self.onset_source, interrupted=interrupted,
            first_onset_mono=first,
        )

    def _answer(self, option: str, when: float, source: str) -> None:
        self.answered = True
        # A direct call, not a Message: the answer must be recorded (fsynced) in this very handler, before any event
        # already queued (the next key, the experimenter's skip/end chord) runs and before the next screen shows; a
        # posted Message would run after those and could record an answer against the wrong trial.
        self.context.on_answer(option, self.client_timing(self.response_timing(when, source), when))
