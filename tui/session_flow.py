"""Puts the session runner's stages on screen: one participant screen per stage, switched in place.

Every answer goes through :meth:`SessionFlow.answer`, which records it (append + fsync, in the runner) *before*
the next screen is built, so a response is on disk before the next trial appears.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from benchlab.annotations.session.runner import (
    BreakKind,
    EndReason,
    ResponseTiming,
    SessionRunner,
    Stage,
    wall_clock_now,
)
from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError
from benchlab.data.tables import counted
from benchlab.tui.key_debounce import KeyDebounce
from benchlab.tui.screens.break_screen import BreakScreen
from benchlab.tui.screens.consent import ConsentScreen
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.screens.feedback import FeedbackScreen
from benchlab.tui.screens.instructions import InstructionsScreen
from benchlab.tui.screens.step_done import StepDone
from benchlab.tui.screens.trial_base import TrialScreen
from benchlab.tui.textual_private import get_time
from benchlab.tui.trial_context import TrialContext
from benchlab.tui.trial_screens import trial_screen
from benchlab.tui.web.client import ClientState

if TYPE_CHECKING:
    from textual.app import App


class SessionFlow:
    """One participant's session in the app (created by the launcher or by ``benchlab run``)."""

    def __init__(
        self, app: App[Any], runner: SessionRunner, task: Task, *,
        on_finished: Callable[[SessionRunner], None], on_error: Callable[[BenchlabError], None],
        guard_s: float = 1.0, debounce: KeyDebounce | None = None, web: bool = False,
        client: ClientState | None = None,
    ) -> None:
        """``web``: a participant in a browser (the end page stays until the tab is closed; a declined consent and
        practice answers are logged for the Sessions screen); ``client``: the page's stamps, for the trials."""
        self.app = app
        self.runner = runner
        self.task = task
        self.on_finished = on_finished
        self.on_error = on_error
        self.guard_s = guard_s
        self.debounce = debounce or KeyDebounce()
        self.web = web
        self.client = client
        self.screen: Screen[None] | None = None
        self.finished = False
        #: The trial the experimenter menu interrupted (item id, onset of its first showing), until it is answered.
        self._interrupted: tuple[str, float | None] | None = None

    # -- showing --------------------------------------------------------------------------------------------

    def show(self) -> None:
        """Show the screen for the runner's current stage."""
        r = self.runner
        if r.stage is Stage.CONSENT:
            assert r.text.consent is not None
            self._switch(ConsentScreen(r.text.consent))
        elif r.stage is Stage.INSTRUCTIONS:
            self._switch(InstructionsScreen(r.text.instructions))
        elif r.stage is Stage.TRIAL:
            step = r.current
            if step.practice:
                context = TrialContext(f"Practice {step.index + 1} of {r.n_practice}", step.index, r.n_practice,
                                       self.answer, self.debounce, self.client)
            else:
                done = r.recorded_main
                context = TrialContext(f"Question {done + 1} of {r.n_main}  ·  block {step.block} of {r.n_blocks}",
                                       done, r.n_main, self.answer, self.debounce, self.client)
            self._switch(trial_screen(self.task.trial_kind, r, step, context))
        elif r.stage is Stage.BREAK:
            self._switch(self._break_screen())
        else:
            self._show_end()

    def _break_screen(self) -> BreakScreen:
        r = self.runner
        progress = (f"{r.recorded_main} of {counted(r.n_main, 'question')} answered", r.recorded_main, r.n_main)
        if r.break_kind is BreakKind.PRACTICE_DONE:
            blocks = f"in {r.n_blocks} blocks with a short break between blocks" if r.n_blocks > 1 else "in one block"
            title = "Practice finished"
            message = f"From now on there is no feedback. The main part has {counted(r.n_main, 'question')}, {blocks}."
        else:
            title = f"Block {r.next_block - 1} of {r.n_blocks} done"
            left = r.n_main - r.recorded_main
            message = f"Take a short break if you like. {left} question{'s' if left != 1 else ''} to go."
        return BreakScreen(title, message, progress, guard_s=self.guard_s)

    def _show_end(self) -> None:
        r = self.runner
        if r.end_reason is EndReason.ABORTED:
            self._finish()
            return
        if r.end_reason is EndReason.DECLINED:
            title, message = "Thank you", "You chose not to take part. Nothing has been recorded."
            if self.web:
                r.log_event("declined", task=self.task.name)  # no answers, no plan: only that it was declined
        elif self.web:
            title, message = "Thank you!", "You have answered all the questions. Your answers are saved."
        else:
            title = "Thank you!"
            message = "You have answered all the questions. Please let the experimenter know that you have finished."
        if self.web:
            self._switch(EndScreen(title, message, guard_s=self.guard_s, closing="You may now close this tab."))
        else:
            self._switch(EndScreen(title, message, guard_s=self.guard_s))

    def _switch(self, screen: Screen[None]) -> None:
        if self.screen is None:
            self.app.push_screen(screen)
        else:
            self.app.switch_screen(screen)
        self.screen = screen

    def step_done(self, message: StepDone) -> None:
        """A consent, instructions, break, feedback or end screen is done (the app forwards its message): move on.

        A message from a screen the session has already left (e.g. the experimenter ended it meanwhile) is ignored;
        each screen posts at most one.
        """
        screen, r = message.screen, self.runner
        if screen is not self.screen:
            return
        if isinstance(screen, FeedbackScreen):
            self.show()
        elif isinstance(screen, ConsentScreen) and message.choice in ("agree", "decline"):
            self._guarded(r.accept_consent if message.choice == "agree" else r.decline_consent)()
        elif isinstance(screen, InstructionsScreen):
            self._guarded(r.finish_instructions)()
        elif isinstance(screen, BreakScreen):
            self._guarded(r.continue_after_break)()
        elif isinstance(screen, EndScreen):
            self._finish()

    def _guarded(self, transition: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                transition()
            except BenchlabError as exc:
                self._fail(exc)
                return
            self.show()

        return run

    # -- answering ------------------------------------------------------------------------------------------

    def restart_trial(self) -> None:
        """Show the current trial again after the experimenter menu, with a fresh onset (the menu time is not part
        of the RT); its record is marked ``interrupted`` and keeps the first onset."""
        if self.runner.stage is not Stage.TRIAL:
            return
        item = self.runner.current.item_id
        if self._interrupted is None or self._interrupted[0] != item:
            # a trial with an excerpt is first on screen with it; a choice trial with its question.
            first = self.screen.first_onset_mono if isinstance(self.screen, TrialScreen) else None
            self._interrupted = (item, first)
        self.show()

    def answer(self, response: str, timing: ResponseTiming) -> None:
        """Record (fsync) first, then show feedback or the next screen."""
        timing = self._mark_interrupted(timing)
        try:
            feedback = self.runner.respond(response, timing)  # logs practice correctness (the Sessions screen)
        except BenchlabError as exc:
            self._fail(exc)
            return
        if feedback is not None:
            self._switch(FeedbackScreen(feedback, guard_s=min(self.guard_s, 0.3)))
        else:
            self.show()

    def _mark_interrupted(self, timing: ResponseTiming) -> ResponseTiming:
        """The record of a trial the menu interrupted says so and keeps its first onset."""
        interrupted, self._interrupted = self._interrupted, None
        if interrupted is not None and self.runner.stage is Stage.TRIAL:
            item, first = interrupted
            if item == self.runner.current.item_id:
                return dataclasses.replace(timing, interrupted=True, first_onset_mono=first)
        return timing

    def skip_current(self) -> None:
        """Experimenter skip: an empty answer for the trial on screen."""
        if self.runner.stage is not Stage.TRIAL:
            return
        trial = self.screen if isinstance(self.screen, TrialScreen) else None
        onset = trial.onset_mono if trial is not None else None
        requested = trial.requested_mono if trial is not None else None
        interrupted, first = trial.interruption() if trial is not None else (False, None)
        now = get_time()
        timing = ResponseTiming(onset_mono=onset, response_mono=now, wall_clock=wall_clock_now(),
                                requested_mono=requested, handler_mono=now, input="experimenter",
                                interrupted=interrupted, first_onset_mono=first)
        timing = self._mark_interrupted(timing)
        self._guarded(lambda: self.runner.skip(timing))()

    def end_now(self) -> None:
        self.runner.abort()
        self._finish()

    def _fail(self, exc: BenchlabError) -> None:
        self.runner.close()
        self.finished = True
        self.on_error(exc)

    def _finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.runner.close()
        self.on_finished(self.runner)
