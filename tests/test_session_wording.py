"""What the experimenter and the participant read says what is true: counts of scored vs practice trials, breaks
only between blocks, "skip" only where there is a trial, and no result paths when nothing was recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from textual.pilot import Pilot
from textual.widgets import Button, Static

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.screens.break_screen import BreakScreen
from benchlab.tui.screens.experimenter_menu import ExperimenterMenu
from benchlab.tui.screens.instructions import InstructionsScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=4, sizes=(3,))


def prepare(testset: Path, out: Path, **kw: Any) -> Any:
    return prepare_session(registry().get("worldsense"), dataset=str(testset), participant="P01", out=str(out),
                           seed=2, **kw)


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def screen_text(app: BenchlabApp) -> str:
    return "\n".join([str(w.render()) for w in app.screen.query(Static)]
                     + [str(b.label) for b in app.screen.query(Button)])


def test_summary_counts_scored_and_practice_trials_apart(testset: Path, tmp_path: Path) -> None:
    runner = prepare(testset, tmp_path / "out", practice=3, no_instructions=True)
    simulate_session(runner, SimulatedParticipant("oracle", seed=1))
    first = runner.summary().splitlines()[0]
    assert first == ("Session completed: 28 of 28 scored trials recorded (28 in this run); "
                     "practice trials: 3 of 3 recorded (3 in this run).")


def test_abort_before_any_answer_says_nothing_was_recorded(testset: Path, tmp_path: Path) -> None:
    runner = prepare(testset, tmp_path / "out", practice=2, no_instructions=True)
    runner.abort()
    summary = runner.summary()
    assert "Nothing was recorded" in summary
    assert "Results:" not in summary and "Practice:" not in summary
    assert not runner.files.results.exists() and not runner.files.practice.exists()
    assert f"Plan:     {runner.files.plan}" in summary and runner.files.plan.exists()  # the plan is, for --resume


async def test_practice_break_announces_breaks_between_blocks_only(testset: Path, tmp_path: Path) -> None:
    runner = prepare(testset, tmp_path / "out", practice=1, block_size=10, no_instructions=True,
                     feedback=False)
    app = BenchlabApp(session=(runner, registry().get("worldsense")), **FAST)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert isinstance(app.screen, BreakScreen)
        text = screen_text(app)
    assert "28 questions, in 3 blocks with a short break between blocks" in text and "after each" not in text


async def test_the_menu_offers_skip_on_trials_only(testset: Path, tmp_path: Path) -> None:
    runner = prepare(testset, tmp_path / "out", practice=0)  # built-in instructions first
    app = BenchlabApp(session=(runner, registry().get("worldsense")), **FAST)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, InstructionsScreen)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        assert isinstance(app.screen, ExperimenterMenu)
        assert "Skip" not in screen_text(app) and "Continue" in screen_text(app)
        await pilot.press("s")  # nothing to skip: no confirmation, still the menu
        await settle(pilot)
        assert isinstance(app.screen, ExperimenterMenu)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("enter", "space", "enter")  # to the first trial
        await settle(pilot)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        assert isinstance(app.screen, ExperimenterMenu) and "Skip this trial" in screen_text(app)
        await pilot.press("c")
        await settle(pilot)
