"""Break, feedback and end screens share one rule (ContinueScreen): keys are ignored during the guard time, then
one continue key continues once; a continue from a screen the session has left does nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from session_helpers import write_testset
from textual.app import App
from textual.pilot import Pilot

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.session.runner import Feedback, Stage
from benchlab.tui.app import BenchlabApp
from benchlab.tui.screens.break_screen import BreakScreen
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.screens.continue_screen import ContinueScreen
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.screens.feedback import FeedbackScreen
from benchlab.tui.screens.step_done import StepDone


class Host(App[None]):
    def __init__(self, screen: ContinueScreen) -> None:
        super().__init__()
        self.first = screen
        self.continued: list[ContinueScreen] = []

    def on_mount(self) -> None:
        self.push_screen(self.first)

    def on_step_done(self, message: StepDone) -> None:
        assert isinstance(message.screen, ContinueScreen) and message.choice == "continue"
        self.continued.append(message.screen)


async def presses(screen: ContinueScreen, keys: list[str]) -> list[ContinueScreen]:
    app = Host(screen)
    async with app.run_test() as pilot:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()
        await pilot.pause()
    return app.continued


async def test_keys_during_the_guard_time_do_not_continue() -> None:
    assert await presses(FeedbackScreen(Feedback(True, "Correct."), guard_s=60.0), ["space", "enter"] * 3) == []
    assert await presses(BreakScreen("Break", "Rest", ("x", 1, 2), guard_s=60.0), ["space"] * 5) == []


async def test_after_the_guard_one_continue_key_continues_exactly_once() -> None:
    screen = FeedbackScreen(Feedback(False, "Not quite."), guard_s=0.0)
    assert await presses(screen, ["x", "space", "space", "enter"]) == [screen]


async def test_each_screen_keeps_its_own_continue_key() -> None:
    # The hints say "Press Space" on a break and "Press Enter to close" at the end: other keys do nothing there.
    assert await presses(BreakScreen("Break", "Rest", ("x", 1, 2), guard_s=0.0), ["enter", "y"]) == []
    assert await presses(EndScreen("Thank you!", "Done.", guard_s=0.0), ["space", "y"]) == []
    end = EndScreen("Thank you!", "Done.", guard_s=0.0)
    assert await presses(end, ["enter"]) == [end]


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_a_continue_from_a_screen_the_session_left_does_nothing(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=4, sizes=(3,))
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=3,
                             practice=1, feedback=False, no_instructions=True, tuples_per_cell=2)
    app = BenchlabApp(session=(runner, task), guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("1")  # the practice trial
        await settle(pilot)
        old = app.screen
        assert isinstance(old, BreakScreen)
        await pilot.press("space")
        await settle(pilot)
        trial = app.screen
        assert isinstance(trial, ChoiceTrialScreen) and runner.stage is Stage.TRIAL
        assert app.flow is not None
        app.flow.step_done(StepDone(old))  # e.g. a late duplicate message
        app.post_message(StepDone(old))
        await settle(pilot)
        assert app.screen is trial and runner.stage is Stage.TRIAL and runner.recorded_main == 0
