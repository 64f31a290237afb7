"""SORT STM at 80x24 (issue 23 item 12): Enter does not continue until the declared share of the passage has been
on screen (default: all of it), the hint says why, and the record holds the share seen; the plan declares it."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.session.plan import SessionPlan
from benchlab.tui.sort.excerpt_view import ExcerptView
from benchlab.tui.sort.trial_screen import SortTrialScreen
from tests.test_sort_recording import _app, _results, _settle


async def test_continue_waits_for_the_whole_passage_at_80x24(tmp_path: Path) -> None:
    out = tmp_path / "out"
    app = _app(out, min_seen_share=1.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, SortTrialScreen)
        assert screen.query_one(ExcerptView).seen_share < 0.7  # the passage does not fit
        await pilot.press("enter")
        await _settle(pilot)
        assert screen.phase == "reading"
        assert "read the whole passage" in str(screen.query_one("#reading-hint").render())
        await pilot.press("end")
        await _settle(pilot)
        await pilot.press("enter")
        await _settle(pilot)
        assert screen.phase == "question"
        await pilot.press("a")
        await _settle(pilot)
    assert _results(out)["seen_share"].astype(float).tolist() == [1.0]
    [plan] = [SessionPlan.load(p) for p in (out / "sessions").glob("*.plan.json")]
    assert plan.config["min_seen_share"] == 1.0


def test_the_default_is_the_whole_passage() -> None:
    from benchlab.annotations.sort.plan_options import SortPlanOptions

    assert SortPlanOptions().min_seen_share == 1.0
