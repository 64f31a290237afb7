"""One SORT trial: (STM) read the excerpt, (optional) wait, then say which of two segments came first.

All phases live on one screen and are switched in place (a ``ContentSwitcher``), so the question appears without
building a new screen. The two onsets (the excerpt's and the question's) are stamped by the shared
:class:`~benchlab.tui.screens.trial_base.TrialScreen` rules (the write of the first frame showing each; after
refresh where no frame is written); the continue key's and the answer key's own event times are on the same
monotonic clock. The reading time and the furthest part of the excerpt that was on screen (share of its lines)
are recorded with the answer. Segment A is ``segment_1`` exactly when ``present_seg1_first`` is 1. Keys: Enter
continues after reading; A / B or Left / Right answer; a click on a segment's button answers too. Nothing else
does anything (kiosk), and Escape is never used.

Minimum size (:meth:`SortTrialScreen.needed_size`): reading needs the intro, an excerpt box of
:data:`~benchlab.tui.screens.size_guard.MIN_TEXT_ROWS` rows and the continue prompt; the question needs its text and
both segments whole with their buttons. Below it the trial pauses (see ``size_guard``); when the excerpt shows
again its onset restarts, so ``reading_ms`` (continue minus excerpt onset) counts only time with the excerpt on
screen, as after the experimenter menu's Continue; the minimum and maximum reading times restart with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.containers import Grid, Vertical
from textual.geometry import Size
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from benchlab.annotations.session.plan import PlannedStep
from benchlab.annotations.session.runner import SessionRunner, wall_clock_now
from benchlab.annotations.sort.session import SortTaskSession, SortTiming
from benchlab.data.errors import BenchlabError
from benchlab.data.sort.records import BookSortRecord
from benchlab.tui.screens.size_guard import MIN_TEXT_ROWS, MIN_WIDTH, box_rows, box_width, button_row
from benchlab.tui.screens.trial_base import Onset, TrialScreen
from benchlab.tui.sort.excerpt_view import ExcerptView
from benchlab.tui.textual_private import get_time
from benchlab.tui.trial_context import TrialContext
from benchlab.tui.widgets.option_button import OptionButton
from benchlab.tui.widgets.session_progress import SessionProgress

ANSWER_KEYS = {"a": "A", "b": "B", "left": "A", "right": "B"}
CONTINUE_KEY = "enter"
SCROLL_KEYS = ("up", "down", "pageup", "pagedown", "home", "end")


@dataclass(frozen=True)
class SortTrialSettings:
    """How the trial runs: condition and the reading/delay times (seconds) from the session plan."""

    condition: str = "stm"
    delay_s: float = 0.0
    min_reading_s: float = 0.0
    max_reading_s: float | None = None
    #: Share of the excerpt's lines seen before Enter continues (plans saved before it existed: none required).
    min_seen_share: float = 0.0


class SortTrialScreen(TrialScreen):
    """Two stimuli: the excerpt (STM only; first on screen) and the question (the one answered, ``question``)."""

    CSS_PATH = "trial_screen.tcss"

    def __init__(self, record: BookSortRecord, context: TrialContext, settings: SortTrialSettings) -> None:
        super().__init__(context)
        self.record = record
        self.settings = settings
        self.answer_keys = ANSWER_KEYS
        self.segment_a, self.segment_b = record.option_texts()
        self.phase = "reading" if settings.condition == "stm" else "question"
        self.requested_mono = None  # set when mounted
        self.excerpt = Onset()
        self.continue_mono: float | None = None
        self.question_requested_mono: float | None = None
        self.reading_timed_out = False
        self._tick: Timer | None = None
        self._max_timer: Timer | None = None
        self._question_building = False
        self._question_ready = settings.condition != "stm"
        self._question_waiting = False

    # -- layout ---------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        title = self.record.book_title
        yield SessionProgress(self.context.label, self.context.done, self.context.total)
        with ContentSwitcher(initial=self.phase, id="phases"):
            if self.settings.condition == "stm":
                with Vertical(id="reading"):
                    yield Static(f"Read this passage from [b]{_escape(title)}[/b]. Afterwards you will see two short "
                                 "segments from it and say which one came first.", id="reading-intro")
                    yield ExcerptView(self.record.excerpt_text, id="excerpt")
                    yield Static(self._reading_hint(), id="reading-hint")
                with Vertical(id="delay"):
                    yield Static("The question follows in a moment.", id="delay-text")
            if self.settings.condition == "stm":
                # Built while the participant reads (see _build_question): the first paint stays light.
                yield Vertical(id="question")
            else:
                with Vertical(id="question"):
                    yield from self._question_widgets()

    def _question_widgets(self) -> list[Widget]:
        title = _escape(self.record.book_title)
        where = "in the passage you just read" if self.settings.condition == "stm" else f"in {title}"
        boxes: list[Widget] = []
        buttons: list[Widget] = []
        for label, text in (("A", self.segment_a), ("B", self.segment_b)):
            arrow = "←" if label == "A" else "→"
            boxes.append(Vertical(
                Static(f"Segment {label}", classes="segment-label"),
                Static(text, classes="segment-text", markup=False),
                classes="segment", id=f"segment-{label.lower()}",
            ))
            buttons.append(OptionButton(f"{label}  (key {label} or {arrow})", label, id=f"option-{label}"))
        # A grid, not two columns: the segments share a row (as tall as the longer one) and the buttons the next
        # row, so the boxes are the same height and the buttons line up however the two texts wrap.
        return [Static(f"Which segment appeared [b]first[/b] {where}?", id="question-text"),
                Grid(*boxes, *buttons, id="segments")]

    def _reading_hint(self, remaining: float = 0.0) -> str:
        scroll = "Scroll with ↑ ↓, Page Up / Page Down or the mouse wheel."
        if remaining > 0:
            return f"{scroll}  You can continue in {remaining:.0f} s."
        return f"{scroll}  Press [b]Enter[/b] when you have finished reading."

    # -- phases ---------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.requested_mono = get_time()
        if self.phase == "reading":
            self.call_after_refresh(self._stamp_excerpt_onset)
        else:
            self.question_requested_mono = self.requested_mono
            self.call_after_refresh(self._stamp_question_onset)

    @property
    def excerpt_onset_mono(self) -> float | None:
        return self.excerpt.mono

    def trial_first_onset(self) -> float | None:
        """The excerpt's onset in STM (the trial starts with reading it), else the question's."""
        return self.excerpt.mono if self.excerpt.mono is not None else self.question.mono

    def showing(self) -> Onset | None:
        """Which onset (if any) the frame being queued would stamp: none during the delay, and none for the question
        until the layout shows it (the first frame after the switch may still be a partial update of the reading
        view: its write is not the question's onset, and a web page must not be told the question is painted)."""
        if self.phase == "reading":
            return self.excerpt
        if self.phase == "question" and self.query_one("#question", Vertical).region:
            return self.question
        return None

    def _stamp_excerpt_onset(self) -> None:
        """The excerpt is on screen: stamp it and start the reading times (again after a size pause)."""
        if self.too_small or self.phase != "reading":
            return  # the resume comes back here
        self.stamp_after_refresh(self.excerpt)
        if not self._question_building:
            self._question_building = True
            self.call_after_refresh(self._build_question)
        self._stop_reading_timers()
        if self.settings.min_reading_s > 0:
            self.query_one("#reading-hint", Static).update(self._reading_hint(self.settings.min_reading_s))
            self._tick = self.set_interval(1.0, self._update_countdown)
        if self.settings.max_reading_s is not None:
            self._max_timer = self.set_timer(self.settings.max_reading_s, self._reading_timeout)

    def _stop_reading_timers(self) -> None:
        for timer in (self._tick, self._max_timer):
            if timer is not None:
                timer.stop()
        self._tick = self._max_timer = None

    def _update_countdown(self) -> None:
        if self.phase != "reading" or self.excerpt_onset_mono is None:
            return
        remaining = self.settings.min_reading_s - (get_time() - self.excerpt_onset_mono)
        self.query_one("#reading-hint", Static).update(self._reading_hint(max(0.0, remaining)))
        if remaining <= 0 and self._tick is not None:
            self._tick.stop()

    def _reading_timeout(self) -> None:
        if self.phase == "reading" and not self.too_small:
            self.reading_timed_out = True
            self._finish_reading(get_time())

    def _finish_reading(self, when: float) -> None:
        self.continue_mono = when
        self._stop_reading_timers()
        if self.settings.delay_s > 0:
            self.phase = "delay"
            self.query_one(ContentSwitcher).current = "delay"
            self.set_timer(self.settings.delay_s, self._show_question)
        else:
            self._show_question()

    async def _build_question(self) -> None:
        await self.query_one("#question", Vertical).mount_all(self._question_widgets())
        self._question_ready = True
        if self._question_waiting:
            self._show_question()

    def _show_question(self) -> None:
        if not self._question_ready:
            self._question_waiting = True  # continued before the question was built (only at machine speed)
            return
        self.phase = "question"
        self.question_requested_mono = get_time()
        self.query_one(ContentSwitcher).current = "question"
        self.check_size()  # the question may need more room than the excerpt did
        self.call_after_refresh(self._stamp_question_onset)

    def _stamp_question_onset(self) -> None:
        self.stamp_after_refresh(self.question)

    # -- the size pause ---------------------------------------------------------------------------------------

    def needed_size(self, width: int) -> Size:
        """Reading: the intro, an excerpt box of ``MIN_TEXT_ROWS`` rows and the continue prompt. Question: its text
        and both segments whole with their buttons. Delay: one line."""
        top = box_rows(self.query_one(SessionProgress), width)
        if self.phase == "reading":
            reading = self.query_one("#reading", Vertical)
            inner = max(width, MIN_WIDTH) - reading.styles.gutter.width
            excerpt = self.query_one(ExcerptView)
            rows = (top + reading.styles.gutter.height + box_rows(self.query_one("#reading-intro", Static), inner)
                    + excerpt.styles.gutter.height + MIN_TEXT_ROWS
                    + box_rows(self.query_one("#reading-hint", Static), inner))
            return Size(MIN_WIDTH, rows)
        if self.phase != "question" or not self._question_ready:
            return Size(MIN_WIDTH, top + 1)
        question = self.query_one("#question", Vertical)
        grid = self.query_one("#segments", Grid)
        gap = grid.styles.grid_gutter_vertical  # Textual's name for the gutter between columns
        boxes = list(self.query(".segment").results(Vertical))
        buttons_width, buttons_rows = button_row(grid.query(OptionButton))
        # Two columns (the boxes, then the buttons under them): each must hold the wider button's label whole.
        column_min = max(buttons_width // 2, max(box.styles.gutter.width for box in boxes) + 1)
        need_width = max(MIN_WIDTH, 2 * column_min + gap + grid.styles.gutter.width + question.styles.gutter.width)
        inner = max(width, need_width) - question.styles.gutter.width
        column = (box_width(grid, inner) - grid.styles.gutter.width - gap) // 2  # the narrower one when odd
        boxes_rows = max(box.styles.gutter.height
                         + sum(box_rows(child, column - box.styles.gutter.width) for child in box.children)
                         for box in boxes)
        rows = (top + question.styles.gutter.height + box_rows(self.query_one("#question-text", Static), inner)
                + grid.styles.gutter.height + boxes_rows + grid.styles.grid_gutter_horizontal + buttons_rows)
        return Size(need_width, rows)

    def restart_onset(self) -> None:
        if self.phase == "reading":
            self.excerpt = self.excerpt.fresh()
            self._stop_reading_timers()
        elif self.phase == "question":
            self.question = self.question.fresh()

    def restamp(self) -> None:
        if self.phase == "reading":
            self._stamp_excerpt_onset()
        elif self.phase == "question":
            self._stamp_question_onset()

    # -- input ----------------------------------------------------------------------------------------------

    def on_trial_key(self, event: events.Key) -> None:
        key = event.key
        if self.phase == "reading":
            self.debounce.is_repeat(key, event.time)
            if key in SCROLL_KEYS:
                self._scroll(key)
            elif key == CONTINUE_KEY and self._may_continue(event.time):
                if self._seen_enough():
                    self._finish_reading(event.time)
                else:
                    self.ignored_keys += 1
                    self.query_one("#reading-hint", Static).update(
                        f"Please read the whole passage first: scroll down with ↓ or Page Down "
                        f"({self.query_one(ExcerptView).seen_share:.0%} seen so far).")
            elif self.excerpt_onset_mono is not None:
                self.ignored_keys += 1
            return
        if self.phase != "question":
            self.debounce.is_repeat(key, event.time)
            return
        self.answer_key(key, event.time)

    def _may_continue(self, when: float) -> bool:
        onset = self.excerpt_onset_mono
        if onset is None or when < onset:
            return False
        return when - onset >= max(self.settings.min_reading_s, self.debounce.min_rt_s)

    def _seen_enough(self) -> bool:
        """The declared share of the passage has been on screen (a little slack for rounding of the last line)."""
        return self.query_one(ExcerptView).seen_share + 1e-9 >= self.settings.min_seen_share

    def _scroll(self, key: str) -> None:
        view = self.query_one(ExcerptView)
        if key == "up":
            view.scroll_relative(y=-1, animate=False)
        elif key == "down":
            view.scroll_relative(y=1, animate=False)
        elif key == "pageup":
            view.scroll_page_up(animate=False)
        elif key == "pagedown":
            view.scroll_page_down(animate=False)
        elif key == "home":
            view.scroll_home(animate=False)
        else:
            view.scroll_end(animate=False)

    def accepting_answers(self) -> bool:
        return self.phase == "question"

    def response_timing(self, when: float, source: str) -> SortTiming:
        interrupted, first = self.interruption()
        return SortTiming(
            onset_mono=self.onset_mono, response_mono=when, wall_clock=wall_clock_now(),
            requested_mono=self.question_requested_mono, handler_mono=get_time(), input=source,
            ignored_keys=self.ignored_keys, excerpt_onset_mono=self.excerpt_onset_mono,
            continue_mono=self.continue_mono, reading_timed_out=self.reading_timed_out, onset_source=self.onset_source,
            interrupted=interrupted, first_onset_mono=first, seen_share=self.seen_share,
        )

    @property
    def seen_share(self) -> float | None:
        """STM: the furthest part of the excerpt that was on screen, as a share of its lines; LTM: None."""
        if self.settings.condition != "stm":
            return None
        return round(self.query_one(ExcerptView).seen_share, 4)


def _escape(text: str) -> str:
    return text.replace("[", r"\[")


def sort_trial_screen(runner: SessionRunner, step: PlannedStep, context: TrialContext) -> SortTrialScreen:
    """The screen of trial ``step`` of a SORT session, with the condition and times saved in its plan."""
    task = runner.task_session
    if not isinstance(task, SortTaskSession):
        raise BenchlabError(f"task {task.name} is not a SORT session")
    config = runner.plan.config
    settings = SortTrialSettings(
        condition=str(config.get("condition", "stm")), delay_s=float(config.get("delay_s") or 0.0),
        min_reading_s=float(config.get("min_reading_s") or 0.0),
        max_reading_s=float(config["max_reading_s"]) if config.get("max_reading_s") is not None else None,
        min_seen_share=float(config.get("min_seen_share") or 0.0),
    )
    return SortTrialScreen(task.trial(step.item_id), context, settings)
