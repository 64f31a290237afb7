"""The example plug-in (examples/benchlab-example-task), found through its entry point, in the app itself: a
launcher line, its generated form, a whole session by key presses with every answer on disk, and the Results
screen's picker; no line of benchlab names it."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from session_helpers import hand_over

from benchlab.annotations.registry import registry
from benchlab.annotations.task import Task
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.screens.handback import HandbackScreen
from benchlab.tui.screens.instructions import InstructionsScreen
from benchlab.tui.screens.launcher import LauncherScreen
from benchlab.tui.screens.results import ResultsScreen
from benchlab.tui.screens.session_setup import SessionSetupScreen
from tests.plugin_helpers import EXAMPLE, PACKAGE, install_example
from tests.test_app_session import settle


@pytest.fixture
def numbers(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Task:
    """The example's TASK loaded from its entry point and registered for this test only."""
    folder, _declared = install_example(tmp_path_factory.mktemp("site"))
    monkeypatch.syspath_prepend(str(folder))
    task: Task = {ep.name: ep for ep in entry_points(group="benchlab.tasks")}["numbers"].load()
    monkeypatch.setitem(registry().tasks, task.name, task)
    return task


async def test_a_plugin_task_runs_from_the_launcher_and_shows_in_results(numbers: Task, tmp_path: Path) -> None:
    app = BenchlabApp(guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)
    out = tmp_path / "out"
    async with app.run_test(size=(110, 50)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LauncherScreen)
        menu: Any = app.screen.query_one("OptionList")
        prompts = [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]
        line = next(i for i, p in enumerate(prompts) if f"{numbers.title} session" in p)
        menu.highlighted = line
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SessionSetupScreen)
        form: Any = app.screen
        for field, value in {"participant": "P07", "out": str(out), "items_per_stratum": "2", "practice": "0"}.items():
            form.query_one(f"#f-{field}").value = value  # fields generated from the task's declared options
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await hand_over(app, pilot)
        for _ in range(10):  # the task's instruction pages: Enter pages on and begins on the last one
            if not isinstance(app.screen, InstructionsScreen):
                break
            await pilot.press("enter")
            await settle(pilot)
        answered = 0
        results = out / "results" / "P07.jsonl"
        for _ in range(10):
            if not isinstance(app.screen, ChoiceTrialScreen):
                break
            await pilot.press("2")
            await settle(pilot)
            answered += 1
            assert len(results.read_text(encoding="utf-8").splitlines()) == answered  # on disk before the next
        assert answered == 4  # 2 items in each of the example's 2 strata
        assert isinstance(app.screen, EndScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, HandbackScreen)
        await pilot.press(*DEFAULT_KEYS.keys)
        await pilot.pause()
        await pilot.press("enter")  # the experimenter closes the session summary
        await settle(pilot)
        assert isinstance(app.screen, LauncherScreen)
        app.push_screen(ResultsScreen(benchmark=numbers.name))
        await settle(pilot)
        picker: Any = app.screen.query_one("#benchmark")
        assert picker.value == numbers.name
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert [r["participant"] for r in records] == ["P07"] * 4
    items = {i["id"]: i for i in map(json.loads, (EXAMPLE / PACKAGE / "items.jsonl").read_text().splitlines())}
    assert [r["response"] for r in records] == [items[r["item"]]["options"][1] for r in records]  # key 2 = option 2
    assert all(isinstance(r["rt_ms"], float) and r["rt_ms"] >= 0 for r in records)
