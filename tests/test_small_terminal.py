"""A terminal too small to show the stimulus (or a participant's font zoom) pauses the trial behind a "please make
this window larger" notice: no key is an answer until the size is back, then the onset restarts and the record
says the trial was interrupted (issue 13, defect 2). Reading time in SORT counts only time with the excerpt shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from session_helpers import write_testset
from textual.geometry import Size
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.tui.app import BenchlabApp
from benchlab.tui.screens.break_screen import BreakScreen
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.screens.consent import ConsentScreen
from benchlab.tui.screens.instructions import InstructionsScreen
from benchlab.tui.screens.size_guard import SizeGuardedScreen
from benchlab.tui.sort.trial_screen import SortTrialScreen
from benchlab.tui.textual_private import app_driver, get_time
from benchlab.tui.widgets.enlarge_notice import TITLE

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}
SMALL = [(20, 5), (40, 10)]


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def whole(screen: Any, widget: Widget) -> bool:
    """The widget is laid out entirely inside the screen and its scroll container's view."""
    geometry = screen._compositor.find_widget(widget)
    return bool(geometry.clip.contains_region(geometry.region) and screen.region.contains_region(geometry.region))


def notice_shown(screen: SizeGuardedScreen) -> bool:
    return screen.too_small and screen.notice.display and TITLE in str(screen.notice.render())


def worldsense_app(tmp_path: Path, **extra: Any) -> BenchlabApp:
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2, sizes=(3,), problems=("Infer.trivial",))
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=1,
                             **{"practice": 0, "no_instructions": True, **extra})
    return BenchlabApp(session=(runner, task), **FAST)


def records(app: BenchlabApp) -> list[dict[str, Any]]:
    path = app._initial_session[0].files.results  # type: ignore[index]
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("small", SMALL)
async def test_worldsense_trial_records_nothing_while_too_small(tmp_path: Path, small: tuple[int, int]) -> None:
    app = worldsense_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChoiceTrialScreen) and not screen.too_small
        first = screen.onset_mono
        assert first is not None
        await pilot.resize_terminal(*small)
        await pilot.press("1", "2", "3")
        await settle(pilot)
        assert notice_shown(screen) and not screen.query_one("#question-scroll").display
        await pilot.click("#enlarge-notice")
        await pilot.press("2", "escape", "enter")
        await settle(pilot)
        assert records(app) == [] and app.screen is screen  # nothing on disk, still the same trial
        restored = get_time()
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not screen.too_small and screen.query_one("#question-scroll").display
        assert screen.onset_mono is not None and screen.onset_mono > restored  # a fresh onset
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("1")  # the next trial: not interrupted
        await settle(pilot)
    hit, plain = records(app)
    assert hit["interrupted"] is True and hit["first_onset_mono"] == first
    assert hit["onset_mono"] == screen.onset_mono and hit["resp"] == screen.options[1]
    assert hit["rt_ms"] == pytest.approx((hit["response_mono"] - hit["onset_mono"]) * 1000, abs=0.002)
    assert hit["ignored_keys"] == 6  # every press during the pause is counted, none answered
    assert plain["interrupted"] is False and plain["first_onset_mono"] is None


async def test_a_key_right_after_a_shrink_is_no_answer(tmp_path: Path) -> None:
    """Textual tells the screen about a resize up to 1/120 s late; a key in between is still no answer."""
    from textual.events import Resize

    app = worldsense_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChoiceTrialScreen)
        app_driver(app)._size = Size(20, 5)  # type: ignore[union-attr]  # a resize the terminal would report
        app.post_message(Resize(Size(20, 5), Size(20, 5)))
        await pilot.press("1")
        await settle(pilot)
        assert records(app) == [] and notice_shown(screen)


async def test_a_trial_started_in_a_small_window_waits_for_its_onset(tmp_path: Path) -> None:
    app = worldsense_app(tmp_path)
    async with app.run_test(size=(40, 10)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChoiceTrialScreen) and notice_shown(screen) and screen.onset_mono is None
        await pilot.press("1")
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert screen.onset_mono is not None
        await pilot.press("1")
        await settle(pilot)
    (record, ) = records(app)
    assert record["interrupted"] is False and record["onset_mono"] == screen.onset_mono  # it was never shown before


