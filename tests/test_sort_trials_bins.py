"""Issue 12: "Scored trials = 3" was accepted although the label says trials are spread over 4 distance bins (a bin
then has no trial at all). Refused on the form (in its words, beside the field) and on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Select

from benchlab.annotations.options import OptionError, parse_options
from benchlab.annotations.sort.plan_options import WHOLE_BOOK_BINS, SortPlanOptions
from benchlab.data.sort.whole_book import GAP_EDGES
from benchlab.tui.app import BenchlabApp
from benchlab.tui.cli import main
from tests.test_session_setup_errors import FAST, open_form, settle, toasts


def test_trials_must_cover_every_bin() -> None:
    assert parse_options(SortPlanOptions, {"trials": "4"}).trials == 4
    with pytest.raises(OptionError) as raised:
        parse_options(SortPlanOptions, {"trials": "3"})
    assert raised.value.field == "trials"
    assert str(raised.value).startswith("Scored trials must be at least 4") and "4 distance bins" in str(raised.value)
    assert len(GAP_EDGES) - 1 == WHOLE_BOOK_BINS
    with pytest.raises(OptionError, match="at least 8: .* 8 gap bins"):
        parse_options(SortPlanOptions, {"trials": "6", "condition": "ltm", "design": "whole-book"})


def test_the_command_line_names_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "sort", "--participant", "P01", "--out", str(tmp_path), "--trials", "3", "--simulate", "oracle"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.startswith("benchlab: error: --trials must be at least 4")
    assert not (tmp_path / "results").exists()


async def test_the_form_refuses_three_trials_beside_the_field(tmp_path: Path) -> None:
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        form = await open_form(app, pilot, "sort")
        form.query_one("#f-participant", Input).value = "P01"
        form.query_one("#f-out", Input).value = str(tmp_path / "out")
        form.query_one("#f-condition", Select).value = "stm"
        form.query_one("#f-trials", Input).value = "3"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert any(t.startswith("Scored trials must be at least 4") for t in toasts(app))
        assert app.focused is form.query_one("#f-trials", Input)


async def test_excerpt_and_segment_lengths_are_the_data_sets_values(tmp_path: Path) -> None:
    """Issue 12: segment length was free text; now a choice of what the chosen data set holds, and free entry
    again where the data set cannot be read (nothing to offer)."""
    app = BenchlabApp(**FAST)
    async with app.run_test(size=(100, 40)) as pilot:
        form = await open_form(app, pilot, "sort")
        await app.workers.wait_for_complete()
        await settle(pilot)
        excerpt = form.query_one("#f-excerpt_length", Select)
        segment = form.query_one("#f-segment_length", Select)
        assert [str(o[1]) for o in excerpt._options] == ["250", "1000"]  # the bundled sample's configurations
        assert [str(o[1]) for o in segment._options] == ["20"]
        assert excerpt.value == "250" and form.form.raw("excerpt_length") == "250"
        excerpt.value = "1000"
        form.query_one("#f-dataset", Input).value = str(tmp_path / "nothing-here")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert form.query_one("#f-excerpt_length", Input).value == "1000"  # free entry, the value kept
        assert isinstance(form.form.field("segment_length"), Input)
