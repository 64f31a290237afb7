"""A session started from the launcher ends on a hand-back screen: the participant never gets back to the launcher
(results of every participant, curation with gold answers) nor sees the summary; only the experimenter chord does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from session_helpers import hand_over, write_testset
from textual.pilot import Pilot
from textual.widgets import Input, Static

from benchlab.tui.app import BenchlabApp
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.screens.choice_trial import ChoiceTrialScreen
from benchlab.tui.screens.end import EndScreen
from benchlab.tui.screens.handback import HandbackScreen
from benchlab.tui.screens.launcher import LauncherScreen
from benchlab.tui.screens.session_setup import SessionSetupScreen
from benchlab.tui.screens.session_summary import SessionSummaryScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}
# Keys a participant might try to get out: none of them may leave the hand-back screen.
ESCAPE_ATTEMPTS = ("enter", "escape", "ctrl+q", "ctrl+c", "ctrl+p", "q", "space", "tab", "ctrl+e", "ctrl+x", "1")


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=2, sizes=(3,),
                         problems=("Infer.trivial", "Consist.trivial"))


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def visible_text(app: BenchlabApp) -> str:
    """Everything on screen, toasts included (they are widgets of the current screen)."""
    return "\n".join(str(w.render()) for w in app.screen.query(Static))


async def start_from_launcher(app: BenchlabApp, pilot: Pilot[Any], testset: Path, out: Path) -> None:
    await settle(pilot)
    await pilot.press("enter")  # WorldSense session
    await settle(pilot)
    form = app.screen
    assert isinstance(form, SessionSetupScreen)
    for field, value in (("dataset", str(testset)), ("out", str(out)), ("practice", "0"), ("participant", "P07"),
                         ("seed", "3")):
        form.query_one(f"#f-{field}", Input).value = value
    await pilot.press("ctrl+s")
    await app.workers.wait_for_complete()
    await hand_over(app, pilot)


async def assert_handback_holds(app: BenchlabApp, pilot: Pilot[Any], out: Path) -> None:
    assert isinstance(app.screen, HandbackScreen) and app.kiosk
    text = visible_text(app)
    assert "Session finished." in text and "Please tell the experimenter." in text
    assert str(out) not in text and "recorded" not in text  # no results path, no counts
    assert not list(app._notifications)  # no toast waiting either
    for key in ESCAPE_ATTEMPTS:
        await pilot.press(key)
        await settle(pilot)
    assert app.is_running and isinstance(app.screen, HandbackScreen) and not app.use_command_palette
    await pilot.press(*DEFAULT_KEYS.keys)
    await settle(pilot)
    await assert_summary_stays_until_dismissed(app, pilot, str(out / "results"))


async def assert_summary_stays_until_dismissed(app: BenchlabApp, pilot: Pilot[Any], expected: str) -> None:
    """The experimenter now gets the summary, and it stays (a toast vanished before anyone read it)."""
    assert isinstance(app.screen, SessionSummaryScreen) and not app.kiosk and app.use_command_palette
    assert expected in visible_text(app)
    await pilot.pause(0.3)
    assert isinstance(app.screen, SessionSummaryScreen) and expected in visible_text(app)
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, LauncherScreen)


async def test_a_completed_launcher_session_ends_on_the_hand_back_screen(testset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        await start_from_launcher(app, pilot, testset, out)
        await pilot.press("enter")  # past the built-in instructions (3 pages)
        await pilot.press("space", "space", "enter")
        await settle(pilot)
        while isinstance(app.screen, ChoiceTrialScreen) or app.screen.__class__.__name__ == "BreakScreen":
            await pilot.press("1" if isinstance(app.screen, ChoiceTrialScreen) else "space")
            await settle(pilot)
        assert isinstance(app.screen, EndScreen)
        await pilot.press("enter")
        await settle(pilot)
        await assert_handback_holds(app, pilot, out)
    assert app.summaries and "completed: 8 of 8" in app.summaries[0]


async def test_an_aborted_launcher_session_ends_on_the_hand_back_screen(testset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        await start_from_launcher(app, pilot, testset, out)
        await pilot.press("enter", "space", "space", "enter")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        await pilot.press("e", "y")
        await settle(pilot)
        await assert_handback_holds(app, pilot, out)
    assert "aborted: 1 of 8" in app.summaries[0]
    # A launcher user has no command to repeat: the hint speaks of the launcher.
    assert "Resume ticked" in app.summaries[0] and "--resume" not in app.summaries[0]


def test_hand_back_screen_snapshot(snap_compare: Any) -> None:
    """What the participant sees when a launcher session is over (nothing but the hand-back message)."""
    from benchlab.tui.screens.handback import HandbackScreen as Handback

    async def before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        pilot.app.push_screen(Handback())
        await pilot.pause()

    assert snap_compare(BenchlabApp(**FAST), terminal_size=(80, 24), run_before=before)


async def test_a_launcher_session_stopped_by_an_error_also_waits_for_the_experimenter(
        testset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchlab.annotations import response_log
    from benchlab.annotations.registry import registry
    from benchlab.annotations.session.opening import prepare_session
    from benchlab.data.errors import BenchlabError

    def full_disk(path: Path, line: str) -> None:
        raise BenchlabError("could not record the response (No space left on device)", path)

    monkeypatch.setattr(response_log, "append_line", full_disk)
    task = registry().get("worldsense")
    out = tmp_path / "out"
    runner = prepare_session(task, dataset=str(testset), participant="P09", out=str(out), seed=1, practice=0,
                             no_instructions=True)
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        app.start_session(runner, task)  # as the launcher's form does
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert isinstance(app.screen, HandbackScreen) and "No space left" not in visible_text(app)
        assert not list(app._notifications)
        await pilot.press(*DEFAULT_KEYS.keys)
        await settle(pilot)
        await assert_summary_stays_until_dismissed(app, pilot, "No space left on device")