@pytest.mark.parametrize("width", [40, 75, 100])
async def test_the_size_a_trial_needs_is_exactly_what_shows_it_whole(tmp_path: Path, width: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """At the computed need the question is whole (no scrolling) with every button; one row less it is not."""
    testset = write_testset(tmp_path / "ws", tuples_per_cell=2, sizes=(5,), long_text=True, problems=("Compl.normal",))
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P01", out=str(tmp_path / "out"), seed=1,
                             practice=0, no_instructions=True)
    app = BenchlabApp(session=(runner, task), **FAST)
    async with app.run_test(size=(width, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChoiceTrialScreen) and len(screen.options) == 3
        need = screen.needed_size(width)
        width = max(width, need.width)  # three buttons need more than 40 columns
        assert need.width > 40
        await pilot.resize_terminal(width, need.height)
        await settle(pilot)
        scroll = screen.query_one("#question-scroll")
        assert not screen.too_small and scroll.max_scroll_y == 0
        assert all(whole(screen, button) for button in screen.query("OptionButton"))
        await pilot.resize_terminal(width, need.height - 1)
        await settle(pilot)
        assert notice_shown(screen)
        monkeypatch.setattr(SizeGuardedScreen, "fits", lambda self, size: True)  # what would show without the pause
        await pilot.resize_terminal(width, need.height - 2)
        await pilot.resize_terminal(width, need.height - 1)
        await settle(pilot)
        assert not screen.too_small
        assert scroll.max_scroll_y > 0 or not all(whole(screen, b) for b in screen.query("OptionButton"))


def sort_app(out: Path, **extra: Any) -> BenchlabApp:
    """A SORT STM session whose reader may continue without scrolling (these tests are about sizes and onsets)."""
    task = registry().get("sort")
    runner = prepare_session(task, participant="P01", out=str(out), seed=5, practice=0, trials=4,
                             no_instructions=True, excerpt_length=250, segment_length=20, condition="stm",
                             **{"min_seen_share": 0.0, **extra})
    return BenchlabApp(session=(runner, task), **FAST)


def sort_results(out: Path) -> pd.DataFrame | None:
    path = out / "results" / "250-s20-human_P01_results.csv"
    return pd.read_csv(path, index_col=0, keep_default_na=False) if path.exists() else None


@pytest.mark.parametrize("small", SMALL)
async def test_sort_reading_and_question_pause_and_reading_time_counts_only_the_excerpt_shown(
        tmp_path: Path, small: tuple[int, int]) -> None:
    out = tmp_path / "out"
    app = sort_app(out)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SortTrialScreen) and screen.phase == "reading"
        first = screen.excerpt_onset_mono
        assert first is not None
        await pilot.resize_terminal(*small)
        await pilot.press("enter", "a", "b")
        await settle(pilot)
        assert notice_shown(screen) and screen.phase == "reading" and screen.continue_mono is None
        await pilot.pause(0.3)  # hidden: must not count as reading
        restored = get_time()
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert screen.excerpt_onset_mono is not None and screen.excerpt_onset_mono > restored
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "question" and screen.onset_mono is not None
        question_first = screen.onset_mono
        await pilot.resize_terminal(*small)
        await pilot.press("a", "b", "left", "right")
        await pilot.click("#enlarge-notice")
        await settle(pilot)
        assert notice_shown(screen) and sort_results(out) is None  # nothing on disk
        restored_q = get_time()
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert screen.onset_mono is not None and screen.onset_mono > restored_q > question_first
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, SortTrialScreen) and app.screen is not screen
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
    frame = sort_results(out)
    assert frame is not None and list(frame["answer"]) == ["B", "A"]
    row = frame.iloc[0]
    assert row["interrupted"] in (True, "True") and float(row["first_onset_mono"]) == first
    assert float(row["excerpt_onset_mono"]) > restored  # reading restarted when the excerpt was whole again
    assert float(row["question_onset_mono"]) > restored_q
    reading_s = float(row["reading_ms"]) / 1000
    assert reading_s == pytest.approx(float(row["continue_mono"]) - float(row["excerpt_onset_mono"]), abs=1e-5)
    assert reading_s < float(row["continue_mono"]) - restored  # none of the 0.3 s hidden time
    assert frame.iloc[1]["interrupted"] in (False, "False")


async def test_sort_question_needs_both_segments_whole(tmp_path: Path) -> None:
    """A window large enough for the excerpt but not the question pauses exactly when the question comes."""
    app = sort_app(tmp_path / "out")
    async with app.run_test(size=(70, 18)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SortTrialScreen) and not screen.too_small
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "question" and notice_shown(screen) and screen.onset_mono is None
        need = screen.needed_size(70)
        await pilot.resize_terminal(70, need.height)
        await settle(pilot)
        assert not screen.too_small and screen.onset_mono is not None
        parts = screen.query("#question Static, #question OptionButton")
        assert len(parts) == 7 and all(whole(screen, part) for part in parts)


async def test_consent_instructions_and_breaks_pause_too(tmp_path: Path) -> None:
    consent = tmp_path / "consent.md"
    consent.write_text("# Consent\n\n" + "You may stop at any time. " * 80)
    app = worldsense_app(tmp_path, no_instructions=False, block_size=1, consent_file=str(consent))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        agree = app.screen
        assert isinstance(agree, ConsentScreen) and not agree.too_small
        await pilot.resize_terminal(40, 10)
        await pilot.press("y")
        await pilot.click("#enlarge-notice")
        await settle(pilot)
        assert notice_shown(agree) and app.screen is agree  # neither agreed nor declined
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InstructionsScreen)
        await pilot.resize_terminal(20, 5)
        await pilot.press("space", "space", "space", "enter")
        await settle(pilot)
        assert notice_shown(screen) and screen.page == 0 and app.screen is screen
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.press("space", "space", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceTrialScreen)
        await pilot.press("1")
        await settle(pilot)
        pause = app.screen
        assert isinstance(pause, BreakScreen)
        await pilot.resize_terminal(30, 8)
        await pilot.press("space")
        await settle(pilot)
        assert notice_shown(pause) and app.screen is pause
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert "Press Space" in str(pause.query_one("#hint", Static).render())
        await pilot.press("space")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceTrialScreen)


def test_please_enlarge_screen(snap_compare: Any, tmp_path: Path) -> None:
    app = worldsense_app(tmp_path)

    async def before(pilot: Pilot[Any]) -> None:
        await settle(pilot)

    assert snap_compare(app, terminal_size=(40, 10), run_before=before)
