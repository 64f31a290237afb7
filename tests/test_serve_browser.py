"""``benchlab serve --terminal-page`` (the terminal-in-browser page, kept for plug-in trial kinds without a web
renderer) in a real headless Chromium: whole sessions from a link by key presses, a closed tab, a killed
server, a second tab, an unknown link and keys pressed before the stimulus is painted.

Each test runs a small plan (a few trials) with loose timing bounds; every wait is bounded.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from web_browser import (
    CLI,
    END_TEXT,
    Served,
    app_pids,
    browser,
    drive,
    require_browser,
    screen,
    wait_ready,
    wait_screen,
)

pytestmark = pytest.mark.slow

SORT_PLAN = ["--trials", "4", "--practice", "1", "--block-size", "2", "--condition", "stm", "--seed", "3"]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    tab = context.new_page()
    yield tab
    context.close()


def worldsense(tmp_path: Path, *people: str) -> Served:
    testset = write_testset(tmp_path / "testset", tuples_per_cell=3, sizes=(3,), problems=("Infer.trivial",))
    (tmp_path / "people.csv").write_text("id\n" + "".join(p + "\n" for p in people or ("P01",)))
    return Served("worldsense", tmp_path / "out", tmp_path / "people.csv",
                  ["--testset", str(testset), "--tuples-per-cell", "2", "--practice", "1", "--seed", "5"],
                  serve_only=["--terminal-page"])


def sort(tmp_path: Path) -> Served:
    (tmp_path / "people.csv").write_text("id,condition\nP01,stm\n")
    return Served("sort", tmp_path / "out", tmp_path / "people.csv", SORT_PLAN, serve_only=["--terminal-page"])


def alternate(keys: tuple[str, str]) -> Any:
    count = {"n": 0}

    def answer(_: str) -> str:
        count["n"] += 1
        return keys[count["n"] % 2]
    return answer


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def simulated(task: str, out: Path, args: list[str]) -> Path:
    """The same plan run by the terminal engine (a simulated participant): the reference file format."""
    done = subprocess.run([*CLI, "run", task, *args, "--participant", "P01", "--out", str(out), "--simulate",
                           "oracle"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def same_format(web: list[dict[str, Any]] | list[str], terminal: list[dict[str, Any]] | list[str]) -> None:
    """The web records have every field of the terminal's, and only the page's timing fields (``client_*``) and
    conduct marks beyond them."""
    web_keys = set(web[0]) if isinstance(web[0], dict) else set(web)
    terminal_keys = set(terminal[0]) if isinstance(terminal[0], dict) else set(terminal)
    assert terminal_keys <= web_keys
    conduct = {"interruptions", "hidden_ms", "blurs", "clipboard_attempts"}
    assert all(k.startswith("client_") or k in conduct for k in web_keys - terminal_keys), web_keys - terminal_keys


def test_a_whole_worldsense_session_from_a_link(tmp_path: Path, page: Any) -> None:
    served = worldsense(tmp_path).start()
    try:
        response = page.goto(served.link("P01"))
        assert response.status == 200
        wait_ready(page)
        assert page.evaluate("document.activeElement === document.querySelector('.xterm-helper-textarea')")
        pressed = drive(page, alternate(("1", "2")))
        wait_screen(page, END_TEXT)
        # the end page: everything is on disk, so closing the tab no longer asks "leave this page?"
        deadline = time.monotonic() + 5
        while not page.evaluate("window.benchlabState().ended") and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        assert page.evaluate("window.benchlabState().ended")
    finally:
        served.stop()
    out = served.out
    results = jsonl(out / "results" / "basic___human-P01___results.jsonl")
    practice = jsonl(out / "practice" / "basic___human-P01___practice.jsonl")
    assert len(results) == 4 and len(practice) == 1 and len({r["Key"] for r in results}) == 4
    assert [r["resp"] for r in practice + results] == [{"1": "TRUE", "2": "FALSE"}[k] for k in pressed]
    for r in results:  # page timing next to the server's, close to it (loose: a busy 2-core machine)
        assert r["client_rt_ms"] is not None and 0 < r["client_rt_ms"] <= r["rt_ms"] + 50
    reference = simulated("worldsense", tmp_path / "terminal", served.args)
    same_format(results, jsonl(reference / "results" / "basic___human-P01___results.jsonl"))
    testset = tmp_path / "testset"
    for folder in (out, reference):
        scored = subprocess.run([*CLI, "score", "worldsense", "-t", str(testset), "--results", str(folder / "results"),
                                 "--format", "json"], capture_output=True, text=True, timeout=120)
        assert scored.returncode == 0, scored.stderr
    events = [e["event"] for e in jsonl(next((out / "sessions").glob("*.events.jsonl")))]
    assert "connected" in events
    assert app_pids(out) == []


def test_a_whole_sort_stm_session_from_a_link(tmp_path: Path, page: Any) -> None:
    served = sort(tmp_path).start()
    try:
        page.goto(served.link("P01"))
        wait_ready(page)
        pressed = drive(page, alternate(("a", "b")))
    finally:
        served.stop()
    out = served.out
    with open(out / "results" / "250-s20-human_P01_results.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and [r["answer"] for r in rows] == [k.upper() for k in pressed[1:]]
    reference = simulated("sort", tmp_path / "terminal", SORT_PLAN)
    with open(reference / "results" / "250-s20-human_P01_results.csv") as handle:
        terminal = next(csv.reader(handle))
    with open(out / "results" / "250-s20-human_P01_results.csv") as handle:
        web = next(csv.reader(handle))
    same_format(web, terminal)
    scored = subprocess.run([*CLI, "score", "sort", str(out / "results"), "--format", "json"], capture_output=True,
                            text=True, timeout=120)
    assert scored.returncode == 0, scored.stderr


def test_closing_the_tab_mid_trial_then_coming_back_resumes(tmp_path: Path, chromium: Any) -> None:
    served = worldsense(tmp_path).start()
    out = served.out
    results = out / "results" / "basic___human-P01___results.jsonl"
    try:
        first = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
        first.goto(served.link("P01"))
        wait_ready(first)
        drive(first, alternate(("1", "2")), stop=lambda _: results.exists() and len(jsonl(results)) >= 2)
        wait_screen(first, "Only respond with one of")  # the third question is on screen, unanswered
        dialogs: list[str] = []
        first.on("dialog", lambda d: (dialogs.append(d.type), d.accept()))
        with first.expect_event("close", timeout=10000):
            first.close(run_before_unload=True)  # mid-session, the page asks before leaving
        assert dialogs == ["beforeunload"]
        first.context.close()
        deadline = time.monotonic() + 3.0
        while app_pids(out) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert app_pids(out) == []  # the app (and its group) is gone, so the lock is free
        second = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
        second.goto(served.link("P01"))
        wait_ready(second)
        wait_screen(second, "Welcome back")
        drive(second, alternate(("1", "2")))
        second.context.close()
    finally:
        served.stop()
    keys = [r["Key"] for r in jsonl(results)]
    assert len(keys) == 4 and len(set(keys)) == 4  # nothing lost, nothing twice
    events = [e["event"] for e in jsonl(next((out / "sessions").glob("*.events.jsonl")))]
    assert events.count("connected") == 2 and "disconnected" in events


def test_a_killed_server_leaves_no_app_behind_and_the_session_resumes(tmp_path: Path, chromium: Any) -> None:
    served = worldsense(tmp_path).start()
    out = served.out
    results = out / "results" / "basic___human-P01___results.jsonl"
    try:
        tab = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
        tab.goto(served.link("P01"))
        wait_ready(tab)
        drive(tab, alternate(("1", "2")), stop=lambda _: results.exists() and len(jsonl(results)) >= 1)
        assert app_pids(out)
        served.kill()
        deadline = time.monotonic() + 2.0
        while app_pids(out) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app_pids(out) == []  # parent-death signal: no orphan holds the lock
        served.start()
        wait_ready(tab, timeout_s=25)  # the page reconnects by itself
        drive(tab, alternate(("1", "2")))
        tab.context.close()
    finally:
        served.stop()
    keys = [r["Key"] for r in jsonl(results)]
    assert len(keys) == 4 and len(set(keys)) == 4


def test_a_second_tab_is_refused_and_an_unknown_link_is_a_404(tmp_path: Path, chromium: Any) -> None:
    served = worldsense(tmp_path).start()
    try:
        context = chromium.new_context(viewport={"width": 1280, "height": 720})
        first = context.new_page()
        first.goto(served.link("P01"))
        wait_ready(first)
        second = context.new_page()
        response = second.goto(served.link("P01"))
        assert response.status == 409
        assert "open in another tab or window" in second.inner_text("body")
        assert len(app_pids(served.out)) == 1
        assert "Welcome" in screen(first)  # the first tab is untouched
        unknown = context.new_page()
        bad = served.link("P01").rsplit("/", 1)[0] + "/" + "x" * 32
        response = unknown.goto(bad)
        assert response.status == 404 and "This link is not valid" in unknown.inner_text("body")
        response = unknown.goto(served.link("P01") + "/../../../etc/passwd")
        assert response.status == 404
        assert len(app_pids(served.out)) == 1
        stopped = time.monotonic()
        assert served.proc is not None
        served.proc.send_signal(signal.SIGTERM)  # with a session open: its app goes with the server
        while app_pids(served.out) and time.monotonic() - stopped < 5:
            time.sleep(0.05)
        assert app_pids(served.out) == [] and time.monotonic() - stopped < 2.5
        first.wait_for_function("!document.getElementById('overlay').hidden", timeout=10000)
        assert "Connection lost" in first.inner_text("#overlay")  # not an end page: it resumes on its own
        context.close()
    finally:
        served.stop()
    assert (served.out / "serve.log").read_text().count("connected (") == 1


def test_answer_keys_pressed_before_the_stimulus_is_painted_are_not_recorded(tmp_path: Path, page: Any) -> None:
    served = worldsense(tmp_path).start()
    practice = served.out / "practice" / "basic___human-P01___practice.jsonl"
    try:
        page.goto(served.link("P01"))
        wait_ready(page)
        # Hold every paint 1.5 s: the question reaches the page's terminal but is not on the screen yet.
        page.evaluate("""() => { const raf = window.requestAnimationFrame.bind(window);
                         window.requestAnimationFrame = f => setTimeout(() => raf(f), 1500); }""")
        drive(page, lambda _: "1", stop=lambda text: "Press Enter to begin" in text)
        page.keyboard.press("Enter")
        wait_screen(page, "Only respond with one of", timeout_s=10)
        page.keyboard.press("2")  # before the paint: must not count
        time.sleep(2.5)
        assert not practice.exists() or jsonl(practice) == []
        page.keyboard.press("1")
        deadline = time.monotonic() + 5
        while not practice.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        served.stop()
    recorded = jsonl(practice)
    assert [r["resp"] for r in recorded] == ["TRUE"]
    assert recorded[0]["client_rt_ms"] is not None and recorded[0]["client_rt_ms"] > 1000


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
