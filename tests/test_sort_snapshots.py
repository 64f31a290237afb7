"""How the SORT reading and question screens look (SVG snapshots; regenerate with --snapshot-update, review)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from benchlab.tui.app import BenchlabApp
from benchlab.tui.sort.task_ui import SortUI
from benchlab.tui.task_registry import SessionRequest


def _app(tmp_path: Path, condition: str) -> BenchlabApp:
    ui = SortUI()
    request = SessionRequest(dataset=str(ui.default_dataset()), participant="P01", out=str(tmp_path / "out"), seed=2,
                             practice=0, block_size=10, items_per_cell=8, no_instructions=True,
                             extra={"excerpt_length": "250", "segment_length": "20", "condition": condition})
    return BenchlabApp(session=(ui.prepare(request), ui), guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)


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
