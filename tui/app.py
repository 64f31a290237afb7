"""The benchlab Textual app: the experimenter's launcher, and participant sessions in kiosk mode.

In a participant session nothing a participant can type leaves, skips or goes back: no command palette, Ctrl+Q and
Ctrl+C do nothing, Escape is never a response. The experimenter opens a menu (continue / skip trial / end session,
each confirmed) with a key sequence, by default **Ctrl+X, then the word menu typed** (``$BENCHLAB_EXPERIMENTER_KEYS``;
see :mod:`benchlab.tui.experimenter_keys`). A session started from the launcher ends on a hand-back screen that only
the same sequence leaves, so a participant never reaches the launcher's tools (results of every participant,
curation with gold answers) or sees the session summary.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from textual import events
from textual.screen import Screen

from benchlab.annotations.session.runner import SessionRunner, Stage
from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.crash_app import CrashSafeApp
from benchlab.tui.driver_choice import app_driver_class
from benchlab.tui.experimenter_keys import ExperimenterKeys, KeyVerdict, SequenceDetector
from benchlab.tui.frame_clock import TimedDriver
from benchlab.tui.key_debounce import KeyDebounce
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.screens.experimenter_menu import ExperimenterMenu
from benchlab.tui.screens.handback import HandbackScreen
from benchlab.tui.screens.session_summary import SessionSummaryScreen
from benchlab.tui.screens.step_done import StepDone
from benchlab.tui.screens.trial_base import TrialScreen
from benchlab.tui.session_flow import SessionFlow
from benchlab.tui.textual_private import FrameHookApp, app_driver
from benchlab.tui.web.client import ClientState, WebClientConnected, WebDisconnected
from benchlab.tui.web.driver import WebSessionDriver

#: How to continue an unfinished session started from the launcher (there is no command to repeat).
LAUNCHER_RESUME_HINT = ("Resume later from the launcher: the same participant and options, with Resume ticked "
                        "(its responses so far are kept).")


class BenchlabApp(FrameHookApp[list[str]], CrashSafeApp[list[str]]):
    """``BenchlabApp()`` opens the launcher; ``BenchlabApp(session=(runner, task))`` runs one session and exits."""

    CSS_PATH = "app.tcss"
    TITLE = "benchlab"

    def __init__(
        self, *, session: tuple[SessionRunner, Task] | None = None, guard_s: float = 1.0, min_rt_s: float = 0.15,
        repeat_window_s: float = 0.12, web_session: bool = False, experimenter_keys: ExperimenterKeys | None = None,
    ) -> None:
        """``guard_s``: how long break and end screens ignore keys; ``min_rt_s`` and ``repeat_window_s``: see
        :class:`~benchlab.tui.key_debounce.KeyDebounce` (tests set all three to 0 to press keys at machine speed).
        ``web_session``: a participant in a browser (``benchlab run ... --web-session``): no experimenter menu, an
        end page that stays, exit on disconnect; the driver is ``TEXTUAL_DRIVER``'s, else the web session driver.
        ``experimenter_keys``: the menu's key sequence (default: the settings').
        """
        super().__init__(driver_class=app_driver_class(web_session=web_session))
        self.web_session = web_session
        self._onset_marks = 0
        #: Connection events that came before the session's flow existed (logged once it does).
        self._early_events: list[tuple[str, dict[str, Any]]] = []
        self._initial_session = session
        self.exit_after_session = session is not None
        self.guard_s = guard_s
        self.min_rt_s = min_rt_s
        self.repeat_window_s = repeat_window_s
        self.flow: SessionFlow | None = None
        self.summaries: list[str] = []
        self.error: BenchlabError | None = None
        self.experimenter_keys = experimenter_keys or ExperimenterKeys.from_settings()
        self._sequence = SequenceDetector(self.experimenter_keys)
        #: While a finished session waits for the experimenter: the summary to show once the keys dismiss it.
        self._handback: SessionSummaryScreen | None = None
        self._handing_back = False

    @property
    def kiosk(self) -> bool:
        return self._handing_back or (self.flow is not None and not self.flow.finished)

    def on_mount(self) -> None:
        if self._initial_session is not None:
            runner, task = self._initial_session
            self.start_session(runner, task)
        else:
            # deferred: `benchlab run NAME` starts its session without the launcher's forms and plug-in tools
            from benchlab.tui.screens.launcher import LauncherScreen

            self.push_screen(LauncherScreen())

    # -- sessions -------------------------------------------------------------------------------------------

    def start_session(self, runner: SessionRunner, task: Task) -> None:
        self.use_command_palette = False
        self.flow = SessionFlow(self, runner, task, on_finished=self._session_finished, on_error=self._session_error,
                                guard_s=self.guard_s,
                                debounce=KeyDebounce(repeat_window_s=self.repeat_window_s, min_rt_s=self.min_rt_s),
                                web=self.web_session, client=self.web_client)
        for event, fields in self._early_events:
            runner.log_event(event, **fields)
        self._early_events.clear()
        self.flow.show()

    def on_step_done(self, message: StepDone) -> None:
        if self.flow is not None:
            self.flow.step_done(message)

    def _leave_session(self, summary: SessionSummaryScreen) -> None:
        """CLI sessions exit the app; launcher sessions go back to the launcher behind the hand-back screen, and
        ``summary`` is shown only once the experimenter has dismissed it (it stays until they close it)."""
        flow, self.flow = self.flow, None
        if self.exit_after_session:
            self.use_command_palette = self.ENABLE_COMMAND_PALETTE
            self.exit(self.summaries)
            return
        if flow is not None and flow.screen is not None:
            while len(self.screen_stack) > 2:  # back to the launcher (the default screen is below it)
                self.pop_screen()
        self._handback, self._handing_back = summary, True
        self.push_screen(HandbackScreen())

    def _end_handback(self) -> None:
        summary, self._handback, self._handing_back = self._handback, None, False
        if isinstance(self.screen, HandbackScreen):
            self.pop_screen()
        self.use_command_palette = self.ENABLE_COMMAND_PALETTE
        if summary is not None:
            self.push_screen(summary)

    def _summary_of(self, runner: SessionRunner) -> str:
        """The runner's summary, its resume hint in this front end's words."""
        return runner.summary() if self.exit_after_session else runner.summary(LAUNCHER_RESUME_HINT)

    def _session_finished(self, runner: SessionRunner) -> None:
        summary = self._summary_of(runner)
        self.summaries.append(summary)
        self._leave_session(SessionSummaryScreen("Session ended", summary))

    def _session_error(self, exc: BenchlabError) -> None:
        self.error = exc
        summary = self._summary_of(self.flow.runner) if self.flow is not None else ""
        if summary:
            self.summaries.append(summary)
        self._leave_session(SessionSummaryScreen("Session stopped", summary, error=str(exc)))

    # -- web sessions ---------------------------------------------------------------------------------------

    @property
    def web_client(self) -> ClientState | None:
        """The page's stamps when the app runs on the web session driver (``None`` in a terminal)."""
        driver = app_driver(self)
        return driver.client if isinstance(driver, WebSessionDriver) else None

    def _web_event(self, event: str, **fields: Any) -> None:
        if self._initial_session is not None:
            fields = {**fields, "task": self._initial_session[1].name}  # read before the plan exists (consent)
        if self.flow is not None:
            self.flow.runner.log_event(event, **fields)
        else:
            self._early_events.append((event, fields))

    def on_web_client_connected(self, message: WebClientConnected) -> None:
        # No User-Agent is stored unless the study asks for it (personal data: issue 21); the online study section
        # sets BENCHLAB_RECORD_USER_AGENT=1 for the session process when it declares so.
        agent = {"user_agent": message.user_agent} if os.environ.get("BENCHLAB_RECORD_USER_AGENT") == "1" else {}
        self._web_event("connected", reconnect=message.reconnect, **agent)

    def on_web_disconnected(self, message: WebDisconnected) -> None:
        """The page is gone: log it (fsynced), release the session and exit now; a reconnect resumes."""
        flow, self.flow = self.flow, None
        try:
            if flow is not None and not flow.finished and flow.runner.stage is not Stage.END:
                flow.runner.log_event("disconnected", reason=message.reason, task=flow.task.name)
        except OSError:
            pass  # a full or vanished disk: every answer is on disk already, leave all the same
        finally:
            if flow is not None:
                flow.finished = True
                flow.runner.close()
            self.exit(self.summaries)

    # -- stimulus onset ---------------------------------------------------------------------------------------

    def frame_display(self, screen: Screen[Any], write: Callable[[], None]) -> None:
        """Ask the frame clock to tell the screen when this frame is written to the terminal.

        A :class:`~benchlab.tui.screens.trial_base.TrialScreen` answers ``onset_hook()``: the callback for the stimulus
        this frame shows (or ``None``); the callback gets the monotonic time of the write, from the writer thread.

        That is the closest software moment to "the question is on the terminal" (``call_after_refresh`` runs on
        the next idle cycle, a frame or more later). Headless runs (tests) write nothing, so screens fall back to
        their ``call_after_refresh`` stamp there.
        """
        driver = app_driver(self)
        clock = driver.frame_clock if isinstance(driver, TimedDriver) else None
        before = clock.queued if clock is not None else 0
        write()
        if clock is None or not isinstance(screen, TrialScreen) or clock.queued == before or screen is not self.screen:
            return
        # Asked now, on the main thread, so the screen answers for what this very frame shows.
        hook = screen.onset_hook()
        if hook is not None:
            clock.call_when_written(clock.queued, hook)
            onset = screen.showing()
            if isinstance(driver, WebSessionDriver) and onset is not None:
                # Right after the frame, in the same stream: the page stamps its paint and reports it.
                self._onset_marks += 1
                onset.mark = f"{screen.context.done}.{self._onset_marks}"
                driver.write_onset_marker(onset.mark)

    # -- kiosk ----------------------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        if self.kiosk:
            return
        self.exit(self.summaries)

    def action_help_quit(self) -> None:
        if not self.kiosk:
            super().action_help_quit()

    def on_end_screen_closing(self, message: EndScreen.Closing) -> None:
        """The browser's end page: every answer is on disk, so the page stops warning before the tab closes."""
        driver = app_driver(self)
        if isinstance(driver, WebSessionDriver):
            driver.write_end_marker()

    async def on_event(self, event: events.Event) -> None:
        """In kiosk mode every key passes the experimenter's sequence detector first, before any binding or screen:
        the lead chord and the letters of the word are held back, anything else goes on as usual."""
        if isinstance(event, events.Key) and not event.is_forwarded and self.kiosk and not self.web_session:
            verdict = self._sequence.feed(event.key, event.character, event.time)
            if verdict is KeyVerdict.OPEN:
                self.open_experimenter_menu()
            if verdict is not KeyVerdict.PASS:
                event.stop()
                event.prevent_default()
                return
        elif isinstance(event, events.Key) and not event.is_forwarded:
            self._sequence.reset()
        await super().on_event(event)

    def open_experimenter_menu(self) -> None:
        """The experimenter's menu over the participant's screen (or, after a launcher session, leave hand-back)."""
        if self.web_session:
            return  # a participant in a browser never reaches the experimenter menu
        if not self.kiosk:
            return
        if self._handing_back:
            self._end_handback()
            return
        if isinstance(self.screen, ExperimenterMenu) or self.flow is None:
            return
        flow = self.flow
        runner = flow.runner
        status = (f"Participant {runner.plan.participant}, session {runner.plan.session}: {runner.recorded_main} of "
                  f"{runner.n_main} scored trials recorded; now at: {runner.position()}.")

        def chosen(choice: str | None) -> None:
            if self.flow is not flow:
                return
            if choice == "skip":
                flow.skip_current()
            elif choice == "end":
                flow.end_now()
            elif runner.stage is Stage.TRIAL:
                flow.restart_trial()  # a fresh onset (the menu time is not in the RT), marked as interrupted

        self.push_screen(ExperimenterMenu(can_skip=runner.stage is Stage.TRIAL, status=status), chosen)
