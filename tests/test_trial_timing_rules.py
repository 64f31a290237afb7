"""The timing rules every trial screen shares (TrialScreen): which frame's write is a stimulus's onset, and that
the onset a frame stamped is the one the record's RT is measured from, for choice and SORT trials alike."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from session_helpers import write_testset
from textual.pilot import Pilot

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.tui.app import BenchlabApp
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.screens.trial_base import TrialScreen
from benchlab.tui.sort.trial_screen import SortTrialScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_choice_trial_onset_is_the_first_frame_write_and_the_rt_counts_from_it(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2, sizes=(3,))
    out = tmp_path / "out"
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(out), seed=3, practice=0,
                             no_instructions=True, tuples_per_cell=2)
    app = BenchlabApp(session=(runner, task), **FAST)
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChoiceTrialScreen) and isinstance(screen, TrialScreen)
        fallback = screen.onset_mono
        assert fallback is not None and screen.onset_source == "after_refresh"  # headless: nothing is written
        hook = screen.onset_hook()
        assert hook is not None
        written = fallback - 0.004
        hook(written)  # what the frame clock does from the writer thread
        assert screen.onset_mono == written and screen.onset_source == "frame_written"
        assert screen.onset_hook() is None  # the first written frame is final; later frames stamp nothing
        assert screen.first_onset_mono == written
        await pilot.press("1")
        await settle(pilot)
        assert screen.onset_hook() is None  # answered: nothing changes any more
    record = json.loads((out / "results" / "basic___human-P01___results.jsonl").read_text().splitlines()[0])
    assert record["onset_mono"] == written and record["onset_source"] == "frame_written"
    assert record["rt_ms"] == pytest.approx((record["response_mono"] - written) * 1000, abs=0.002)


async def test_sort_trial_stamps_excerpt_then_question_and_nothing_during_the_delay(tmp_path: Path) -> None:
    out = tmp_path / "out"
    task = registry().get("sort")
    runner = prepare_session(task, participant="P01", out=str(out), seed=7, practice=0, block_size=10, trials=4,
                             no_instructions=True, excerpt_length=250, segment_length=20, condition="stm",
                             delay_s=2.0)  # long enough that a loaded machine still sees the delay after the key
    app = BenchlabApp(session=(runner, task), **FAST)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SortTrialScreen) and screen.phase == "reading"
        hook = screen.onset_hook()
        assert hook is not None and screen.excerpt_onset_mono is not None
        excerpt = screen.excerpt_onset_mono - 0.002
        hook(excerpt)
        assert screen.excerpt_onset_mono == excerpt and screen.onset_mono is None
        assert screen.first_onset_mono == excerpt  # the trial is first on screen with its excerpt
        await pilot.press("enter")
        assert screen.phase == "delay" and screen.onset_hook() is None  # the delay screen is no stimulus
        deadline = time.monotonic() + 15
        while (screen.phase != "question" or screen.onset_mono is None) and time.monotonic() < deadline:
            await pilot.pause(0.05)
        hook = screen.onset_hook()
        assert hook is not None
        question = screen.onset_mono - 0.001
        hook(question)
        assert screen.onset_mono == question and screen.onset_source == "frame_written"
        assert screen.first_onset_mono == excerpt
        await pilot.press("a")
        await settle(pilot)
    row = pd.read_csv(out / "results" / "250-s20-human_P01_results.csv", index_col=0, keep_default_na=False).iloc[0]
    assert row.excerpt_onset_mono == excerpt and row.question_onset_mono == question
    assert row.onset_source == "frame_written"
    assert row.rt_ms == pytest.approx((row.response_mono - question) * 1000, abs=0.01)
