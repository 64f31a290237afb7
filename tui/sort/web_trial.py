"""A SORT trial on the native web page: (STM) read the passage, (optional) wait, then say which segment came first;
the whole-book LTM design and every LTM trial show the question only.

Validity rules the terminal screen gets from being one process, made explicit for a page that can be reloaded:

* once the question has been shown (or the delay began), the passage is never shown again: a reconnect during the
  delay or the question goes to the question;
* the reading time adds up over the visits of the passage (a reload while reading shows it again, and counts
  only time it was on screen); the minimum and maximum reading times count the same total;
* the seen share is the furthest part of the passage scrolled into view over all visits; as in the terminal,
  Continue waits until the plan's ``min_seen_share`` of it has been on screen (the page's button stays disabled and
  says why; the server refuses an earlier continue), unless the maximum reading time ran out.

Keys: Enter continues after reading; A / B or Left / Right answer; taps and clicks on the big buttons do the same.
"""

from __future__ import annotations

import dataclasses
from html import escape

from benchlab.annotations.session.plan import PlannedStep
from benchlab.annotations.session.runner import ResponseTiming, SessionRunner
from benchlab.annotations.sort.session import SortTaskSession, SortTiming
from benchlab.data.errors import BenchlabError
from benchlab.data.sort.records import BookSortRecord
from benchlab.tui.web.choice_web import answer_buttons
from benchlab.tui.web.markup import plain
from benchlab.tui.web.web_trials import Stamp, WebView

ANSWER_KEYS = {"a": "A", "b": "B", "arrowleft": "A", "arrowright": "B"}


@dataclasses.dataclass(frozen=True)
class WebSortTiming(SortTiming):
    """SORT timing from the web page: ``reading_ms`` is the total time the passage was on screen over every visit
    (``continue_mono - excerpt_onset_mono`` would count the time away after a reload)."""

    reading_total_ms: float | None = None

    @property
    def reading_ms(self) -> float | None:
        return None if self.reading_total_ms is None else round(self.reading_total_ms, 3)


class SortWebTrial:
    """The phases of one SORT trial and what they add up to (see the module docstring)."""

    def __init__(self, record: BookSortRecord, *, condition: str, delay_s: float = 0.0, min_reading_s: float = 0.0,
                 max_reading_s: float | None = None, min_seen_share: float = 0.0) -> None:
        self.record = record
        self.condition = condition
        self.delay_ms = delay_s * 1000.0
        self.min_ms = min_reading_s * 1000.0
        self.max_ms = None if max_reading_s is None else max_reading_s * 1000.0
        self.min_seen = min(1.0, max(0.0, min_seen_share))
        self.phase = "reading" if condition == "stm" else "question"
        self.reading_total_ms = 0.0
        self.excerpt_onset_mono: float | None = None
        self.continue_mono: float | None = None
        self.timed_out = False
        self.seen_share: float | None = None
        self.reading_visits = 0

    # -- views ---------------------------------------------------------------------------------------------

    def view(self) -> WebView:
        title = escape(self.record.book_title)
        if self.phase == "reading":
            button = ("<div class=actions><button type=button class=primary data-act=continue "
                      "aria-keyshortcuts=Enter>I have finished reading <span class=key aria-hidden=true>Enter"
                      "</span></button></div>")
            html = (f"<p class=intro>Read this passage from <strong>{title}</strong>. Afterwards you will see two "
                    "short segments from it and say which one came first.</p>"
                    f"<div class=passage id=scroll-track tabindex=0 aria-label=\"Passage\">"
                    f"{plain(self.record.excerpt_text)}</div>{self._seen_hint()}{button}")
            remaining_min = max(0.0, self.min_ms - self.reading_total_ms)
            remaining_max = None if self.max_ms is None else max(1.0, self.max_ms - self.reading_total_ms)
            return WebView("reading", html, {"enter": ("continue", "")}, min_ms=remaining_min, max_ms=remaining_max,
                           track_scroll=True, min_seen=self.min_seen)
        if self.phase == "delay":
            return WebView("delay", "<p class=wait>The question follows in a moment.</p>", auto_ms=self.delay_ms)
        where = "in the passage you just read" if self.condition == "stm" else f"in <strong>{title}</strong>"
        seg_a, seg_b = self.record.option_texts()
        boxes = "".join(f"<section class=segment aria-label=\"Segment {k}\"><h2>Segment {k}</h2>{plain(t)}</section>"
                        for k, t in (("A", seg_a), ("B", seg_b)))
        buttons = answer_buttons([("A", "A", "Segment A came first"), ("B", "B", "Segment B came first")])
        html = (f"<div class=stimulus id=question><p class=ask>Which segment appeared <strong>first</strong> "
                f"{where}?</p><div class=segments>{boxes}</div></div>{buttons}")
        return WebView("question", html, {k: ("answer", v) for k, v in ANSWER_KEYS.items()}, answers=True)

    def _seen_hint(self) -> str:
        """The line the page shows while Continue waits for the passage to be seen (hidden until then)."""
        if self.min_seen <= 0:
            return ""
        what = "the whole passage" if self.min_seen >= 1.0 else "the passage"
        return (f"<p class=hint id=seen-hint aria-live=polite hidden>Please read {what} first: scroll down to "
                "see the rest of it.</p>")

    # -- phase changes -------------------------------------------------------------------------------------

    def _read(self, stamp: Stamp) -> None:
        if self.excerpt_onset_mono is None:
            self.excerpt_onset_mono = stamp.onset_mono
        length = stamp.client_ms if stamp.client_ms is not None else stamp.server_ms
        self.reading_total_ms += length or 0.0
        self.reading_visits += 1
        if stamp.seen_share is not None:
            self.seen_share = max(self.seen_share or 0.0, min(1.0, max(0.0, stamp.seen_share)))

    def proceed(self, stamp: Stamp) -> None:
        if self.phase == "reading":
            self._read(stamp)
            self.continue_mono = stamp.end_mono
            self.timed_out = stamp.timed_out
            self.phase = "delay" if self.delay_ms > 0 else "question"
        elif self.phase == "delay":
            self.phase = "question"

    def left(self, stamp: Stamp) -> None:
        if self.phase == "reading":
            if stamp.onset_mono is not None:  # it was on screen: that time counts
                self._read(stamp)
        elif self.phase == "delay":
            self.phase = "question"  # never back to the passage

    def timing(self, base: ResponseTiming) -> ResponseTiming:
        fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
        stm = self.condition == "stm"
        return WebSortTiming(**fields, excerpt_onset_mono=self.excerpt_onset_mono, continue_mono=self.continue_mono,
                             reading_timed_out=self.timed_out,
                             seen_share=None if not stm else round(self.seen_share or 0.0, 4),
                             reading_total_ms=self.reading_total_ms if stm and self.reading_visits else None)


def sort_web_trial(runner: SessionRunner, step: PlannedStep) -> SortWebTrial:
    """The ``sort`` kind's web renderer, with the condition and times saved in the session's plan."""
    task = runner.task_session
    if not isinstance(task, SortTaskSession):
        raise BenchlabError(f"task {task.name} is not a SORT session")
    config = runner.plan.config
    return SortWebTrial(
        task.trial(step.item_id), condition=str(config.get("condition", "stm")),
        delay_s=float(config.get("delay_s") or 0.0), min_reading_s=float(config.get("min_reading_s") or 0.0),
        max_reading_s=float(config["max_reading_s"]) if config.get("max_reading_s") is not None else None,
        min_seen_share=float(config.get("min_seen_share") or 0.0))  # absent in older plans: none, as the terminal
