"""Whole SORT sessions on the native page in real headless Chromium: STM (reading with a minimum time, delay,
question) and the whole-book LTM design, by keys at 1280x720 and by taps on a phone (390x844, touch), scored
identically to the same answers given through the terminal's engine; Continue waits, as in the terminal, until the
plan's share of the passage (``min_seen_share``, default all of it) has been on screen."""

from __future__ import annotations

import csv
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_browser import Served, browser, require_browser
from web_native import (
    DESKTOP,
    PHONE,
    alternate_keys,
    drive,
    read_to_end,
    run_session,
    scored_json,
    terminal_replay,
    view,
)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser(require_browser()) as instance:
        yield instance


SORT_STM = ["--trials", "4", "--practice", "0", "--block-size", "4", "--condition", "stm", "--seed", "3",
            "--delay", "0.3", "--min-reading", "0.2", "--no-instructions", "--title", "Memory study"]
SORT_LTM = ["--design", "whole-book", "--condition", "ltm", "--trials", "8", "--practice", "0", "--block-size", "8",
            "--seed", "3", "--no-instructions", "--title", "Memory study"]


def _rows(folder: Path) -> list[dict[str, str]]:
    with open(next(folder.glob("*.csv")), newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("design", ["stm", "ltm-whole-book"])
@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["keys-1280x720", "taps-390x844"])
def test_sort_session(tmp_path: Path, chromium: Any, device: dict[str, Any], design: str) -> None:
    args = SORT_STM if design == "stm" else SORT_LTM
    (tmp_path / "people.csv").write_text("id\nP01\n")
    served = Served("sort", tmp_path / "out", tmp_path / "people.csv", args)
    given = run_session(chromium, served, device, "ab")
    rows = _rows(served.out / "results")
    assert [r["answer"] for r in rows] == [k.upper() for k in given[-len(rows):]]
    kind = "touch" if device is PHONE else "key"
    for r in rows:
        assert r["input"] == kind and float(r["client_rt_ms"]) > 0 and r["interruptions"] == "0"
        if design == "stm":  # the passage was read for at least the minimum, the delay was kept
            assert float(r["reading_ms"]) >= 195 and float(r["delay_ms"]) >= 290 and float(r["seen_share"]) == 1.0
        else:
            assert r["design"] == "whole-book" and r["reading_ms"] == "" and r["seen_share"] == ""
    values: dict[str, Any] = {"participant": "P01", "out": str(tmp_path / "term"), "seed": 3}
    if design == "stm":  # the same plan as the page's (its delay is part of the memory condition scores are kept by)
        values.update(trials=4, practice=0, block_size=4, condition="stm", delay_s=0.3, min_reading_s=0.2)
    else:
        values.update(design="whole-book", condition="ltm", trials=8, practice=0, block_size=8)
    terminal_replay("sort", values, [k.upper() for k in given])
    assert scored_json("sort", served.out / "results") == scored_json("sort", tmp_path / "term" / "results")


def test_continue_waits_until_the_passage_was_seen(tmp_path: Path, chromium: Any) -> None:
    """A passage longer than its box at 1280x720: the button stays disabled and Enter only says why until its end has
    been on screen (the plan's default min_seen_share, the whole passage, as in the terminal); then it continues."""
    (tmp_path / "people.csv").write_text("id\nP01\n")
    served = Served("sort", tmp_path / "out", tmp_path / "people.csv", SORT_STM)
    context = chromium.new_context(**DESKTOP)
    page = context.new_page()
    try:
        served.start()
        page.goto(served.link("P01"))
        drive(page, alternate_keys("ab"), stop=lambda v: "phase-reading" in v["cls"] and v["onset"], timeout_s=20)
        time.sleep(0.4)  # past the minimum reading time: only the unseen rest holds Continue back
        assert page.evaluate("(() => { const el = document.getElementById('scroll-track');"
                             " return el.scrollHeight > el.clientHeight + 2; })()")  # the passage does not fit
        assert page.is_disabled("button[data-act=continue]") and not page.is_visible("#seen-hint")
        page.keyboard.press("Enter")
        page.wait_for_selector("#seen-hint", state="visible", timeout=5000)
        assert "phase-reading" in view(page)["cls"] and "sent" not in view(page)["cls"].split()
        assert read_to_end(page)
        page.wait_for_selector("button[data-act=continue]:not([disabled])", timeout=5000)
        assert not page.is_visible("#seen-hint")
        page.keyboard.press("Enter")
        drive(page, alternate_keys("ab"), timeout_s=40)
    finally:
        served.stop()
        context.close()
    assert [float(r["seen_share"]) for r in _rows(served.out / "results")] == [1.0] * 4


def test_the_server_refuses_a_continue_before_the_declared_share_was_seen(tmp_path: Path) -> None:
    """The page is not trusted: a continue reporting less than the plan's min_seen_share keeps the passage on screen;
    one reporting the whole passage moves on and its share is what the record keeps."""
    from benchlab.annotations.registry import registry
    from benchlab.annotations.session.opening import open_session_from_values
    from benchlab.tui.web.live import LiveSession

    runner = open_session_from_values(registry().get("sort"), {
        "participant": "P01", "out": str(tmp_path), "seed": 3, "trials": 4, "practice": 0, "block_size": 4,
        "condition": "stm", "min_seen_share": 0.9, "no_instructions": True})
    session = LiveSession("P01", runner, "sort")
    shown = session.view()
    while shown["kind"] != "trial":  # consent or instructions, if any
        session.act({"seq": shown["seq"], "act": "accept" if shown["kind"] == "consent" else "next"}, 0.0)
        shown = session.view()
    assert shown["phase"] == "reading" and shown["min_seen"] == 0.9
    session.onset({"seq": shown["seq"], "t": 0.0}, time.monotonic())
    for seen in (None, 0.5, 0.85):
        assert not session.act({"seq": shown["seq"], "act": "continue", "t": 1.0, "seen": seen}, time.monotonic())
    assert session.act({"seq": shown["seq"], "act": "continue", "t": 2.0, "seen": 0.95}, time.monotonic())
    assert session.view()["phase"] == "question"
    runner.close()
