"""An online study in a real headless Chromium: a Prolific participant joins from the study link on a phone and on
a desktop, takes the session on the participant page, and gets the completion code (copy button, redirect);
a repeat visit says they already took part; a full study says so before anything starts; a server killed between
the last answer and the code page gives the code only after its restart, with the record on disk.

Every wait is bounded; the server runs as `benchlab serve --study DIR` on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from online_helpers import finish, online_study
from playwright.sync_api import Error as PlaywrightError
from web_browser import CLI, browser, drive, free_port, listening, require_browser, wait_ready, wait_screen

from benchlab.annotations.session.status import read_statuses

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148"}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


class StudyServer:
    """``benchlab serve --study DIR`` on a free port."""

    def __init__(self, folder: Path, admin: bool = False, extra: tuple[str, ...] = (), native: bool = False) -> None:
        # the tests of this file drive the terminal-in-browser page (--terminal-page); test_online_native the other
        self.folder, self.admin, self.extra = folder, admin, (*extra, *(() if native else ("--terminal-page",)))
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None
        self.link = ""

    def start(self, timeout_s: float = 30.0) -> StudyServer:
        args = [*CLI, "serve", "--study", str(self.folder), "--port", str(self.port), *self.extra]
        self.proc = subprocess.Popen([*args, *(["--admin"] if self.admin else [])], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + timeout_s
        assert self.proc.stdout is not None
        while not self.link:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"benchlab serve --study exited: {self.proc.stderr.read()}")  # type: ignore[union-attr]
            if line.startswith("study link: "):
                self.link = line.split(": ", 1)[1].strip()
            assert time.monotonic() < deadline, "no study link printed"
        while not listening(self.port):
            assert time.monotonic() < deadline, "not listening"
            time.sleep(0.1)
        return self

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(5)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


def alternate() -> Any:
    count = {"n": 0}

    def answer(_: str) -> str:
        count["n"] += 1
        return "ab"[count["n"] % 2]
    return answer


def prolific_link(server: StudyServer, pid: str) -> str:
    return f"{server.link}?PROLIFIC_PID={pid}&STUDY_ID=STUDY42&SESSION_ID=SESS{pid}"


def take_part(page: Any, server: StudyServer, pid: str) -> str:
    """Join from the study link and answer every trial; returns the session token (from the page's URL)."""
    response = page.goto(prolific_link(server, pid))
    assert response.status == 200 and "/s/" in page.url, page.url
    wait_ready(page)
    drive(page, alternate(), timeout_s=90)
    return page.url.rsplit("/s/", 1)[1]


def code_page(page: Any, server: StudyServer, token: str, timeout_s: float = 20.0) -> str:
    """The completion page's code once it shows (the "saving" page refreshes itself until then)."""
    page.goto(server.url(f"/done/{token}"))
    page.wait_for_selector("#code", timeout=timeout_s * 1000)
    return str(page.inner_text("#code"))


def check_code_page(page: Any, server: StudyServer, folder: Path, token: str, pid: str) -> None:
    """The code page, the stored completion, a repeat visit, and no raw id outside the key file."""
    assert code_page(page, server, token) == "DONE1234"
    page.click("#copy")
    assert page.inner_text("#copy") == "Copied"
    assert page.get_attribute("#continue", "href") == "https://app.prolific.com/submissions/complete?cc=DONE1234"
    events = next((folder / "sessions").glob("*.events.jsonl")).read_text()
    assert '"event": "completion"' in events and '"DONE1234"' in events
    page.goto(prolific_link(server, pid))  # a repeat visit
    assert "already taken part" in page.inner_text("main").lower()
    assert page.inner_text("#code") == "DONE1234"
    files = [p for p in folder.rglob("*") if p.is_file() and ".online" not in p.parts]
    assert all(pid.encode() not in p.read_bytes() for p in files)
    records = [json.loads(line) for line in (folder / "assignments.jsonl").read_text().splitlines()]
    assert len(records) == 1 and records[0]["participant"].startswith("o-")


def test_a_prolific_participant_on_a_desktop_joins_finishes_and_gets_the_code(tmp_path: Path,
                                                                              chromium: Any) -> None:
    folder = online_study(tmp_path / "st")
    server = StudyServer(folder).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        token = take_part(page, server, "PROLIFIC01")
        check_code_page(page, server, folder, token, "PROLIFIC01")
    finally:
        context.close()
        server.stop()


def test_a_prolific_participant_on_a_phone_joins_and_gets_the_code(tmp_path: Path, chromium: Any) -> None:
    """Today's terminal page needs 40 columns, more than a 390 px phone has (the native page of the participant
    page issue fixes that): the phone joins and gets its code in Chromium, the session in between is taken
    through the engine API under the id the join gave."""
    folder = online_study(tmp_path / "st")
    server = StudyServer(folder).start()
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    page.route("**/s/**", lambda route: route.fulfill(status=200, body="the session page", content_type="text/plain"))
    try:
        page.goto(prolific_link(server, "PHONE0001"))
        assert "/s/" in page.url
        token = page.url.rsplit("/s/", 1)[1]
        records = [json.loads(line) for line in (folder / "assignments.jsonl").read_text().splitlines()]
        finish(folder, records[0]["participant"])
        check_code_page(page, server, folder, token, "PHONE0001")
    finally:
        context.close()
        server.stop()


def test_a_full_study_and_a_bad_link_are_clear_pages(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st", "quota = 1")
    server = StudyServer(folder).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        page.goto(prolific_link(server, "FIRST01"))
        assert "/s/" in page.url
        response = page.goto(prolific_link(server, "SECOND02"))
        text = page.inner_text("main")
        assert response.status == 200 and "This study is full" in text and "Return submission" in text
        response = page.goto(server.link)  # no platform id
        assert response.status == 400 and "PROLIFIC_PID" in page.inner_text("main")
        response = page.goto(server.url("/join/" + "x" * 24 + "?PROLIFIC_PID=A1"))  # a guessed study token
        assert response.status == 404
    finally:
        context.close()
        server.stop()
    assert len((folder / "assignments.jsonl").read_text().splitlines()) == 1


def test_a_server_killed_before_the_code_page_gives_the_code_after_restart(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st")
    server = StudyServer(folder).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        token = take_part(page, server, "KILLED01")
        server.kill()  # between the last answer and the code page
        with pytest.raises(PlaywrightError):
            page.goto(server.url(f"/done/{token}"), timeout=5000)
        assert not (folder / ".online" / "completions.jsonl").exists()  # no code was given
        events = next((folder / "sessions").glob("*.events.jsonl")).read_text()
        assert '"completed"' in events and "completion" not in events  # the data are on disk, no code yet
        server = StudyServer(folder).start()
        assert code_page(page, server, token) == "DONE1234"
        names = [json.loads(line)["event"] for line in next((folder / "sessions").glob("*.events.jsonl"))
                 .read_text().splitlines()]
        assert names.index("completed") < names.index("completion")
    finally:
        context.close()
        server.stop()


def test_the_saving_page_refreshes_until_the_end_record_is_on_disk(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st")
    server = StudyServer(folder).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        page.goto(prolific_link(server, "EARLY01"))
        token = page.url.rsplit("/s/", 1)[1]
        page.goto(server.url(f"/done/{token}"))  # before any answer: no code, a page that refreshes
        assert "Saving your answers" in page.inner_text("h1") and not page.is_visible("#code")
        assert re.search(r'http-equiv="refresh"', page.content())
    finally:
        context.close()
        server.stop()


def test_declining_consent_in_the_browser_takes_no_place(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st", "quota = 1", consent=True)
    server = StudyServer(folder).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        page.goto(prolific_link(server, "DECLINE01"))
        token = page.url.rsplit("/s/", 1)[1]
        wait_ready(page)
        wait_screen(page, "I do not agree", timeout_s=30)
        page.keyboard.press("n")
        deadline = time.monotonic() + 20
        while not list((folder / "sessions").glob("*.events.jsonl")) or "declined" not in next(
                (folder / "sessions").glob("*.events.jsonl")).read_text():
            assert time.monotonic() < deadline, "no declined event"
            time.sleep(0.2)
        assert code_page(page, server, token) == "NOCONSENT"
        assert [r.state for r in read_statuses(folder)] == ["declined"]  # the Sessions screen still says so
        assert not (folder / "results").exists() or not list((folder / "results").glob("*"))
        page.goto(prolific_link(server, "SECOND01"))  # the one place is still free
        assert "/s/" in page.url
    finally:
        context.close()
        server.stop()


def test_private_links_of_listed_people_run_in_the_same_study(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st")
    (tmp_path / "people.csv").write_text("id\nLAB01\n")
    server = StudyServer(folder, extra=("--participants", str(tmp_path / "people.csv"))).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        page.goto(prolific_link(server, "CROWD01"))  # the crowd link: stm
        crowd_page = page.url
        links = (folder / "links.csv").read_text().splitlines()
        assert links[0] == "participant,url" and links[1].startswith("LAB01,http://")
        page.goto(links[1].split(",", 1)[1])  # a join before it must not have revoked this link
        wait_ready(page)
        records = [json.loads(line) for line in (folder / "assignments.jsonl").read_text().splitlines()]
        assert [(r["participant"], r["arm"], r["source"]) for r in records][1] == ("LAB01", "ltm", "link")
        assert page.goto(crowd_page).status != 404  # nor the private link the joiner had (still valid)
    finally:
        context.close()
        server.stop()
