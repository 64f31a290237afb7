"""Helpers of the browser tests and of ``benchlab bench serve``'s probe: the system Chromium driven by Playwright,
a ``benchlab serve`` process on a free port, and a participant that reads the screen and presses keys.

Playwright drives Debian's ``/usr/bin/chromium`` through ``executable_path`` (``playwright install`` is neither
needed nor possible offline).
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CLI = [sys.executable, "-c", "from benchlab.tui.cli import main; main()"]
END_TEXT = "You may now close this tab"


def chromium_path() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return found or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


def require_browser() -> str:
    """The Chromium executable; skips with the reason when it is absent (CI sets BENCHLAB_REQUIRE_BROWSER=1 so
    that this fails instead)."""
    path = chromium_path()
    problem = None
    if path is None:
        problem = "Chromium not found (apt-get install chromium) - browser tests of benchlab serve skipped"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "playwright is not installed (pip install -e '.[test]') - browser tests skipped"
    if problem is None and not _app_has_web_session():
        problem = "the app's web session (benchlab.tui.web.driver, python -m benchlab.tui) is not installed"
    if problem:
        if os.environ.get("BENCHLAB_REQUIRE_BROWSER") == "1":
            pytest.fail(problem)
        pytest.skip(problem)
    assert path is not None
    return path


def _app_has_web_session() -> bool:
    """Whether the interpreter that runs the apps has the web driver (``BENCHLAB_SERVE_APP_PYTHON`` may name
    another environment; see ``benchlab.tui.web.serve_main.ServeConfig``)."""
    python = os.environ.get("BENCHLAB_SERVE_APP_PYTHON") or sys.executable
    code = ("import importlib.util as u, sys; sys.exit(0 if u.find_spec('benchlab.tui.__main__') "
            "and u.find_spec('benchlab.tui.web.driver') else 1)")
    probe = subprocess.run([python, "-c", code], capture_output=True, timeout=60)
    return probe.returncode == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Served:
    """A ``benchlab serve`` process (started with :meth:`start`, killed with :meth:`stop` or :meth:`kill`)."""

    def __init__(self, task: str, out: Path, participants: Path, args: list[str], port: int | None = None,
                 serve_only: list[str] | None = None) -> None:
        self.task, self.out, self.participants, self.args = task, out, participants, args
        self.serve_only = serve_only or []  # flags of serve that run does not take (--terminal-page)
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> Served:
        self.proc = subprocess.Popen([*CLI, "serve", self.task, *self.args, *self.serve_only,
                                      "--participants", str(self.participants),
                                      "--out", str(self.out), "--port", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while not (listening(self.port) and (self.out / "links.csv").exists()):
            if self.proc.poll() is not None:
                raise AssertionError(f"benchlab serve exited: {self.proc.stderr.read().decode()}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise AssertionError("benchlab serve did not start listening")
            time.sleep(0.1)
        return self

    def link(self, participant: str) -> str:
        with open(self.out / "links.csv") as handle:
            urls = {row["participant"]: row["url"] for row in csv.DictReader(handle)}
        return urls[participant]

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


def app_pids(out: Path) -> list[int]:
    """Live app processes writing to ``out`` (from /proc: the argument list names the folder)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            if b"--web-session" in cmd and str(out).encode() in cmd and state != "Z":
                pids.append(int(entry.name))
    return pids


@contextlib.contextmanager
def browser(executable: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def screen(page: Any) -> str:
    return str(page.evaluate("window.benchlabScreen ? window.benchlabScreen() : ''"))


def wait_ready(page: Any, timeout_s: float = 20.0) -> None:
    page.wait_for_function("window.benchlabState && window.benchlabState().ready", timeout=timeout_s * 1000)


def wait_screen(page: Any, text: str, timeout_s: float = 15.0) -> str:
    deadline = time.monotonic() + timeout_s
    shown = ""
    while time.monotonic() < deadline:
        shown = screen(page)
        if text in shown:
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not on screen within {timeout_s} s; screen:\n{shown}")


_WS_TRIAL = re.compile(r"Only respond with one of")
_SORT_QUESTION = "Which segment appeared first"


def next_key(text: str, answer: Callable[[str], str]) -> str | None:
    """What a participant presses on this screen (``answer`` picks the answer key of a trial)."""
    if _SORT_QUESTION in text or _WS_TRIAL.search(text):
        return answer(text)
    for cue, key in (("Press Enter when you have finished reading", "Enter"), ("Press Enter to begin", "Enter"),
                     ("for the next page", "Space"), ("Press Space", "Space"), ("Press Enter", "Enter")):
        if cue in text:
            return key
    return None


def drive(page: Any, answer: Callable[[str], str], *, timeout_s: float = 40.0,
          stop: Callable[[str], bool] | None = None) -> list[str]:
    """Press keys as the screens ask until the end page (or ``stop``); returns the answer keys pressed.

    A key that changed nothing (a break screen's guard time) is pressed again after 2 s.
    """
    deadline = time.monotonic() + timeout_s
    pressed: list[str] = []
    last, last_at, text, seen, seen_at = "", 0.0, "", "", 0.0
    while time.monotonic() < deadline:
        text = screen(page)
        if END_TEXT in text or (stop is not None and stop(text)):
            return pressed
        if text != seen:  # a new screen: let it be painted (and its onset stamped) before answering
            seen, seen_at = text, time.monotonic()
        key = next_key(text, answer)
        settled = time.monotonic() - seen_at > 0.4
        if key is not None and settled and (text != last or time.monotonic() - last_at > 2.0):
            is_answer = _SORT_QUESTION in text or bool(_WS_TRIAL.search(text))
            page.keyboard.press(key)
            if is_answer:
                pressed.append(key)
            last, last_at = text, time.monotonic()
        time.sleep(0.1)
    raise AssertionError(f"the session did not end within {timeout_s} s; screen:\n{text}")
