"""The child side of ``benchlab bench sort-screen``: the app that shows the trials and stamps them.

Kept apart from ``screen_bench`` so the parent (which only drives the pty and summarises) never imports Textual;
the child imports this module once, before any stamp is taken.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from benchlab.annotations.session.runner import ResponseTiming
from benchlab.tui.key_debounce import KeyDebounce
from benchlab.tui.sort import trial_screen as sort_trial_module
from benchlab.tui.sort.excerpt_view import ExcerptView
from benchlab.tui.sort.trial_screen import SortTrialScreen, SortTrialSettings
from benchlab.tui.textual_private import get_time
from benchlab.tui.trial_context import TrialContext


class TimedTrialScreen(SortTrialScreen):
    """Also notes the app's CPU time at each stamp: what the same steps cost on an idle machine."""

    CSS_PATH = str(Path(sort_trial_module.__file__).with_name("trial_screen.tcss"))
    cpu: dict[str, float]

    def _stamp_excerpt_onset(self) -> None:
        self.cpu["excerpt_onset"] = time.process_time()
        super()._stamp_excerpt_onset()

    def _finish_reading(self, when: float) -> None:
        self.cpu["continue"] = time.process_time()
        super()._finish_reading(when)

    def _stamp_question_onset(self) -> None:
        self.cpu["question_onset"] = time.process_time()
        super()._stamp_question_onset()


class NaiveScreen(Screen[None]):
    """Only the text, as one Static in a scrolling container (the obvious way)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._text, markup=False)


class BareViewScreen(Screen[None]):
    """Only the text, in the excerpt view the trial screen uses (the fair comparison with NaiveScreen)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    def compose(self) -> ComposeResult:
        yield ExcerptView(self._text)


class BenchApp(App[None]):
    """``trials`` timed SORT trials, then the text alone ``trials`` times on each comparison screen."""

    def __init__(self, record: Any, trials: int, progress: IO[str], progress_marks: tuple[str, str, str],
                 result_path: str) -> None:
        super().__init__()
        self.record, self.trials, self.progress, self.result_path = record, trials, progress, result_path
        self.shown_mark, self.asked_mark, self.done_mark = progress_marks
        self.rows: list[dict[str, float | None]] = []
        self.naive: list[float] = []
        self.bare: list[float] = []

    def on_mount(self) -> None:
        self.next_trial()

    def next_trial(self) -> None:
        rows = self.rows
        if len(rows) == self.trials:
            self.next_naive()
            return
        requested = get_time()
        cpu = {"requested": time.process_time()}
        context = TrialContext(f"Bench {len(rows) + 1}", len(rows), self.trials, self.answered,
                               KeyDebounce(repeat_window_s=0.0, min_rt_s=0.0))
        screen = TimedTrialScreen(self.record, context, SortTrialSettings())
        screen.cpu = cpu
        self._current = screen
        self._requested = requested
        if rows:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        self.call_after_refresh(self._wait_onset)

    def _wait_onset(self) -> None:
        screen = self._current
        if screen.excerpt_onset_mono is None:
            self.set_timer(0.005, self._wait_onset)
            return
        self.progress.write(f"{self.shown_mark} {len(self.rows)}\n")
        self._watch_question()

    def _watch_question(self) -> None:
        screen = self._current
        if screen.onset_mono is None:
            self.set_timer(0.002, self._watch_question)
            return
        self.progress.write(f"{self.asked_mark} {len(self.rows)}\n")

    def answered(self, option: str, timing: ResponseTiming) -> None:
        screen = self._current
        self.rows.append({"requested": self._requested, "excerpt_onset": screen.excerpt_onset_mono,
                          "continue": screen.continue_mono, "question_onset": screen.onset_mono,
                          "response": timing.response_mono,
                          **{f"cpu_{k}": v for k, v in screen.cpu.items()}})
        self.call_later(self.next_trial)

    def next_naive(self) -> None:
        naive, bare = self.naive, self.bare
        if len(bare) == self.trials:
            self._finish()
            return
        into = naive if len(naive) < self.trials else bare
        text = self.record.excerpt_text
        requested = get_time()
        self.switch_screen(NaiveScreen(text) if into is naive else BareViewScreen(text))

        def painted() -> None:
            into.append(get_time() - requested)
            self.call_later(self.next_naive)

        self.call_after_refresh(painted)

    def _finish(self) -> None:
        """Write the figures for the parent and tell it the child is done."""
        Path(self.result_path).write_text(json.dumps({"trials": self.rows, "naive_first_paint": self.naive,
                                                      "bare_view_first_paint": self.bare}))
        self.progress.write(f"{self.done_mark}\n")
        self.exit()
