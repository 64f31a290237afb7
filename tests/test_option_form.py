"""The launcher is generated from task declarations: a plan option declared on a task's model appears in its
session form and reaches the task checked; errors sit beside the field they name; the launcher and the Results
screen list whatever the registry holds (here a stand-in task, as a plug-in would add)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import EntryPoints
from pathlib import Path
from typing import Any, Literal

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, OptionList, Select, Static
from textual.widgets._select import SelectCurrent
from textual.widgets.select import InvalidSelectValueError

from benchlab.annotations import plugins as plugins_module
from benchlab.annotations import registry as registry_module
from benchlab.annotations.options import OptionError, Options, option, parse_options
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.runner import SessionRunner, SessionText
from benchlab.annotations.task import Command, ComparisonSource, SessionOptions
from benchlab.data.analysis.compare import Comparison
from benchlab.data.analysis.stats import AttentionCriterion
from benchlab.data.errors import BenchlabError
from benchlab.tui.app import BenchlabApp
from benchlab.tui.screens.results import ResultsScreen
from benchlab.tui.screens.session_setup import SessionSetupScreen
from benchlab.tui.widgets.option_form import FormSection, OptionForm
from tests.plugin_helpers import forget_loaded_plugins

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


class StandInPlan(Options):
    """A plug-in's plan options; ``pause_s``, ``voice``, ``tags`` and ``shuffle`` are new to the app."""

    trials: int = option(12, label="Trials", help="Scored trials.", ge=1)
    pause_s: float = option(1.5, label="Pause between trials (s)", help="Seconds of blank screen.", ge=0)
    voice: Literal["calm", "brisk"] = option("calm", label="Voice", help="How the prompts are read.")
    tags: tuple[str, ...] = option((), label="Tags", help="Free labels saved with the plan.")
    shuffle: bool = option(True, label="Shuffle the trials", help="Random order per participant.")
    secret: int = option(7, label="Not in the form", help="CLI only.", form=False)


class Refused(BenchlabError):
    """What the stand-in's preparation raises after recording what it got (no session is started)."""


@dataclass
class StandInTask:
    """A task as a plug-in package would declare it (no built-in code knows it)."""

    name: str = "standin"
    title: str = "Stand-in"
    description: str = "A benchmark the app has never heard of."
    session_options: type[SessionOptions] = SessionOptions
    plan_options: type[Options] = StandInPlan
    trial_kind: str = "choice"
    simulated_policies: tuple[str, ...] = ()
    commands: Sequence[Command] = ()
    comparison: ComparisonSource | None = None
    refuse_field: str | None = None
    got: list[tuple[SessionOptions, Any, SessionText]] = field(default_factory=list)

    def default_dataset(self) -> Path:
        return Path("/nowhere/standin-sample")

    def default_out(self, dataset: str) -> Path:
        return Path("/nowhere/out") / Path(dataset).name

    def prepare(self, session: SessionOptions, plan: Any, text: SessionText) -> SessionRunner:
        self.got.append((session, plan, text))
        if self.refuse_field is not None:
            raise OptionError(self.refuse_field, "is not possible with this data set")
        raise Refused("stand-in: not preparing")

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]:
        return {}

    def instructions(self, plan: Any, session: SessionOptions) -> list[str]:
        return [f"voice {plan.voice}"]


class FormHost(App[None]):
    """A bare app with the session form of one task."""

    def __init__(self, task: StandInTask) -> None:
        super().__init__()
        self.form_screen = SessionSetupScreen(task)

    def on_mount(self) -> None:
        self.push_screen(self.form_screen)


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def on_screen(app: App[Any], widget: Any) -> bool:
    return app.screen.find_widget(widget).region.overlaps(app.screen.region)


def error_beside(screen: Any, name: str) -> str:
    line = screen.query_one(f"#f-{name}-error", Static)
    return str(line.render()) if line.display else ""


async def test_new_plan_options_appear_in_the_form_and_reach_the_task_checked() -> None:
    task = StandInTask()
    app = FormHost(task)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        form = app.form_screen
        assert form.query_one("#f-pause_s", Input).value == "1.5"  # the declared default
        assert form.query_one("#f-pause_s", Input).type == "number"
        assert form.query_one("#f-trials", Input).type == "integer"
        assert form.query_one("#f-voice", Select).value == "calm"
        assert form.query_one("#f-shuffle", Checkbox).value is True
        assert not form.query("#f-secret")  # declared form=False
        assert form.query_one("#f-dataset", Input).value == "/nowhere/standin-sample"  # the task's default
        assert "Seconds of blank screen. (at least 0)" in [str(s.render()) for s in form.query(".field-help")]
        form.query_one("#f-participant", Input).value = "P3"
        form.query_one("#f-pause_s", Input).value = "0.25"
        form.query_one("#f-voice", Select).value = "brisk"
        form.query_one("#f-tags", Input).value = "pilot, room B"
        form.query_one("#f-shuffle", Checkbox).value = False
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
    [(session, plan, text)] = task.got
    assert plan == StandInPlan(trials=12, pause_s=0.25, voice="brisk", tags=("pilot", "room B"), shuffle=False)
    assert session.participant == "P3" and session.session == "1" and session.dataset == Path("/nowhere/standin-sample")
    assert text.instructions == ["voice brisk"]  # the task's built-in pages, for these options
    assert any("stand-in: not preparing" in n.message for n in app._notifications)


