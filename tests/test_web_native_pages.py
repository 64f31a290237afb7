"""The native page's paged instructions and its device check by screen size, in real headless Chromium (every wait
bounded): Back by the left arrow and by a tap; a study's ``--min-screen`` refuses a phone with a clear page before
anything is written or counted, and lets a large enough screen start."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from web_browser import Served, browser, require_browser
from web_native import DESKTOP, PHONE, wait_text

from benchlab.annotations.session.status import read_statuses

TABLET = {"viewport": {"width": 1024, "height": 768}, "is_mobile": True, "has_touch": True}
PAGES = "# First page\n\nRead this.\n\n---\n\n# Second page\n\nThen this.\n\n---\n\n# Last page\n\nReady?\n"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


def serve(tmp_path: Path) -> Served:
    testset = write_testset(tmp_path / "testset", tuples_per_cell=3, sizes=(3,), problems=("Infer.trivial",))
    (tmp_path / "people.csv").write_text("id\nP01\nP02\n")
    (tmp_path / "pages.md").write_text(PAGES)
    return Served("worldsense", tmp_path / "out", tmp_path / "people.csv",
                  ["--testset", str(testset), "--tuples-per-cell", "2", "--practice", "0", "--seed", "5",
                   "--instructions", str(tmp_path / "pages.md"), "--min-screen", "1000", "700"])


def session_files(out: Path, participant: str) -> list[Path]:
    return sorted(p for p in out.rglob(f"*{participant}*") if p.is_file())


def test_min_screen_refuses_a_phone_and_instructions_page_back(tmp_path: Path, chromium: Any) -> None:
    served = serve(tmp_path).start()
    contexts = [chromium.new_context(**kind) for kind in (PHONE, DESKTOP, TABLET)]
    phone, desktop, tablet = contexts
    try:
        page = phone.new_page()
        page.goto(served.link("P01"))
        shown = wait_text(page, "Please use a larger screen")
        assert "Nothing has been recorded" in shown["text"] and "First page" not in shown["text"]
        assert session_files(served.out, "P01") == []  # nothing written, not even a connection event
        assert [s.state for s in read_statuses(served.out, ["P01"]) if s.participant == "P01"] == ["not started"]

        page = desktop.new_page()  # the same link on a large enough screen starts, at the first page
        page.goto(served.link("P01"))
        wait_text(page, "First page")
        assert page.query_selector("button[data-act=back]") is None  # nothing to go back to
        page.keyboard.press("Enter")
        wait_text(page, "Second page")
        page.keyboard.press("ArrowLeft")  # back by key, as in the terminal
        wait_text(page, "First page")
        page.keyboard.press("ArrowRight")
        wait_text(page, "Second page")
        page.click("button[data-act=back]", timeout=5000)  # and by the button
        assert "First page" in wait_text(page, "First page")["text"]

        page = tablet.new_page()  # a touch screen: Back by a tap
        page.goto(served.link("P02"))
        wait_text(page, "First page")
        page.tap("button[data-act=next]", timeout=5000)
        wait_text(page, "Second page")
        page.tap("button[data-act=back]", timeout=5000)
        wait_text(page, "First page")
        page.tap("button[data-act=next]", timeout=5000)
        wait_text(page, "Second page")
        page.tap("button[data-act=next]", timeout=5000)
        shown = wait_text(page, "Last page")
        assert "Page 3 of 3" in shown["text"]
        page.tap("button[data-act=next]", timeout=5000)  # Start
        assert "view-trial" in wait_text(page, "Only respond")["cls"]  # the first question
    finally:
        for context in contexts:
            context.close()
        served.stop()
