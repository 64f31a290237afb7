"""The native page under faults, in real headless Chromium (every wait bounded): a reload mid-trial, 5 s offline
with a key pressed meanwhile, a server SIGKILL and restart, a second tab, the SORT passage after the question,
keys before onset, a hidden tab, and a device check that refuses a phone."""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from session_helpers import write_testset
from web_browser import Served, browser, require_browser
from web_native import DESKTOP, PHONE, drive, read_to_end, view, wait_text

ITEM = "Only respond"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


@pytest.fixture
def context(chromium: Any) -> Iterator[Any]:
    ctx = chromium.new_context(**DESKTOP)
    yield ctx
    ctx.close()


def worldsense(tmp_path: Path, *extra: str) -> Served:
    testset = write_testset(tmp_path / "testset", tuples_per_cell=3, sizes=(3,), problems=("Infer.trivial",))
    (tmp_path / "people.csv").write_text("id\nP01\n")
    return Served("worldsense", tmp_path / "out", tmp_path / "people.csv",
                  ["--testset", str(testset), "--tuples-per-cell", "2", "--practice", "0", "--seed", "5",
                   "--no-instructions", *extra])


def records(served: Served) -> list[dict[str, Any]]:
    path = served.out / "results" / "basic___human-P01___results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def events(served: Served) -> list[dict[str, Any]]:
    path = next((served.out / "sessions").glob("*.events.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def logged(served: Served, event: str) -> int:
    """How many ``event`` lines the session's events log holds now (a line being written is not counted)."""
    path = next((served.out / "sessions").glob("*.events.jsonl"))
    return sum(1 for line in path.read_text().splitlines() if f'"event": "{event}"' in line and line.endswith("}"))


def wait_until(check: Any, timeout_s: float, what: str) -> float:
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > timeout_s:
            raise AssertionError(f"{what} not within {timeout_s} s")
        time.sleep(0.05)
    return time.monotonic() - start


def test_reload_offline_and_a_second_tab_leave_marked_records(tmp_path: Path, context: Any) -> None:
    served = worldsense(tmp_path).start()
    try:
        page = context.new_page()
        page.goto(served.link("P01"))
        wait_text(page, ITEM)
        time.sleep(0.3)
        response = page.reload()  # F5 mid-trial: the session is taken over, no 409
        assert response is not None and response.status == 200
        wait_text(page, ITEM)
        time.sleep(0.3)
        context.set_offline(True)  # 5 s offline, a key pressed 2 s into it
        assert wait_until(lambda: view(page)["cover"], 3.0, "the Reconnecting cover") < 3.0
        assert "Reconnecting" in page.inner_text("#cover")
        time.sleep(2.0)
        page.keyboard.press("1")
        time.sleep(3.0)
        assert records(served) == []  # nothing taken during the outage
        context.set_offline(False)
        wait_until(lambda: not view(page)["cover"], 10.0, "reconnected")
        time.sleep(0.3)
        page.keyboard.press("2")
        wait_until(lambda: len(records(served)) == 1, 5.0, "the first record")
        second = context.new_page()  # a second tab takes the session over; the first is told
        second.goto(served.link("P01"))
        wait_text(second, ITEM)
        wait_text(page, "Continued in another tab")
        drive(second, lambda _c, _t: "1", timeout_s=30)
    finally:
        served.stop()
    first, *rest = records(served)
    assert first["resp"] == "FALSE" and first["interrupted"] is True and first["interruptions"] == 2
    assert first["ignored_keys"] == 1  # the key pressed offline: counted, not an answer
    assert first["first_onset_mono"] < first["onset_mono"]
    assert 0 < first["client_rt_ms"] < 2000 and abs(first["rt_ms"] - first["client_rt_ms"]) < 500  # no outage in RT
    assert rest[0]["interrupted"] is True and rest[0]["interruptions"] == 1  # on screen in the first tab
    assert all(r["interruptions"] == 0 for r in rest[1:]) and len(rest) == 3
    kinds = [e["event"] for e in events(served)]
    assert kinds.count("page_connected") >= 4 and "page_disconnected" in kinds


def test_server_kill_and_restart_resume_and_the_sort_passage_is_not_shown_again(tmp_path: Path,
                                                                              context: Any) -> None:
    (tmp_path / "people.csv").write_text("id,condition\nP01,stm\n")
    served = Served("sort", tmp_path / "out", tmp_path / "people.csv",
                    ["--trials", "4", "--practice", "0", "--block-size", "4", "--condition", "stm", "--seed", "3",
                     "--no-instructions"]).start()
    try:
        page = context.new_page()
        page.goto(served.link("P01"))
        wait_text(page, "Read this passage")
        time.sleep(0.4)
        page.reload()  # while reading: the passage again, its reading time adds up
        wait_text(page, "Read this passage")
        time.sleep(0.4)
        read_to_end(page)  # Continue waits for the whole passage to have been on screen (min_seen_share)
        page.wait_for_selector("button[data-act=continue]:not([disabled])", timeout=5000)
        page.keyboard.press("Enter")
        wait_text(page, "Which segment")
        # the question painted (its onset in the log) before the reload: a page reloaded before its first frame
        # never showed the question, and is rightly no interruption
        wait_until(lambda: logged(served, "trial_onset") >= 3, 15.0, "the question's first onset in the log")
        page.reload()  # on the question: the question again, never the passage
        assert "Which segment" in wait_text(page, "Which segment")["text"]
        # its showing is in the log before the kill (page events are appended after the view, without an fsync of
        # their own): a kill before it would leave the restarted server one interruption short
        wait_until(lambda: logged(served, "trial_onset") >= 4, 15.0, "the question's second onset in the log")
        served.kill()
        wait_until(lambda: view(page)["cover"], 4.0, "the Reconnecting cover")
        served.start()
        wait_text(page, "Welcome back", 20)
        page.keyboard.press("Enter")
        shown = wait_text(page, "Which segment")
        assert "Read this passage" not in shown["text"]
        drive(page, lambda _c, _t: "a", timeout_s=30)
    finally:
        served.stop()
    with open(next((served.out / "results").glob("*.csv")), newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and len({r["trial_id"] for r in rows}) == 4  # nothing lost or duplicated
    first = rows[0]
    assert first["interrupted"] == "True" and first["interruptions"] == "3"  # two reloads, one restart
    assert float(first["reading_ms"]) >= 700  # both visits of the passage
    assert all(r["interrupted"] == "False" for r in rows[1:])


def test_keys_before_onset_hidden_tab_and_clipboard_are_logged(tmp_path: Path, context: Any) -> None:
    served = worldsense(tmp_path).start()
    try:
        page = context.new_page()
        page.goto(served.link("P01"))
        wait_text(page, ITEM)
        time.sleep(0.3)
        # Keys before onset: the page ignores and counts them (the next view's onset is a frame away).
        page.evaluate("""() => { const v = document.getElementById('view');
            new MutationObserver(() => { for (const k of ['1', '2', '1'])
              window.dispatchEvent(new KeyboardEvent('keydown', {key: k})); }).observe(v, {childList: true}); }""")
        page.keyboard.press("1")
        wait_until(lambda: len(records(served)) == 1, 5.0, "the first record")
        time.sleep(0.3)
        page.evaluate("""() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});
            document.dispatchEvent(new Event('visibilitychange')); }""")
        time.sleep(0.3)
        page.evaluate("""() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});
            document.dispatchEvent(new Event('visibilitychange')); window.dispatchEvent(new Event('blur'));
            document.dispatchEvent(new Event('copy', {cancelable: true}));
            document.getElementById('view').dispatchEvent(new MouseEvent('contextmenu', {bubbles: true,
              cancelable: true})); }""")
        time.sleep(0.3)
        page.keyboard.press("2")
        wait_until(lambda: len(records(served)) == 2, 5.0, "the second record")
    finally:
        served.stop()
    first, second = records(served)
    assert first["ignored_keys"] == 0 and second["ignored_keys"] == 3
    assert second["resp"] == "FALSE"  # the early keys were not answers
    assert 250 <= second["hidden_ms"] < 5000 and second["blurs"] == 1 and second["clipboard_attempts"] == 2
    kinds = [e["event"] for e in events(served)]
    for kind in ("page_early_key", "page_hidden", "page_visible", "page_blur", "page_copy", "page_contextmenu"):
        assert kind in kinds


def test_a_device_check_refusal_records_nothing(tmp_path: Path, chromium: Any) -> None:
    served = worldsense(tmp_path, "--require-computer").start()
    phone = chromium.new_context(**PHONE)
    try:
        page = phone.new_page()
        page.goto(served.link("P01"))
        shown = wait_text(page, "Please use a computer")
        assert "Nothing has been recorded" in shown["text"]
        desktop = chromium.new_context(**DESKTOP)
        page = desktop.new_page()
        page.goto(served.link("P01"))
        wait_text(page, ITEM)  # a computer may start
        desktop.close()
    finally:
        phone.close()
        served.stop()
    assert records(served) == []
    kinds = [e["event"] for e in events(served)]
    assert kinds.count("page_connected") == 1  # the phone left no trace