async def test_a_wrong_value_is_shown_beside_its_field_which_gets_the_focus() -> None:
    task = StandInTask()
    app = FormHost(task)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        form = app.form_screen
        form.query_one("#f-participant", Input).value = "P3"
        form.query_one("#f-pause_s", Input).value = "-2"
        await pilot.press("ctrl+s")
        await settle(pilot)
        field = form.query_one("#f-pause_s", Input)
        assert app.focused is field and on_screen(app, field)
        assert error_beside(form, "pause_s").startswith("Pause between trials (s) must be at least 0")
        assert task.got == []  # nothing prepared with a wrong value
        # fixed, but the task refuses another field while preparing: the message moves there
        form.query_one("#f-pause_s", Input).value = "2"
        task.refuse_field = "voice"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        voice = form.query_one("#f-voice", Select)
        assert app.focused is voice and on_screen(app, voice)
        assert error_beside(form, "voice") == "voice is not possible with this data set"
        assert error_beside(form, "pause_s") == ""
        assert not form.query_one("#start").disabled  # the experimenter can fix it and start again


async def test_an_error_naming_a_file_points_at_the_path_field_holding_it(tmp_path: Path) -> None:
    app = FormHost(StandInTask())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        form = app.form_screen
        form.query_one("#f-participant", Input).value = "P3"
        form.query_one("#f-consent_file", Input).value = str(tmp_path / "missing-consent.md")
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        field = form.query_one("#f-consent_file", Input)
        assert app.focused is field and "no such consent file" in error_beside(form, "consent_file")


class WidgetHost(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[tuple[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield OptionForm(FormSection(StandInPlan, heading="Plan"), defaults={"trials": 30})

    def on_option_form_changed(self, event: OptionForm.Changed) -> None:
        self.changes.append((event.name, event.value))


async def test_the_form_widget_gives_raw_values_the_model_parses_and_says_what_changed() -> None:
    app = WidgetHost()
    async with app.run_test(size=(80, 60)) as pilot:
        form = app.query_one(OptionForm)
        assert parse_options(StandInPlan, form.values(StandInPlan)) == StandInPlan(trials=30)
        form.query_one("#f-trials", Input).value = ""  # blank: the declared default
        form.query_one("#f-tags", Input).value = "a,b"
        await settle(pilot)
        assert form.values(StandInPlan) == {"pause_s": "1.5", "voice": "calm", "tags": ["a", "b"], "shuffle": True}
        assert parse_options(StandInPlan, form.values(StandInPlan)).trials == 12
        assert ("tags", "a,b") in app.changes
        assert form.show_error("trials", "too many") and app.focused is form.query_one("#f-trials")
        assert not form.show_error("nosuch", "?")


@pytest.fixture
def only_standins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A registry holding only the tasks a test registers (as installed plug-ins would be)."""
    monkeypatch.setattr(plugins_module, "entry_points", lambda: EntryPoints(()))
    forget_loaded_plugins()
    yield
    forget_loaded_plugins()


def standin_build(testset: Path | None, results: Path, criterion: AttentionCriterion) -> Comparison:
    raise BenchlabError(f"stand-in comparison of {testset} and {results}")


async def test_results_screen_lists_registered_tasks_with_a_comparison(only_standins: None) -> None:
    source = ComparisonSource(testset_label="Stimulus folder", build=standin_build, watched=lambda t, r: [])
    registry_module.register(StandInTask(name="nocompare", title="No comparison"))
    registry_module.register(StandInTask(comparison=source))
    screen = ResultsScreen("standin", "stim", "res", live=False)

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(screen)

    async with Host().run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        picker = screen.query_one("#benchmark", Select)
        assert picker.value == "standin" and str(picker.query_one(SelectCurrent).render())  # shown
        with pytest.raises(InvalidSelectValueError):  # a task without a comparison is not offered
            picker.value = "nocompare"
        testset = screen.query_one("#testset", Input)
        assert testset.display and testset.placeholder == "Stimulus folder"
        screen.query_one("#results", Input).value = str(Path.cwd())
        await pilot.click("#load")
        for _ in range(100):
            await pilot.pause(0.05)
            if "stand-in comparison" in str(screen.query_one("#status", Static).render()):
                break
        assert f"stand-in comparison of stim and {Path.cwd()}" in str(screen.query_one("#status", Static).render())


async def test_the_launcher_lists_a_registered_task_and_opens_its_form(only_standins: None) -> None:
    registry_module.register(StandInTask())
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        menu = app.screen.query_one(OptionList)
        first = menu.get_option_at_index(0)
        assert first.id == "task:standin"
        assert str(first.prompt) == "Stand-in session\nA benchmark the app has never heard of."
        assert "entry:results" in [menu.get_option_at_index(i).id for i in range(menu.option_count)]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SessionSetupScreen) and app.screen.query("#f-pause_s")
