"""An online study on the native participant page (``benchlab serve --study DIR``), in a real headless Chromium:
a Prolific participant on a 390x844 phone (taps) and on a desktop (keys) takes the whole session and gets the
completion code only once the end record is on disk; a server killed right after the last answer gives the code
after its restart; a phone on a study that requires a computer gets the screened-out page and takes no place;
declined consent gives the declined code; the end page's "withdraw my data" removes the data.

Every wait is bounded; the server runs on 127.0.0.1.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from online_helpers import online_study
from test_online_browser import StudyServer, prolific_link
from web_browser import browser, require_browser
from web_native import DESKTOP, PHONE, drive, view, wait_text

from benchlab.annotations.session.status import read_statuses

pytestmark = pytest.mark.slow

SCREENED = 'require_computer = true\n[online.completion.screened_out]\ncode = "SCREEN01"'
WITHDREW = '[online.completion.withdrew]\ncode = "WDRAW001"'


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


def _answer(_cls: str, _text: str) -> str:
    return "a"


def _events(folder: Path) -> list[dict[str, Any]]:
    paths = list((folder / "sessions").glob("*.events.jsonl"))
    assert len(paths) == 1, paths
    return [json.loads(line) for line in paths[0].read_text().splitlines()]


def _records(folder: Path) -> int:
    return sum(len(p.read_text().splitlines()) - 1 for p in (folder / "results").glob("*.csv"))


def _context(chromium: Any, device: dict[str, Any]) -> Any:
    context = chromium.new_context(**device)
    # the completion redirect goes to Prolific: answered here (nothing leaves the machine)
    context.route("https://app.prolific.com/**", lambda route: route.fulfill(status=200, body="prolific"))
    return context


def _end_code(page: Any, timeout_s: float = 20.0) -> str:
    shown = wait_text(page, "Completion code", timeout_s)
    return str(shown["text"].split("Completion code: ", 1)[1].split()[0])


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_prolific_participant_takes_the_whole_session_on_the_native_page(tmp_path: Path, chromium: Any,
                                                                          device: dict[str, Any]) -> None:
    folder = online_study(tmp_path / "st", consent=True)
    server = StudyServer(folder, native=True).start()
    context = _context(chromium, device)
    page = context.new_page()
    try:
        page.goto(prolific_link(server, "NATIVE01"))
        assert "/s/" in page.url
        drive(page, _answer, tap=device is PHONE, timeout_s=90)
        assert _end_code(page) == "DONE1234"
        # the code was given only after the end record: on disk, and the code stored after it
        names = [e["event"] for e in _events(folder)]
        assert names.index("completed") < names.index("completion") and _records(folder) == 4
        assert page.get_attribute("#withdraw", "href", timeout=2000).startswith("/withdraw/")
    finally:
        context.close()
        server.stop()
    events = _events(folder)
    assert not any("user_agent" in e for e in events)  # the page's own device report, never the User-Agent
    [status] = read_statuses(folder)
    assert status.device == ("phone" if device is PHONE else "desktop")


def test_a_server_killed_after_the_last_answer_gives_the_code_after_restart(tmp_path: Path,
                                                                            chromium: Any) -> None:
    folder = online_study(tmp_path / "st")
    server = StudyServer(folder, native=True).start()
    context = _context(chromium, DESKTOP)
    page = context.new_page()
    try:
        page.goto(prolific_link(server, "KILLED01"))
        token = page.url.rsplit("/s/", 1)[1]

        def last(v: dict[str, Any]) -> bool:
            return "Question 4 of 4" in v["text"] and "phase-question" in v["cls"] and v["onset"]

        drive(page, _answer, stop=last, timeout_s=90)
        page.keyboard.press("a")  # the last answer, and the server killed at once
        server.kill()
        server = StudyServer(folder, native=True).start()
        # the link reopened in a new tab: the old page, left on the dead server, may be navigating itself (its
        # retry), and a goto racing that navigation is aborted (net::ERR_ABORTED)
        page.close()
        page = context.new_page()
        page.goto(server.url(f"/s/{token}"))
        deadline = time.monotonic() + 60
        while "DONE1234" not in view(page)["text"]:  # resumed at the last question, or the code page
            assert time.monotonic() < deadline, view(page)
            if view(page)["onset"]:
                drive(page, _answer, timeout_s=40, stop=lambda v: "DONE1234" in v["text"])
            time.sleep(0.1)
        assert "DONE1234" in view(page)["text"]
        names = [e["event"] for e in _events(folder)]
        assert names.index("completed") < names.index("completion") and _records(folder) == 4
        assert names.count("completion") == 1
    finally:
        context.close()
        server.stop()


def test_a_phone_on_a_study_that_requires_a_computer_is_screened_out_and_takes_no_place(tmp_path: Path,
                                                                                       chromium: Any) -> None:
    folder = online_study(tmp_path / "st", "quota = 1\n" + SCREENED)
    server = StudyServer(folder, native=True).start()
    phone = _context(chromium, PHONE)
    desktop = _context(chromium, DESKTOP)
    try:
        page = phone.new_page()
        page.goto(prolific_link(server, "PHONE001"))
        text = wait_text(page, "Please use a computer")["text"]
        assert "SCREEN01" in text and "Nothing has been recorded" in text
        assert not (folder / "sessions").exists() or not list((folder / "sessions").glob("*"))
        assert not (folder / "results").exists() or not list((folder / "results").glob("*"))
        other = desktop.new_page()  # the one place is still free
        other.goto(prolific_link(server, "DESK0001"))
        assert "/s/" in other.url
        wait_text(other, "Welcome", 30)  # their session opened
    finally:
        phone.close()
        desktop.close()
        server.stop()


def test_declining_consent_on_the_native_page_gives_the_declined_code(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st", "quota = 1", consent=True)
    server = StudyServer(folder, native=True).start()
    context = _context(chromium, PHONE)
    try:
        page = context.new_page()
        page.goto(prolific_link(server, "DECLINE1"))
        wait_text(page, "I do not agree", 30)
        page.tap("button[data-act=decline]", timeout=5000)
        assert _end_code(page) == "NOCONSENT"
        assert not (folder / "results").exists() or not list((folder / "results").glob("*"))
        page.goto(prolific_link(server, "SECOND01"))  # the one place is still free
        assert "/s/" in page.url
    finally:
        context.close()
        server.stop()


def test_the_end_page_withdraw_control_removes_the_data(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st", WITHDREW)
    server = StudyServer(folder, native=True).start()
    context = _context(chromium, DESKTOP)
    try:
        page = context.new_page()
        page.goto(prolific_link(server, "WITHDRAW"))
        drive(page, _answer, timeout_s=90)
        assert _end_code(page) == "DONE1234"
        href = page.get_attribute("#withdraw", "href", timeout=2000)
        assert _records(folder) == 4
        page.goto(server.url(href))
        code = page.inner_text("#withdrawal-code")
        assert code
        page.click("#confirm-withdraw")
        page.wait_for_selector("text=Your data have been deleted", timeout=15000)
        assert page.inner_text("#code") == "WDRAW001"
    finally:
        context.close()
        server.stop()
    assert _records(folder) == 0 if (folder / "results").exists() else True
    assert not list((folder / "sessions").glob("*.events.jsonl"))


def test_a_session_past_its_time_limit_gets_the_timed_out_page_and_code(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st", 'time_limit = "2s"', consent=True)
    server = StudyServer(folder, native=True).start()
    context = _context(chromium, PHONE)
    try:
        page = context.new_page()
        page.goto(prolific_link(server, "SLOW0001"))
        wait_text(page, "I do not agree", 30)
        page.tap("button[data-act=accept]", timeout=5000)
        text = wait_text(page, "TIMEOUT9", 30)["text"]  # the server's watch stops the live session
        assert "Time is up" in text
        names = [e["event"] for e in _events(folder)]
        assert names.index("timed_out") < names.index("completion")
        page.reload()  # the same page again, never the session
        assert "TIMEOUT9" in wait_text(page, "TIMEOUT9", 15)["text"]
    finally:
        context.close()
        server.stop()
