"""How the trial and break screens look (SVG snapshots; regenerate with --snapshot-update and review the diff)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from textual.pilot import Pilot

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS


@pytest.fixture
def app(tmp_path: Path) -> BenchlabApp:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2, sizes=(4,), seed=3, long_text=True)
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=8,
                             practice=0, block_size=3, no_instructions=True)
    return BenchlabApp(session=(runner, task), guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)


def test_trial_screen(snap_compare: Any, app: BenchlabApp) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("1")  # show the second trial: progress 1 of 20
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 24), run_before=before)


def test_compl_trial_with_three_options(snap_compare: Any, app: BenchlabApp) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        runner = app.flow.runner  # type: ignore[union-attr]
        while len(runner.options()) != 3:
            await pilot.press("1")
            await pilot.pause()
            if runner.stage.value == "break":
                await pilot.press("space")
                await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 24), run_before=before)


def test_break_screen(snap_compare: Any, app: BenchlabApp) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        for _ in range(3):
            await pilot.press("1")
            await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 24), run_before=before)


def test_experimenter_menu_over_a_trial(snap_compare: Any, app: BenchlabApp) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press(*DEFAULT_KEYS.keys)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 24), run_before=before)


def test_practice_feedback(snap_compare: Any, tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=3, sizes=(4,), seed=3, long_text=True)
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=8,
                             practice=2, no_instructions=True)
    app = BenchlabApp(session=(runner, task), guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)

    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 24), run_before=before)
