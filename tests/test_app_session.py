"""The participant app driven by key presses (Pilot): what is shown, and what is written to disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from session_helpers import hand_over, write_testset
from textual.pilot import Pilot
from textual.widgets import Button, Static

from benchlab.annotations.registry import registry
from benchlab.annotations.session.opening import prepare_session
from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.screens.break_screen import BreakScreen
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.screens.consent import ConsentScreen
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.screens.experimenter_menu import ExperimenterMenu
from benchlab.tui.screens.feedback import FeedbackScreen
from benchlab.tui.screens.handback import HandbackScreen
from benchlab.tui.screens.instructions import InstructionsScreen
from benchlab.tui.screens.launcher import LauncherScreen
from benchlab.tui.screens.session_setup import SessionSetupScreen
from benchlab.tui.screens.session_summary import SessionSummaryScreen

OBFUSCATED_GOLD = ("Emmanuel", "Megi", "Dieuwke", "Pascal", "Mark", "Youssef", "Yoda")


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=4, sizes=(3,))


def screen_text(app: BenchlabApp) -> str:
    parts = []
    for widget in app.screen.query("*"):
        if isinstance(widget, Static):
            parts.append(str(widget.render()))
        elif isinstance(widget, Button):
            parts.append(str(widget.label))
    return "\n".join(parts)


def make_app(testset: Path, out: Path, *, consent: str | None = None, instructions: str | None = None,
             fast: bool = True, **kw: Any) -> BenchlabApp:
    consent_file = instructions_file = None
    if consent is not None:
        consent_file = out.parent / "consent.md"
        consent_file.write_text(consent)
    if instructions is not None:
        instructions_file = out.parent / "instructions.md"
        instructions_file.write_text(instructions)
    if "practice_feedback" in kw:
        kw["feedback"] = kw.pop("practice_feedback")
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant=kw.pop("participant", "P01"), out=str(out),
                             seed=kw.pop("seed", 4), consent_file=str(consent_file) if consent_file else None,
                             instructions_file=str(instructions_file) if instructions_file else None,
                             no_instructions=instructions is None, **kw)
    speed = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0} if fast else {}
    return BenchlabApp(session=(runner, task), **speed)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_a_whole_session_by_key_presses(testset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(testset, out, consent="# Consent\n\nYou may stop at any time.",
                   instructions="# Page one\n\nRead carefully.\n---\n# Page two\n\nPress a number.",
                   practice=2, block_size=10)
    runner = app._initial_session[0]  # type: ignore[index]
    pressed: list[tuple[str, str]] = []
    seen_breaks: list[str] = []
    async with app.run_test(size=(110, 32)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ConsentScreen) and "You may stop at any time." in screen_text(app)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, InstructionsScreen) and "Page one" in screen_text(app)
        await pilot.press("space")
        await settle(pilot)
        assert "Page two" in screen_text(app) and "Press Enter to begin" in screen_text(app)
        await pilot.press("left")  # back one page
        await settle(pilot)
        assert "Page one" in screen_text(app)
        await pilot.press("right", "enter")
        await settle(pilot)
        # practice with feedback
        for i in range(2):
            assert isinstance(app.screen, ChoiceTrialScreen)
            assert f"Practice {i + 1} of 2" in screen_text(app)
            await pilot.press("1")
            await settle(pilot)
            assert isinstance(app.screen, FeedbackScreen)
            assert any(word in screen_text(app) for word in ("Correct.", "Not quite"))
            await pilot.press("space")
            await settle(pilot)
        assert isinstance(app.screen, BreakScreen) and "Practice finished" in screen_text(app)
        await pilot.press("space")
        await settle(pilot)
        n = 0
        while not isinstance(app.screen, EndScreen):
            screen = app.screen
            if isinstance(screen, BreakScreen):
                seen_breaks.append(screen_text(app))
                await pilot.press("space")
            else:
                assert isinstance(screen, ChoiceTrialScreen)
                assert len(lines(runner.files.results)) == n  # every earlier answer is on disk before this trial
                shown = screen_text(app)
                assert f"Question {n + 1} of {runner.n_main}" in shown
                assert screen.text in shown  # the question is shown whole
                assert not any(g in shown for g in OBFUSCATED_GOLD) and "Correct" not in shown
                key = str(1 + n % len(screen.options))
                pressed.append((runner.current.item_id, screen.options[int(key) - 1]))
                await pilot.press(key)
                n += 1
            await settle(pilot)
        assert "Thank you!" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
    assert app.return_value and "completed: 28 of 28" in app.return_value[0]
    assert len(seen_breaks) == 2 and "Block 1 of 3 done" in seen_breaks[0] and "Block 2 of 3 done" in seen_breaks[1]
    recorded = lines(runner.files.results)
    assert [(str(r["Key"]), r["resp"]) for r in recorded] == pressed  # what was pressed, in order, exactly once
    assert [r["trial_index"] for r in recorded] == list(range(28))
    assert [r["block"] for r in recorded] == [1] * 10 + [2] * 10 + [3] * 8
    assert all(r["input"] == "key" and r["rt_ms"] is not None and r["rt_ms"] >= 0 for r in recorded)
    for r in recorded:
        assert r["onset_mono"] >= r["requested_mono"]  # onset is stamped after the frame is out, not at request
        assert r["rt_ms"] == pytest.approx((r["response_mono"] - r["onset_mono"]) * 1000, abs=0.002)
    practice = lines(runner.files.practice)
    assert len(practice) == 2 and all(r["practice"] for r in practice)


async def test_declining_consent_ends_with_nothing_recorded(testset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(testset, out, consent="Do you agree?", instructions="Hello")
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, EndScreen) and "Nothing has been recorded" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
    assert [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".md"] == []
    assert app.return_value == ["Consent declined: nothing was recorded."]


async def test_kiosk_keys_neither_quit_nor_answer(testset: Path, tmp_path: Path) -> None:
    app = make_app(testset, tmp_path / "out", practice=0)
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test() as pilot:
        await settle(pilot)
        trial = app.screen
        assert isinstance(trial, ChoiceTrialScreen)
        for key in ("ctrl+q", "ctrl+c", "escape", "ctrl+p", "enter", "space", "tab", "4", "9", "a", "t"):
            await pilot.press(key)
            await settle(pilot)
        assert app.screen is trial and app.is_running and not app.use_command_palette
        assert not runner.files.results.exists()
        assert trial.ignored_keys == 9  # ctrl+q and ctrl+p are swallowed by the app before they reach the trial
        await pilot.press("2")
        await settle(pilot)
    record = lines(runner.files.results)[0]
    assert record["resp"] == trial.options[1] and record["ignored_keys"] == 9


async def test_a_held_key_does_not_answer_the_next_trial(testset: Path, tmp_path: Path) -> None:
    app = make_app(testset, tmp_path / "out", practice=0)
    app.repeat_window_s = 60.0  # every press of the same key counts as "still held" (no timing in the test)
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("1")  # answers trial 1
        await settle(pilot)
        second = app.screen
        await pilot.press("1")  # the same key again within the repeat window: an auto-repeat, ignored
        await settle(pilot)
        assert app.screen is second and len(lines(runner.files.results)) == 1
        await pilot.press("2")
        await settle(pilot)
    assert len(lines(runner.files.results)) == 2


async def test_keys_faster_than_the_minimum_rt_are_ignored(testset: Path, tmp_path: Path) -> None:
    app = make_app(testset, tmp_path / "out", practice=0, fast=False)
    app.min_rt_s = 30.0
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceTrialScreen) and app.screen.ignored_keys == 1
    assert not runner.files.results.exists()


async def test_mouse_click_answers_with_its_own_time(testset: Path, tmp_path: Path) -> None:
    app = make_app(testset, tmp_path / "out", practice=0)
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        trial = app.screen
        assert isinstance(trial, ChoiceTrialScreen)
        await pilot.click("#option-2")
        await settle(pilot)
    record = lines(runner.files.results)[0]
    assert record["resp"] == trial.options[1] and record["input"] == "mouse" and record["rt_ms"] >= 0


async def test_experimenter_chord_skips_a_trial_and_ends_the_session(testset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = make_app(testset, out, practice=0)
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test() as pilot:
        await settle(pilot)
        first = runner.current.item_id
        await pilot.press("ctrl+e")  # the second half alone does nothing
        await settle(pilot)
        assert isinstance(app.screen, ChoiceTrialScreen)
        await pilot.press("ctrl+x", "ctrl+e", *"menu")  # nor the old chord (bash's edit-command-line), nor a word
        await settle(pilot)
        assert isinstance(app.screen, ChoiceTrialScreen)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        assert isinstance(app.screen, ExperimenterMenu) and "0 of 28 scored trials recorded" in screen_text(app)
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("n")  # not confirmed: nothing happens, back in the menu
        await settle(pilot)
        assert isinstance(app.screen, ExperimenterMenu)
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceTrialScreen) and runner.current.item_id != first
        await pilot.press("1")
        await settle(pilot)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    recorded = lines(runner.files.results)
    assert recorded[0]["resp"] == "" and recorded[0]["skipped"] is True and recorded[0]["input"] == "experimenter"
    assert len(recorded) == 2 and recorded[1]["skipped"] is False
    assert app.return_value and "Session aborted: 2 of 28" in app.return_value[0]
    assert "--resume" in app.return_value[0]
    # resume continues at trial 3
    app2 = make_app(testset, out, practice=0, resume=True)
    runner2 = app2._initial_session[0]  # type: ignore[index]
    assert runner2.current.item_id == runner2.plan.main_items[2]
    runner2.close()


async def test_launcher_starts_a_session_from_the_form(testset: Path, tmp_path: Path) -> None:
    app = BenchlabApp(guard_s=0.0, min_rt_s=0.0, repeat_window_s=0.0)
    async with app.run_test(size=(100, 50)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LauncherScreen) and "WorldSense session" in str(
            app.screen.query_one("OptionList").get_option_at_index(0).prompt)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SessionSetupScreen)
        app.screen.query_one("#f-dataset").value = str(testset)  # type: ignore[attr-defined]
        app.screen.query_one("#f-out").value = str(tmp_path / "out")  # type: ignore[attr-defined]
        app.screen.query_one("#f-practice").value = "0"  # type: ignore[attr-defined]
        app.screen.query_one("#f-instructions_file").value = ""  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")  # no participant yet
        await settle(pilot)
        assert "enter a participant id" in screen_text(app)
        app.screen.query_one("#f-participant").value = "P05"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await hand_over(app, pilot)
        assert isinstance(app.screen, InstructionsScreen) and app.kiosk
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, InstructionsScreen)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        await pilot.press("e", "y")
        await settle(pilot)
        # The participant is still at the keyboard: a hand-back screen, not the launcher (see test_session_handback)
        assert isinstance(app.screen, HandbackScreen) and app.kiosk
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        assert isinstance(app.screen, SessionSummaryScreen) and not app.kiosk  # the experimenter's summary
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LauncherScreen) and not app.kiosk  # back to the experimenter
    assert app.summaries and "aborted: 0 of 28" in app.summaries[0]
    assert (tmp_path / "out" / "sessions" / "human-P05_session-1.plan.json").exists()


async def test_a_failed_write_stops_the_session_with_the_error_and_keeps_what_was_recorded(
        testset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchlab.annotations import response_log
    from benchlab.data.errors import BenchlabError

    app = make_app(testset, tmp_path / "out", practice=0)
    runner = app._initial_session[0]  # type: ignore[index]
    real_append = response_log.append_line
    calls = {"n": 0}

    def flaky(path: Path, line: str) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise BenchlabError("could not record the response (No space left on device)", path)
        real_append(path, line)

    monkeypatch.setattr(response_log, "append_line", flaky)
    async with app.run_test() as pilot:
        await settle(pilot)
        for _ in range(3):
            await pilot.press("1")
            await settle(pilot)
    assert app.error is not None and "No space left on device" in str(app.error)
    assert len(lines(runner.files.results)) == 2 and app.return_value and "2 of 28" in app.return_value[0]


async def test_continuing_from_the_experimenter_menu_restarts_the_trial_with_a_fresh_onset(
        testset: Path, tmp_path: Path) -> None:
    app = make_app(testset, tmp_path / "out", practice=0)
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test() as pilot:
        await settle(pilot)
        before = app.screen
        assert isinstance(before, ChoiceTrialScreen)
        item = runner.current.item_id
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        after = app.screen
        assert isinstance(after, ChoiceTrialScreen) and after is not before and runner.current.item_id == item
        assert after.onset_mono is not None and before.onset_mono is not None and after.onset_mono > before.onset_mono
        await pilot.press("2")
        await settle(pilot)
    record = lines(runner.files.results)[0]
    assert record["onset_mono"] == after.onset_mono and record["resp"] == after.options[1]


async def test_practice_without_feedback_goes_straight_on(testset: Path, tmp_path: Path) -> None:
    app = make_app(testset, tmp_path / "out", practice=1, practice_feedback=False)
    runner = app._initial_session[0]  # type: ignore[index]
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "Practice 1 of 1" in screen_text(app)
        await pilot.press("1")
        await settle(pilot)
        assert isinstance(app.screen, BreakScreen) and "Practice finished" in screen_text(app)
    assert len(lines(runner.files.practice)) == 1 and not runner.files.results.exists()
