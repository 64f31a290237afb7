"""The experimenter dashboard of ``serve --study DIR --admin`` in headless Chromium: login with the password set
by ``benchlab study set-password``, wrong passwords rate-limited, forms refused without their CSRF token or from
another origin, the live sessions table and places per arm against quotas, pause (joiners see the paused page,
nothing starts) and resume, and the results zip (no key file, no secret, no tokens, no raw platform id)."""

from __future__ import annotations

import io
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from online_helpers import finish, online_study
from test_online_browser import DESKTOP, StudyServer, prolific_link
from web_browser import browser, require_browser

from benchlab.annotations.online.password import set_password

pytestmark = pytest.mark.slow
PASSWORD = "a long dashboard password"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


def login(page: Any, server: StudyServer, password: str) -> int:
    page.goto(server.url("/admin"))
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("button[type=submit]")
    return 200 if page.query_selector("#sessions") is not None else 0


def post(url: str, data: bytes, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, data=data, headers=headers or {}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_dashboard_login_pause_resume_and_download(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st", "quota = 4\narm_quotas = { stm = 2, ltm = 2 }")
    set_password(folder, PASSWORD)
    server = StudyServer(folder, admin=True).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    joiner = chromium.new_context(**DESKTOP)
    joiner_page = joiner.new_page()
    joiner_page.route("**/s/**", lambda route: route.fulfill(status=200, body="session", content_type="text/plain"))
    try:
        joiner_page.goto(prolific_link(server, "ADMINTEST1"))
        token = joiner_page.url.rsplit("/s/", 1)[1]
        pid = (folder / "assignments.jsonl").read_text().split('"participant": "', 1)[1].split('"', 1)[0]
        finish(folder, pid)
        joiner_page.goto(server.url(f"/done/{token}"))
        assert joiner_page.inner_text("#code") == "DONE1234"

        assert login(page, server, "wrong password") == 0
        assert "Wrong password" in page.inner_text("main")
        assert login(page, server, PASSWORD) == 200
        table = page.inner_text("#sessions")
        assert pid in table and "finished" in table and "completed" in table
        assert "1 of 4" in page.inner_text("#total")
        arms = page.inner_text("#arms")
        assert "stm\t1\t2" in arms and "ltm\t0\t2" in arms

        # forms without the CSRF token, or from another site, change nothing
        assert post(server.url("/admin/pause"), b"csrf=guess", {"Cookie": "benchlab_admin=guess"}) == 403
        cookie = next(c for c in context.cookies() if c["name"] == "benchlab_admin")["value"]
        csrf = page.get_attribute("input[name=csrf]", "value")
        assert post(server.url("/admin/pause"), f"csrf={csrf}".encode(),
                    {"Cookie": f"benchlab_admin={cookie}", "Origin": "http://evil.example"}) == 403
        assert page.inner_text("#recruitment") == "open"

        with page.expect_navigation():
            page.click("#pause")
        assert page.inner_text("#recruitment") == "paused"
        joiner_page.goto(prolific_link(server, "ADMINTEST2"))
        assert "paused" in joiner_page.inner_text("h1") and "/join/" in joiner_page.url
        with page.expect_navigation():
            page.click("#resume")
        assert page.inner_text("#recruitment") == "open"
        joiner_page.goto(prolific_link(server, "ADMINTEST2"))
        assert "/s/" in joiner_page.url

        with page.expect_download() as download:
            page.click("#download")
        names = zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes())).namelist()
        assert "study.toml" in names and "assignments.jsonl" in names
        assert any(n.startswith("results/") for n in names) and any(n.endswith(".events.jsonl") for n in names)
        assert not [n for n in names if ".online" in n or "token" in n or "secret" in n or "password" in n
                    or "platform-ids" in n or n.endswith(".lock")]
        archive = zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes()))
        assert all(b"ADMINTEST" not in archive.read(n) for n in names)
    finally:
        context.close()
        joiner.close()
        server.stop()


def test_wrong_passwords_many_times_are_rate_limited(tmp_path: Path, chromium: Any) -> None:
    folder = online_study(tmp_path / "st")
    set_password(folder, PASSWORD)
    server = StudyServer(folder, admin=True).start()
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        for _ in range(5):
            assert login(page, server, "not it at all") == 0
        assert login(page, server, PASSWORD) == 0  # the right one too, for the rest of the window
        assert "Too many" in page.inner_text("main")
    finally:
        context.close()
        server.stop()


def test_without_admin_there_is_no_dashboard(tmp_path: Path) -> None:
    folder = online_study(tmp_path / "st")
    set_password(folder, PASSWORD)
    server = StudyServer(folder).start()
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url("/admin"), timeout=10)
        assert refused.value.code == 404
    finally:
        server.stop()
