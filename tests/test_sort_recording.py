"""What a SORT trial records beyond the answer: no RT for a skipped trial; in STM the reading time and how far down
the excerpt the participant was shown (share of its lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from textual.pilot import Pilot

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.sort.excerpt_view import ExcerptView
from benchlab.tui.sort.trial_screen import SortTrialScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


def _app(out: Path, *, condition: str = "stm", excerpt_length: int = 1000, trials: int = 4,
         min_seen_share: float = 0.0) -> BenchlabApp:
    """A session whose participant may continue having seen any share (these tests measure the share itself)."""
    task = registry().get("sort")
    runner = prepare_session(task, participant="P01", out=str(out), seed=11, practice=0, block_size=10, trials=trials,
                             no_instructions=True, excerpt_length=excerpt_length, segment_length=20,
                             condition=condition, min_seen_share=min_seen_share)
    return BenchlabApp(session=(runner, task), **FAST)


def _results(out: Path, excerpt_length: int = 1000) -> pd.DataFrame:
    return pd.read_csv(out / "results" / f"{excerpt_length}-s20-human_P01_results.csv", index_col=0,
                       keep_default_na=False)


async def _settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_stm_records_reading_time_and_the_share_of_the_excerpt_seen(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = _app(out)
    shares: list[float] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        # Trial 1: scroll until half of the excerpt has been on screen, then continue and answer.
        screen = app.screen
        assert isinstance(screen, SortTrialScreen)
        view = screen.query_one(ExcerptView)
        total, height = view.line_count, view.scrollable_content_region.height
        assert total > 4 * height  # a 1000-word excerpt does not fit: the participant has to scroll
        while view.scroll_offset.y + height < total / 2:
            await pilot.press("down")
        await _settle(pilot)
        shares.append((view.scroll_offset.y + height) / total)
        await pilot.press("enter")
        await _settle(pilot)
        await pilot.press("a")
        await _settle(pilot)
        # Trial 2: no scrolling at all.
        second = app.screen
        assert isinstance(second, SortTrialScreen) and second is not screen
        view = second.query_one(ExcerptView)
        shares.append(view.scrollable_content_region.height / view.line_count)
        await pilot.press("enter")
        await _settle(pilot)
        await pilot.press("b")
        await _settle(pilot)
        # Trial 3: to the end, then back to the top (the furthest point counts, not where the reader stopped).
        await pilot.press("end")
        await _settle(pilot)
        await pilot.press("home")
        await _settle(pilot)
        await pilot.press("enter")
        await _settle(pilot)
        await pilot.press("a")
        await _settle(pilot)
    frame = _results(out)
    assert len(frame) == 3
    recorded = frame["seen_share"].astype(float).tolist()
    assert recorded[0] == pytest.approx(shares[0], abs=0.02) and 0.45 <= recorded[0] <= 0.6
    assert recorded[1] == pytest.approx(shares[1], abs=0.02) and recorded[1] < 0.3
    assert recorded[2] == 1.0
    assert (frame["reading_ms"].astype(float) > 0).all()
    assert set(frame["design"]) == {"excerpt"}


async def test_ltm_records_no_share_seen(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = _app(out, condition="ltm", excerpt_length=250, trials=4)
    async with app.run_test(size=(100, 30)) as pilot:
        await _settle(pilot)
        await pilot.press("a")
        await _settle(pilot)
    frame = _results(out, 250)
    assert list(frame["seen_share"]) == [""] and list(frame["reading_ms"]) == [""]


async def test_a_skipped_trial_records_no_response_time(tmp_path: Path) -> None:
    """QA: a skipped trial recorded rt_ms = the time until the experimenter skipped it."""
    out = tmp_path / "out"
    app = _app(out, condition="ltm", excerpt_length=250, trials=4)
    async with app.run_test(size=(100, 30)) as pilot:
        await _settle(pilot)
        await pilot.pause(0.2)  # the question has been on screen for a while
        await pilot.press(*DEFAULT_KEYS.keys)
        await _settle(pilot)
        await pilot.press("s", "y")
        await _settle(pilot)
        assert isinstance(app.screen, SortTrialScreen)
        await pilot.press("b")
        await _settle(pilot)
    skipped, answered = _results(out, 250).to_dict("records")
    assert skipped["answer"] == "X" and skipped["input"] == "experimenter" and not skipped["correct"]
    assert skipped["rt_ms"] == ""  # no response, no response time
    assert skipped["question_onset_mono"] != ""  # the question's onset is still recorded
    assert answered["answer"] == "B" and float(answered["rt_ms"]) > 0
