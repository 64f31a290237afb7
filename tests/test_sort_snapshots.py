"""How the SORT reading and question screens look (SVG snapshots; regenerate with --snapshot-update, review)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.tui.app import BenchlabApp


def _app(tmp_path: Path, condition: str) -> BenchlabApp:
    task = registry().get("sort")
    # seed 1819: first trial 69087-e250-s20-x27-d125 in both conditions (the trial of these snapshots)
    runner = prepare_session(task, participant="P01", out=str(tmp_path / "out"), seed=1819, practice=0, block_size=10,
                             trials=8, no_instructions=True, excerpt_length=250, segment_length=20,
                             condition=condition)
    return BenchlabApp(session=(runner, task), guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)


def test_stm_reading_screen(snap_compare: Any, tmp_path: Path) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()

    assert snap_compare(_app(tmp_path, "stm"), terminal_size=(100, 30), run_before=before)


def test_stm_question_screen(snap_compare: Any, tmp_path: Path) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(_app(tmp_path, "stm"), terminal_size=(100, 30), run_before=before)


def test_ltm_question_screen(snap_compare: Any, tmp_path: Path) -> None:
    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()

    assert snap_compare(_app(tmp_path, "ltm"), terminal_size=(100, 30), run_before=before)
