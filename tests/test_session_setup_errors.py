"""Errors on the session form are seen on any terminal size: a toast with the message, and the focus (and the
scroll position) on the field to fix; the message line under the form is often below the bottom edge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from benchlab.tui.app import BenchlabApp
from benchlab.tui.screens.session_setup import SessionSetupScreen

FAST = {"guard_s": 0.0, "min_rt_s": 0.0, "repeat_window_s": 0.0}


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def open_form(app: BenchlabApp, pilot: Pilot[Any], task: str) -> SessionSetupScreen:
    await settle(pilot)
    menu = app.screen.query_one(OptionList)
    menu.highlighted = [menu.get_option_at_index(i).id for i in range(menu.option_count)].index(f"task:{task}")
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, SessionSetupScreen)
    return app.screen


def toasts(app: BenchlabApp) -> list[str]:
    return [n.message for n in app._notifications]


def on_screen(app: BenchlabApp, widget: Input) -> bool:
    return app.screen.find_widget(widget).region.overlaps(app.screen.region)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_missing_participant_is_toasted_and_its_field_focused(size: tuple[int, int]) -> None:
    app = BenchlabApp(**FAST)
    async with app.run_test(size=size) as pilot:
        form = await open_form(app, pilot, "worldsense")
        form.query_one("#f-instructions_file", Input).focus()  # the experimenter is further down the form
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any("enter a participant id" in t for t in toasts(app))
        field = form.query_one("#f-participant", Input)
        assert app.focused is field and on_screen(app, field)


async def test_a_bad_data_path_is_toasted_and_the_data_set_field_focused(tmp_path: Path) -> None:
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot, "worldsense")
        missing = tmp_path / "no-such-testset"
        form.query_one("#f-dataset", Input).value = str(missing)
        form.query_one("#f-participant", Input).value = "P01"
        form.query_one("#f-out", Input).focus()
        await settle(pilot)
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert any(str(missing) in t for t in toasts(app))
        field = form.query_one("#f-dataset", Input)
        assert app.focused is field and on_screen(app, field)
        assert isinstance(app.screen, SessionSetupScreen) and not app.kiosk


async def test_sort_form_errors_point_at_the_sort_field(tmp_path: Path) -> None:
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot, "sort")
        form.query_one("#f-participant", Input).value = "P01"
        form.query_one("#f-out", Input).value = str(tmp_path / "out")
        # The condition is a choice of stm/ltm now (no wrong value to type): a negative delay is the SORT error.
        form.query_one("#f-delay_s", Input).value = "-1"
        form.query_one("#f-participant", Input).focus()
        await settle(pilot)
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert any("cannot be negative" in t for t in toasts(app))
        field = form.query_one("#f-delay_s", Input)
        assert app.focused is field and on_screen(app, field)
        # a non-number in a whole-number field, on the SORT form
        form.query_one("#f-delay_s", Input).value = "0"
        form.query_one("#f-practice", Input).value = "two"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any("practice" in t.lower() and "must be a whole number" in t for t in toasts(app))
        field = form.query_one("#f-practice", Input)
        assert app.focused is field and on_screen(app, field)


async def test_worldsense_plan_errors_speak_the_forms_words(tmp_path: Path) -> None:
    """Issue 12: "lower --practice or --tuples-per-cell" on the form: the form names its own fields."""
    from session_helpers import write_testset

    testset = write_testset(tmp_path / "ts", tuples_per_cell=4)
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        form = await open_form(app, pilot, "worldsense")
        form.query_one("#f-dataset", Input).value = str(testset)
        form.query_one("#f-participant", Input).value = "P01"
        form.query_one("#f-out", Input).value = str(tmp_path / "out")
        form.query_one("#f-tuples_per_cell", Input).value = "4"
        form.query_one("#f-practice", Input).value = "2"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        message = toasts(app)[-1]
        assert '"Practice trials"' in message and '"Tuples per (problem, size) cell"' in message
        assert "--" not in message
        assert app.focused is form.query_one("#f-practice", Input)
        form.query_one("#f-tuples_per_cell", Input).value = "5"
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        message = toasts(app)[-1]
        assert "has 4 usable tuples" in message and '"Tuples per (problem, size) cell"' in message
        assert "--" not in message and app.focused is form.query_one("#f-tuples_per_cell", Input)


def test_the_command_line_still_names_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from session_helpers import write_testset

    from benchlab.tui.cli import main

    testset = write_testset(tmp_path / "ts", tuples_per_cell=4)
    with pytest.raises(SystemExit) as exited:
        main(["run", "worldsense", "--testset", str(testset), "--participant", "P01", "--out",
              str(tmp_path / "out"), "--tuples-per-cell", "4", "--practice", "2", "--simulate", "oracle"])
    code = exited.value.code
    err = capsys.readouterr().err
    assert code == 2 and "lower --practice or --tuples-per-cell" in err and err.startswith("benchlab: error: ")
