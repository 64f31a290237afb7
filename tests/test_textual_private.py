"""Each piece of Textual's private API that benchlab relies on (all used from ``tui/textual_private.py``) still exists
with the shape benchlab expects.

A Textual upgrade that renames or reshapes one of them fails here, naming the Textual version, the private thing
and the benchlab feature that must be updated, instead of stimulus onsets or response times going quietly wrong.
"""

from __future__ import annotations

import inspect
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
import textual._time
from textual import events
from textual.app import App
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.drivers.web_driver import WebDriver
from textual.screen import Screen

from benchlab.tui import textual_private
from benchlab.tui.frame_clock import FrameClock, timed_driver_class
from benchlab.tui.textual_private import (
    TEXTUAL_VERSION,
    ByteStream,
    CrashSafeApp,
    ExitInput,
    FrameHookApp,
    XTermParser,
    app_driver,
    driver_app,
    driver_debug,
    get_time,
    replace_packet_writer,
    web_input_reader,
)


def broken(thing: str, feature: str) -> str:
    return (f"Textual {TEXTUAL_VERSION} changed {thing}; benchlab's {feature} (tui/textual_private.py) "
            "must be updated")


def params(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_key_events_are_stamped_with_the_clock_response_times_use(monkeypatch: pytest.MonkeyPatch) -> None:
    assert textual._time.get_time is get_time, broken("textual._time.get_time", "event clock (get_time)")
    monkeypatch.setattr(textual._time, "get_time", lambda: 12345.0)
    assert events.Key("a", "a").time == 12345.0, broken("how Message.time is stamped", "event clock (get_time)")


async def test_the_per_frame_display_step_is_there_and_called_per_frame() -> None:
    assert params(App._display) == ["self", "screen", "renderable"], broken("App._display", "onset timing hook")

    class Counting(FrameHookApp[None]):
        frames = 0

        def frame_display(self, screen: Screen[Any], write: Any) -> None:
            Counting.frames += 1
            write()

    async with Counting().run_test(size=(40, 10)) as pilot:
        await pilot.pause()
    assert Counting.frames > 0, broken("App._display (no longer called per frame)", "onset timing hook")


async def test_the_app_and_its_driver_reach_each_other() -> None:
    app = App[None]()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        driver = app_driver(app)
        assert isinstance(driver, Driver), broken("App._driver", "driver access (app_driver)")
        assert driver_app(driver) is app, broken("Driver._app", "web driver's messages (driver_app)")
        assert isinstance(driver_debug(driver), bool), broken("Driver._debug", "web input parser (driver_debug)")


def test_the_exception_path_crash_safe_apps_replace() -> None:
    assert params(App._handle_exception) == ["self", "error"], broken("App._handle_exception", "CrashSafeApp")
    assert callable(getattr(App, "_close_messages_no_wait", None)), broken("App._close_messages_no_wait",
                                                                           "CrashSafeApp")
    app = CrashSafeApp[None]()
    for name in ("_exception", "_exception_event", "_return_code"):
        assert hasattr(app, name), broken(f"App.{name}", "CrashSafeApp")


async def test_the_terminal_driver_writes_frames_to_the_file_benchlab_time_stamps() -> None:
    driver_class = timed_driver_class()
    if driver_class is None:
        pytest.skip("no terminal driver with a frame clock on Windows")
    source = inspect.getsource(LinuxDriver.start_application_mode)
    assert "WriterThread(self._file)" in source, broken("LinuxDriver._file (the writer thread's file)",
                                                        "onset timing (frame_clock.wrap_output_file)")
    saved = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
    try:
        driver = driver_class(App[None]())
    finally:  # the Linux driver installs Ctrl+Z handlers when built
        signal.signal(signal.SIGTSTP, saved[0])
        signal.signal(signal.SIGCONT, saved[1])
    assert isinstance(driver.frame_clock, FrameClock)
    assert type(driver._file).__name__ == "_TimedFile", broken("LinuxDriver._file", "onset timing (frame_clock)")


async def test_the_web_driver_internals_the_session_driver_builds_on(monkeypatch: pytest.MonkeyPatch) -> None:
    read_end, write_end = os.pipe()  # the driver's input reader selects on stdin: give it a pipe
    with os.fdopen(read_end, "rb") as stdin, os.fdopen(write_end, "wb"):
        monkeypatch.setattr(sys, "__stdin__", stdin)
        driver = WebDriver(App[None]())
        web_input_reader(driver).close()
    written: list[bytes] = []
    replace_packet_writer(driver, written.append)
    driver.write("hi")
    assert written == [b"D\x00\x00\x00\x02hi"], broken("WebDriver._write", "web session driver's packet writer")
    reader = web_input_reader(driver)
    assert callable(getattr(reader, "__iter__", None)) and callable(getattr(reader, "close", None)), \
        broken("WebDriver._input_reader", "web session driver's input loop")
    assert issubclass(ExitInput, Exception), broken("web_driver._ExitInput", "web session driver's input loop")
    assert isinstance(driver.fileno, int) and hasattr(driver.exit_event, "is_set"), \
        broken("WebDriver.fileno / exit_event", "web session driver")
    source = inspect.getsource(WebDriver.run_input_thread)
    for used in ("XTermParser", "ByteStream", "_input_reader", "_ExitInput"):
        assert used in source, broken(f"WebDriver.run_input_thread (no longer uses {used})",
                                      "web session driver's input loop (tui/web/driver.py)")


def test_the_terminal_parser_and_packet_splitter() -> None:
    parser = XTermParser(debug=False)
    keys = [e for e in parser.feed("a") if isinstance(e, events.Key)] + [
        e for e in parser.tick() if isinstance(e, events.Key)]
    assert [k.key for k in keys] == ["a"], broken("textual._xterm_parser.XTermParser", "web session driver's keys")
    packets = list(ByteStream().feed(b"D\x00\x00\x00\x01aM\x00\x00\x00\x02{}"))
    assert packets == [("D", b"a"), ("M", b"{}")], broken("textual.drivers._byte_stream.ByteStream",
                                                           "web session driver's packets")


def test_only_the_private_module_imports_private_textual() -> None:
    package = Path(textual_private.__file__).parents[1]
    private = re.compile(r"^\s*(from|import) textual(\.\w+)*\._", re.MULTILINE)
    files = [p for layer in ("tui", "annotations", "data") for p in (package / layer).rglob("*.py")]
    found = [str(p.relative_to(package)) for p in files
             if p.name != "textual_private.py" and private.search(p.read_text(encoding="utf-8"))]
    assert found == [], f"private Textual imported outside tui/textual_private.py: {found}"
