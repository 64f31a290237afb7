"""SORT sessions in the app, driven by key presses and clicks (Pilot): what is shown and what reaches disk."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from session_helpers import hand_over
from textual.pilot import Pilot
from textual.widgets import Static

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.annotations.session.runner import Stage
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.screens.break_screen import BreakScreen
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.screens.feedback import FeedbackScreen
from benchlab.tui.sort.excerpt_view import ExcerptView
from benchlab.tui.sort.trial_screen import SortTrialScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


def make_app(out: Path, *, condition: str = "stm", trials: int = 4, practice: int = 0, block_size: int = 10,
             seed: int = 7, participant: str = "P01", delay: float = 0.0, **extra: str) -> BenchlabApp:
    task = registry().get("sort")
    renamed = {"min_reading": "min_reading_s", "max_reading": "max_reading_s"}
    runner = prepare_session(
        task, participant=participant, out=str(out), seed=seed, practice=practice, block_size=block_size,
        trials=trials, no_instructions=True, excerpt_length=250, segment_length=20, condition=condition,
        delay_s=delay, **{"min_seen_share": 0.0, **{renamed.get(k, k): v for k, v in extra.items()}},
    )
    return BenchlabApp(session=(runner, task), **FAST)


def shown(app: BenchlabApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def results(out: Path, participant: str = "P01") -> pd.DataFrame:
    path = out / "results" / f"250-s20-human_{participant}_results.csv"
    return pd.read_csv(path, index_col=0, keep_default_na=False) if path.exists() else pd.DataFrame()


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_segment_a_is_segment_1_exactly_when_present_seg1_first(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(out, condition="ltm", trials=12, block_size=12)
    seen = {0: 0, 1: 0}
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        while isinstance(app.screen, SortTrialScreen):
            screen = app.screen
            record = screen.record
            a = shown(app, "#segment-a .segment-text")
            b = shown(app, "#segment-b .segment-text")
            if record.present_seg1_first == 1:
                assert (a, b) == (record.segment_1, record.segment_2)
            else:
                assert (a, b) == (record.segment_2, record.segment_1)
            seen[record.present_seg1_first] += 1
            # The gold answer is nowhere on screen.
            assert "correct" not in " ".join(str(w.render()) for w in screen.query(Static)).lower()
            await pilot.press("a")
            await settle(pilot)
    assert seen[0] > 0 and seen[1] > 0
    frame = results(out)
    assert len(frame) == 12
    # Answering A is correct exactly when segment_1 was shown as A.
    assert (frame["correct"] == (frame["present_seg1_first"] == 1)).all()
    assert set(frame["answer"]) == {"A"} and set(frame["condition"]) == {"ltm"}


async def test_stm_session_end_to_end_with_practice_breaks_and_timing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(out, trials=4, practice=2, block_size=2)
    runner = app._initial_session[0]  # type: ignore[index]
    answers: list[str] = []
    stages: list[str] = []
    async with app.run_test(size=(70, 24)) as pilot:  # 18 rows cut the question (it pauses below its size)
        await settle(pilot)
        for _ in range(40):
            screen = app.screen
            if isinstance(screen, SortTrialScreen):
                assert screen.phase == "reading"
                view = screen.query_one(ExcerptView)
                assert view.line_count > 0
                assert "Read this passage from" in shown(app, "#reading-intro")
                # Answer keys do nothing while reading; Enter moves on to the question.
                await pilot.press("a", "pagedown", "down")
                await settle(pilot)
                assert screen.phase == "reading" and view.scroll_offset.y > 0
                await pilot.press("enter")
                await settle(pilot)
                assert screen.phase == "question"
                assert "first" in shown(app, "#question-text")
                key = "left" if len(answers) % 2 == 0 else "b"
                answers.append("A" if key == "left" else "B")
                await pilot.press(key)
                await settle(pilot)
            elif isinstance(screen, FeedbackScreen):
                stages.append("feedback")
                await pilot.press("space")
                await settle(pilot)
            elif isinstance(screen, BreakScreen):
                stages.append("break")
                await pilot.press("space")
                await settle(pilot)
            elif isinstance(screen, EndScreen):
                stages.append("end")
                break
    assert runner.stage is Stage.END
    assert stages.count("feedback") == 2 and stages.count("break") == 2 and stages[-1] == "end"
    frame = results(out)
    practice = pd.read_csv(out / "practice" / "250-s20-human_P01_practice.csv", index_col=0)
    assert len(frame) == 4 and len(practice) == 2 and practice["practice"].all() and not frame["practice"].any()
    assert list(practice["answer"]) + list(frame["answer"]) == answers
    # Reading time, question onset and response come from the same clock, in order.
    for row in frame.itertuples():
        assert row.excerpt_onset_mono < row.continue_mono <= row.question_onset_mono < row.response_mono
        assert row.reading_ms == pytest.approx((row.continue_mono - row.excerpt_onset_mono) * 1000, abs=0.01)
        assert row.rt_ms == pytest.approx((row.response_mono - row.question_onset_mono) * 1000, abs=0.01)
    assert set(frame["input"]) == {"key"} and set(frame["model_name"]) == {"human-P01"}
    # Every excerpt is read once.
    assert frame[["book_idx", "excerpt_idx"]].drop_duplicates().shape[0] == 4


async def test_mouse_click_answers_and_min_reading_time_holds_enter(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(out, trials=4, min_reading="30")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SortTrialScreen)
        # the countdown starts at the declared 30 s (a loaded machine may take a second or two to settle)
        countdown = re.search(r"You can continue in (\d+) s", shown(app, "#reading-hint"))
        assert countdown is not None and 26 <= int(countdown.group(1)) <= 30
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "reading" and screen.ignored_keys == 1
        screen.settings = type(screen.settings)(min_reading_s=0.0)  # the experimenter's minimum has passed
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "question"
        await pilot.click("#option-B")
        await settle(pilot)
    frame = results(out)
    assert list(frame["answer"]) == ["B"] and list(frame["input"]) == ["mouse"]


async def test_delay_screen_then_question_and_max_reading_timeout(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(out, trials=4, delay=1.0, max_reading="0.5")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SortTrialScreen)
        phases = []
        for _ in range(500):  # the maximum reading time passes without Enter, then the delay
            await pilot.pause(0.02)
            if not phases or phases[-1] != screen.phase:
                phases.append(screen.phase)
                if screen.phase == "delay":
                    assert "question follows" in shown(app, "#delay-text")
            if screen.phase == "question" and screen.onset_mono is not None:
                break
        assert phases[-2:] == ["delay", "question"] and set(phases) <= {"reading", "delay", "question"}
        await pilot.press("right")
        await settle(pilot)
    row = results(out).iloc[0]
    assert row["answer"] == "B" and bool(row["reading_timed_out"]) is True
    assert row["delay_ms"] >= 1000
    assert row["reading_ms"] >= 500


async def test_launcher_runs_a_sort_session_with_its_own_fields(tmp_path: Path) -> None:
    from textual.widgets import Input, OptionList, Select

    from benchlab.tui.screens.launcher import LauncherScreen
    from benchlab.tui.screens.session_setup import SessionSetupScreen

    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LauncherScreen)
        menu = app.screen.query_one(OptionList)
        ids = [menu.get_option_at_index(i).id for i in range(menu.option_count)]
        menu.highlighted = ids.index("task:sort")
        await pilot.press("enter")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, SessionSetupScreen)
        assert not form.query("#f-min_gap")  # WorldSense-only fields are hidden
        assert form.query_one("#f-trials", Input).value == "20"
        form.query_one("#f-participant", Input).value = "L1"
        form.query_one("#f-out", Input).value = str(tmp_path / "out")
        form.query_one("#f-practice", Input).value = "0"
        form.query_one("#f-trials", Input).value = "4"  # one per distance bin at least
        form.query_one("#f-condition", Select).value = "ltm"
        await app.workers.wait_for_complete()  # the data set's lengths, offered as choices (issue 12)
        await settle(pilot)
        form.query_one("#f-excerpt_length", Select).value = "1000"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await hand_over(app, pilot)
        from benchlab.tui.screens.instructions import InstructionsScreen

        assert isinstance(app.screen, InstructionsScreen)
        assert "from the book" in str(app.screen.pages[0]) and "appears **first** in the book" in app.screen.pages[0]
        await pilot.press("enter")  # the built-in LTM instructions are one page
        await settle(pilot)
        screen = app.screen
        assert screen.phase == "question" and "in The Murder Of Roger Ackroyd" in shown(app, "#question-text")
        assert screen.record.excerpt_length == 1000
        for _ in range(2):
            await pilot.press("a")
            await settle(pilot)
    frame = pd.read_csv(tmp_path / "out" / "results" / "1000-s20-human_L1_results.csv", index_col=0)
    assert len(frame) == 2 and set(frame["condition"]) == {"ltm"}


async def test_experimenter_skip_records_x_and_end_keeps_everything(tmp_path: Path) -> None:
    from benchlab.tui.screens.experimenter_menu import ExperimenterMenu

    out = tmp_path / "out"
    app = make_app(out, trials=4)
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press(*DEFAULT_KEYS.keys)  # while the participant is reading
        await settle(pilot)
        assert isinstance(app.screen, ExperimenterMenu)
        await pilot.press("s", "y")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SortTrialScreen) and screen.phase == "reading"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        await pilot.press("e", "y")
        await settle(pilot)
    frame = results(out)
    assert list(frame["answer"]) == ["X", "A"]
    assert list(frame["input"]) == ["experimenter", "key"] and not frame["correct"].iloc[0]
    assert frame["reading_ms"].iloc[0] == "" and float(frame["reading_ms"].iloc[1]) > 0
    assert runner.end_reason is not None and runner.end_reason.value == "aborted"


async def test_the_two_segment_boxes_are_the_same_height_and_their_buttons_line_up(tmp_path: Path) -> None:
    """Segments that wrap to different numbers of lines made boxes of unequal height and misaligned buttons."""
    app = make_app(tmp_path / "out", condition="ltm", trials=12, block_size=12)
    uneven = 0
    async with app.run_test(size=(70, 40)) as pilot:
        await settle(pilot)
        while isinstance(app.screen, SortTrialScreen):
            screen = app.screen
            ta, tb = (screen.query_one(f"#segment-{x} .segment-text").region for x in "ab")
            uneven += ta.height != tb.height
            a, b = screen.query_one("#segment-a").region, screen.query_one("#segment-b").region
            assert a.height == b.height and a.y == b.y
            ba, bb = screen.query_one("#option-A").region, screen.query_one("#option-B").region
            assert ba.y == bb.y and ba.y >= a.bottom
            await pilot.press("a")
            await settle(pilot)
    assert uneven  # the case in question did occur
