"""The launcher's preview before handing over, and the form that remembers a lab day's options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from textual.pilot import Pilot
from textual.widgets import Input, Static

from benchlab.tui.app import BenchlabApp
from benchlab.tui.form_memory import memory_file
from benchlab.tui.screens.instructions import InstructionsScreen
from benchlab.tui.screens.session_preview import SessionPreviewScreen
from benchlab.tui.screens.session_setup import SessionSetupScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=4, sizes=(3,),
                         problems=("Infer.trivial", "Consist.trivial"))


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


def screen_text(app: BenchlabApp) -> str:
    return "\n".join(str(w.render()) for w in app.screen.query(Static))


async def open_form(app: BenchlabApp, pilot: Pilot[Any]) -> SessionSetupScreen:
    await settle(pilot)
    await pilot.press("enter")  # WorldSense session
    await settle(pilot)
    assert isinstance(app.screen, SessionSetupScreen)
    return app.screen


async def fill_and_start(app: BenchlabApp, pilot: Pilot[Any], values: dict[str, str]) -> None:
    form = app.screen
    for field, value in values.items():
        form.query_one(f"#f-{field}", Input).value = value
    await pilot.press("ctrl+s")
    await app.workers.wait_for_complete()
    await settle(pilot)


async def test_the_preview_shows_the_session_before_anything_is_handed_over(testset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_form(app, pilot)
        await fill_and_start(app, pilot, {"dataset": str(testset), "out": str(out), "practice": "2",
                                          "participant": "P05", "session": "10", "block_size": "4",
                                          "tuples_per_cell": "2"})
        assert isinstance(app.screen, SessionPreviewScreen) and not app.kiosk, screen_text(app)  # not handed over
        text = screen_text(app)
        assert "P05" in text and "10 (new)" in text  # a mistyped session number is seen here
        assert "2 practice trials, 8 scored trials in 2 blocks" in text
        assert "Estimated duration" in text and "assuming 10 s per trial" in text
        assert str(out / "results") in text
        # Back: the form again, and nothing left that would block the same session
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SessionSetupScreen)
        assert not list(out.rglob("*.plan.json")) and not list(out.rglob("*.events.jsonl"))
        app.screen.query_one("#f-session", Input).value = "1"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, SessionPreviewScreen) and "1 (new)" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, InstructionsScreen) and app.kiosk


async def test_the_form_remembers_the_last_values_but_never_who_or_which_session(testset: Path,
                                                                                tmp_path: Path) -> None:
    out = tmp_path / "lab"
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_form(app, pilot)
        await fill_and_start(app, pilot, {"dataset": str(testset), "out": str(out), "practice": "0",
                                          "participant": "P01", "session": "2", "block_size": "3", "seed": ""})
        await pilot.press("enter")  # hand over
        await settle(pilot)
    saved = json.loads(memory_file("worldsense").read_text())
    assert saved["out"] == str(out) and saved["block_size"] == "3" and "participant" not in saved
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        form = await open_form(app, pilot)
        assert form.query_one("#f-out", Input).value == str(out)
        assert form.query_one("#f-dataset", Input).value == str(testset)
        assert form.query_one("#f-block_size", Input).value == "3"
        assert form.query_one("#f-practice", Input).value == "0"
        assert form.query_one("#f-participant", Input).value == ""
        assert form.query_one("#f-session", Input).value == "1"  # the declared default, not the last one


async def test_an_unreadable_memory_file_says_so_and_the_form_shows_the_defaults(tmp_path: Path) -> None:
    path = memory_file("worldsense")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"{not json\xff")
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        form = await open_form(app, pilot)
        assert form.query_one("#f-block_size", Input).value == "30"
        assert any(str(path) in n.message for n in app._notifications)


async def test_an_existing_session_offers_resume_or_the_next_session_as_buttons(testset: Path, tmp_path: Path) -> None:
    """"already started; add resume" was a dead end in the form (the Resume box below the fold): two buttons now."""
    from benchlab.annotations.registry import registry
    from benchlab.annotations.session.opening import prepare_session
    from benchlab.annotations.session.runner import ResponseTiming

    out = tmp_path / "out"
    task = registry().get("worldsense")
    runner = prepare_session(task, dataset=str(testset), participant="P05", out=str(out), seed=1, practice=0,
                             tuples_per_cell=2, no_instructions=True)
    runner.respond(runner.options()[0], ResponseTiming(onset_mono=1.0, response_mono=2.0))
    runner.abort()
    values = {"dataset": str(testset), "out": str(out), "practice": "0", "participant": "P05",
              "tuples_per_cell": "2"}
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        form = await open_form(app, pilot)
        await fill_and_start(app, pilot, values)
        assert app.screen is form and form.query_one("#existing").display
        assert "already has session 1" in screen_text(app)
        await pilot.click("#new-session")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, SessionPreviewScreen) and "2 (new)" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        form.query_one("#f-session", Input).value = "1"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        await pilot.click("#resume-existing")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, SessionPreviewScreen)
        assert "1 (resuming: 1 of 8 answered)" in screen_text(app)


async def test_a_path_field_is_filled_by_browsing(testset: Path, tmp_path: Path) -> None:
    """Browse… beside the data-set field opens a file picker; the picked file goes into the field."""
    from benchlab.tui.widgets.path_picker import PathPicker

    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        form = await open_form(app, pilot)
        form.query_one("#f-dataset", Input).value = str(testset)
        await pilot.click("#browse-dataset")
        await settle(pilot)
        assert isinstance(app.screen, PathPicker)
        for _ in range(20):  # the tree lists the folder in a worker
            await pilot.pause(0.05)
            if app.screen.query_one("#tree").root.children:  # type: ignore[attr-defined]
                break
        await pilot.press("down", "enter")  # the folder's one file
        await settle(pilot)
        assert app.screen is form
        assert form.query_one("#f-dataset", Input).value == str((testset / "trials.jsonl").resolve())
        await pilot.click("#browse-out")  # an output folder: folders only, "Use this folder"
        await settle(pilot)
        assert isinstance(app.screen, PathPicker) and app.screen.folders_only
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is form
