"""A plug-in's choice trials are shown by the built-in "choice" screen; a new trial kind plugs in by registration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Button, Static

from benchlab.annotations.choice_task import make_choice_task
from benchlab.annotations.session_plan import PlannedStep
from benchlab.annotations.session_runner import ResponseTiming, SessionRunner, SessionText
from benchlab.annotations.task import SessionOptions
from benchlab.data.errors import BenchlabError
from benchlab.tui.key_debounce import KeyDebounce
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.task_registry import TrialContext
from benchlab.tui.trial_screens import TRIAL_SCREENS, register_trial_screen, trial_screen
from tests.plugin_helpers import EXAMPLE, PACKAGE


class OneTrial(App[None]):
    """Shows one trial of a runner through the trial-kind registry and records the answer like the session flow."""

    def __init__(self, kind: str, runner: SessionRunner) -> None:
        super().__init__()
        self.kind, self.runner = kind, runner
        self.answers: list[str] = []

    def on_mount(self) -> None:
        step = self.runner.current
        context = TrialContext("Question 1", 0, self.runner.n_main, self.answer, KeyDebounce(min_rt_s=0.0))
        self.push_screen(trial_screen(self.kind, self.runner, step, context))

    def answer(self, response: str, timing: ResponseTiming) -> None:
        self.answers.append(response)
        self.runner.respond(response, timing)


@pytest.fixture
def runner(tmp_path: Path) -> Any:
    task = make_choice_task(name="numbers", title="Which number is larger", description="d",
                            items=EXAMPLE / PACKAGE / "items.jsonl")
    session = SessionOptions(participant="P01", out=tmp_path, seed=4)
    opened = task.prepare(session, task.plan_options(practice=0), SessionText())
    yield opened
    opened.close()


async def test_the_choice_kind_shows_the_prompt_and_records_the_pressed_option(runner: SessionRunner) -> None:
    item = runner.current.item_id
    prompt = runner.task.prompt(item)  # type: ignore[attr-defined]
    app = OneTrial("choice", runner)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, ChoiceTrialScreen)
        assert str(app.screen.query_one("#question", Static).render()) == prompt.text
        assert [str(b.label) for b in app.screen.query(Button)] == [f"{i + 1}  {o}" for i, o in
                                                                     enumerate(prompt.options)]
        await pilot.press("2")
        await pilot.pause()
    assert app.answers == [prompt.options[1]]
    assert runner.results_log.answered() == {item}


async def test_a_registered_trial_kind_gets_its_own_screen(runner: SessionRunner) -> None:
    class Slider(Screen[None]):
        def __init__(self, item: str) -> None:
            super().__init__()
            self.item = item

    def slider(r: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]:
        return Slider(step.item_id)

    register_trial_screen("slider", slider)
    try:
        app = OneTrial("slider", runner)
        async with app.run_test() as pilot:
            await pilot.pause()
            assert isinstance(app.screen, Slider) and app.screen.item == runner.current.item_id
    finally:
        TRIAL_SCREENS.pop("slider")


def test_an_unknown_trial_kind_is_a_one_line_error(runner: SessionRunner) -> None:
    with pytest.raises(BenchlabError, match="no screen shows trials of kind 'dial'"):
        trial_screen("dial", runner, runner.current, TrialContext("", 0, 1, lambda r, t: None, KeyDebounce()))
