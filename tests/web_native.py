"""Helpers of the native page's browser tests: a participant that reads the page's view and acts like a person
(keys at a desktop, taps on a phone), with every wait bounded."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from web_browser import Served

from benchlab.tui.cli import build_cli

DESKTOP = {"viewport": {"width": 1280, "height": 720}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}


def view(page: Any) -> dict[str, Any]:
    """What the page shows: its kind, phase, sequence number and text."""
    return dict(page.evaluate("""() => { const v = document.getElementById('view');
        return {cls: v.className, text: v.innerText, cover: !document.getElementById('cover').hidden,
                onset: v.hasAttribute('data-onset'),
                title: document.title}; }"""))


def wait_text(page: Any, text: str, timeout_s: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    shown: dict[str, Any] = {}
    while time.monotonic() < deadline:
        shown = view(page)
        if text in shown["text"]:
            return shown
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not on the page within {timeout_s} s: {shown}")


def drive(page: Any, answer: Callable[[str, str], str], *, tap: bool = False, timeout_s: float = 40.0,
          stop: Callable[[dict[str, Any]], bool] | None = None) -> list[str]:
    """Act on every view until the end (or ``stop``): consent, pages, breaks and feedback by Enter or a tap on the
    button, trials by ``answer(kind, text)`` (a key, or with ``tap`` the value of the button tapped). Returns the
    answers given."""
    deadline = time.monotonic() + timeout_s
    given: list[str] = []
    last_cls, last_text, acted_at = "", "", 0.0
    while time.monotonic() < deadline:
        v = view(page)
        if "view-end" in v["cls"] or (stop is not None and stop(v)):
            return given
        fresh = (v["cls"], v["text"]) != (last_cls, last_text)
        sent = "sent" in v["cls"].split()  # a class of its own ("view-consent" contains the letters too)
        if v["cover"] or not v["onset"] or sent or (not fresh and time.monotonic() - acted_at < 2.0):
            time.sleep(0.05)
            continue
        time.sleep(0.05)
        if "view-consent" in v["cls"]:
            _press(page, "button[data-act=accept]", "Enter", tap, click=True)
        elif "phase-question" in v["cls"]:
            key = answer(v["cls"], v["text"])
            given.append(key)
            shortcut = key.upper() if key.isalpha() else key
            _press(page, f"button[data-act=answer][aria-keyshortcuts='{shortcut}']", key, tap)
        elif "phase-delay" in v["cls"]:
            time.sleep(0.05)
            continue
        elif "phase-reading" in v["cls"] and read_to_end(page):
            time.sleep(0.05)  # scrolled: Continue is pressed once the page enables it (SORT's min_seen_share)
            continue
        elif page.query_selector("button[data-act]:not([disabled])") is not None:
            forward = "button.primary[data-act]:not([disabled])"  # not Back (paged instructions)
            _press(page, forward if page.query_selector(forward) else "button[data-act]:not([disabled])", "Enter", tap)
        else:
            time.sleep(0.05)
            continue
        last_cls, last_text, acted_at = v["cls"], v["text"], time.monotonic()
    raise AssertionError(f"the session did not end within {timeout_s} s: {view(page)}")


def read_to_end(page: Any) -> bool:
    """Scroll the passage (and the window) until its end is on screen, as a reader does; ``True`` if it moved."""
    return bool(page.evaluate("""() => { const el = document.getElementById('scroll-track');
        if (!el) return false;
        let moved = false;
        if (el.scrollHeight - el.clientHeight - el.scrollTop > 1) { el.scrollTop = el.scrollHeight; moved = true; }
        if (el.getBoundingClientRect().bottom > innerHeight + 1) { el.scrollIntoView({block: 'end'}); moved = true; }
        return moved; }"""))


def _press(page: Any, selector: str, key: str, tap: bool, click: bool = False) -> None:
    if tap:
        page.tap(selector, timeout=5000)
    elif click:
        page.click(selector, timeout=5000)
    else:
        page.keyboard.press(key)


def terminal_replay(task_name: str, values: dict[str, Any], answers: list[str]) -> None:
    """The same plan answered with the same responses by the terminal's engine (``SessionRunner`` without a page):
    the reference a web session must score identically to."""
    from benchlab.annotations.registry import registry
    from benchlab.annotations.session.opening import open_session_from_values
    from benchlab.annotations.session.runner import ResponseTiming, Stage

    runner = open_session_from_values(registry().get(task_name), values)
    given = iter(answers)
    while runner.stage is not Stage.END:
        if runner.stage is Stage.CONSENT:
            runner.accept_consent()
        elif runner.stage is Stage.INSTRUCTIONS:
            runner.finish_instructions()
        elif runner.stage is Stage.BREAK:
            runner.continue_after_break()
        else:
            runner.respond(next(given), ResponseTiming(onset_mono=1.0, response_mono=1.5))
    runner.close()


def alternate_keys(keys: str) -> Callable[[str, str], str]:
    """An answerer for :func:`drive` that gives ``keys`` in turn (from the second)."""
    n = {"i": 0}

    def answer(_cls: str, _text: str) -> str:
        n["i"] += 1
        return keys[n["i"] % len(keys)]
    return answer


def run_session(chromium: Any, served: Served, device: dict[str, Any], keys: str) -> list[str]:
    """One participant (``P01``) through a whole session of ``served`` on ``device``, answering ``keys`` in turn;
    the answers given. The page must end on its saved-answers view with the study's own title, without a page
    error."""
    context = chromium.new_context(**device)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        served.start()
        page.goto(served.link("P01"))
        given = drive(page, alternate_keys(keys), tap=device is PHONE, timeout_s=40)
        shown = view(page)
        assert "All your answers are saved" in shown["text"]
        assert shown["title"] == "Memory study"  # the study's title, not the benchmark's
    finally:
        served.stop()
        context.close()
    assert errors == []
    return given


def scored_json(kind: str, results: Path, testset: Path | None = None) -> Any:
    """``benchlab score KIND ... --format json`` in this process, without the response-time and reading columns
    (the scores, not the timing: a replay through the terminal has its own)."""
    args = ["score", kind, *(["-t", str(testset), "--results", str(results)] if testset else [str(results)]),
            "--format", "json"]
    done = CliRunner().invoke(build_cli(), args)  # in this process: pandas loads once for the whole file
    assert done.exit_code == 0, done.output
    tables = json.loads(done.stdout)
    for table in tables:
        for row in table.get("rows", []):
            row["cells"] = {k: v for k, v in row["cells"].items() if "rt" not in k and "reading" not in k}
    return tables
