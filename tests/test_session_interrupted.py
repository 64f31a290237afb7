"""A trial the experimenter menu interrupted is shown again with a fresh onset (the menu time is not in the RT),
and its record says so: ``interrupted`` and the first onset, in WorldSense JSONL and in SORT CSV."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from session_helpers import write_testset
from textual.pilot import Pilot

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.session.plan import PlannedStep, SessionPlan
from benchlab.annotations.session.runner import ResponseTiming
from benchlab.annotations.sort.human_record import HUMAN_COLUMNS, LEGACY_HUMAN_COLUMNS, SortResultsLog
from benchlab.annotations.sort.session import SortTaskSession
from benchlab.annotations.sort.task import load_trials as load_sort_trials
from benchlab.data.sort.results import read_results
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.sort.trial_screen import SortTrialScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def menu_then_continue(pilot: Pilot[Any]) -> None:
    await pilot.press(*DEFAULT_KEYS.keys)
    await settle(pilot)
    await pilot.pause(0.05)  # the menu is open for a while: this time must not count
    await pilot.press("c")
    await settle(pilot)


async def test_worldsense_record_marks_an_interrupted_trial(tmp_path: Path) -> None:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2, sizes=(3,), problems=("Infer.trivial",))
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=1,
                             practice=0, no_instructions=True)
    app = BenchlabApp(session=(runner, task), **FAST)
    async with app.run_test() as pilot:
        await settle(pilot)
        first = app.screen
        assert isinstance(first, ChoiceTrialScreen) and first.onset_mono is not None
        await menu_then_continue(pilot)
        await menu_then_continue(pilot)  # twice: the first onset is still the very first one
        again = app.screen
        assert isinstance(again, ChoiceTrialScreen) and again is not first
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("2")  # the next trial, not interrupted
        await settle(pilot)
        third = app.screen
        assert isinstance(third, ChoiceTrialScreen)
        await menu_then_continue(pilot)
        await pilot.press(*DEFAULT_KEYS.keys)  # then the experimenter skips it after all
        await settle(pilot)
        await pilot.press("s", "y")
        await settle(pilot)
    records = [json.loads(line) for line in runner.files.results.read_text().splitlines()]
    hit, plain, skipped = records
    assert skipped["skipped"] is True and skipped["interrupted"] is True
    assert skipped["first_onset_mono"] == third.onset_mono
    assert hit["interrupted"] is True and hit["first_onset_mono"] == first.onset_mono
    assert hit["onset_mono"] == again.onset_mono and hit["onset_mono"] > hit["first_onset_mono"]  # fresh onset kept
    assert hit["rt_ms"] == pytest.approx((hit["response_mono"] - hit["onset_mono"]) * 1000, abs=0.002)
    assert plain["interrupted"] is False and plain["first_onset_mono"] is None


def sort_app(out: Path, **extra: str) -> BenchlabApp:
    task = registry().get("sort")
    runner = prepare_session(task, participant="P01", out=str(out), seed=5, practice=0, trials=4,
                             no_instructions=True, excerpt_length=250, segment_length=20, **extra)
    return BenchlabApp(session=(runner, task), **FAST)


async def test_sort_csv_marks_an_interrupted_trial(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = sort_app(out, condition="stm")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first = app.screen
        assert isinstance(first, SortTrialScreen) and first.excerpt_onset_mono is not None
        await menu_then_continue(pilot)  # while reading
        again = app.screen
        assert isinstance(again, SortTrialScreen) and again.phase == "reading"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
    path = out / "results" / "250-s20-human_P01_results.csv"
    with open(path, newline="") as handle:
        assert next(csv.reader(handle)) == HUMAN_COLUMNS  # new columns at the end of the header
    frame = pd.read_csv(path, index_col=0, keep_default_na=False)
    assert list(frame["interrupted"]) == [True, False]
    assert float(frame["first_onset_mono"].iloc[0]) == first.excerpt_onset_mono
    assert frame["first_onset_mono"].iloc[1] == ""
    assert float(frame["excerpt_onset_mono"].iloc[0]) > first.excerpt_onset_mono  # the fresh reading onset is used


def test_sort_files_written_before_the_new_columns_still_read_and_resume(tmp_path: Path) -> None:
    """An older file (header without ``interrupted``/``first_onset_mono``) is scored and appended to in its layout."""
    test, validation = load_sort_trials(str(registry().get("sort").default_dataset()), 250, 20, None)
    task = SortTaskSession([*test, *validation])
    plan = SessionPlan(task="sort", dataset="d", participant="P01", session="1", seed=1,
                       config={"condition": "stm"}, blocks=[[test[0].trial_id, test[1].trial_id]])
    rows = [task.make_record(plan, PlannedStep(item, False, i, 1), "A", ResponseTiming(1.0, 2.0), skipped=False,
                             simulated=None) for i, item in enumerate(plan.main_items)]
    path = tmp_path / "250-s20-human-P01_results.csv"
    old = [LEGACY_HUMAN_COLUMNS, ["0", *(str(rows[0][c]) if rows[0][c] is not None else ""
                                        for c in LEGACY_HUMAN_COLUMNS[1:])]]
    with open(path, "w", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(old)
    log = SortResultsLog(path)
    assert log.answered() == {test[0].trial_id}
    log.append(rows[1])
    with open(path, newline="") as handle:
        written = list(csv.reader(handle))
    assert written[0] == LEGACY_HUMAN_COLUMNS and all(len(r) == len(LEGACY_HUMAN_COLUMNS) for r in written)
    assert len(read_results(path)) == 2
