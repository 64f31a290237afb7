"""Every place benchlab relies on Textual's private API, in one module (and checked by tests/test_textual_private.py).

Textual gives no public hook for what a timed experiment needs: the moment a frame's bytes leave for the terminal
(stimulus onset), the driver's output file and packet writer, the web driver's input parser, and a crash path that
renders nothing. Those uses live here, each with what it relies on, so a Textual upgrade breaks one module and one
test that names the Textual version and the benchlab feature, not timing silently. Nothing else in benchlab imports
``textual._*`` or reads a private Textual attribute; it imports what it needs from here.

What is relied on (``tests/test_textual_private.py`` checks each one's shape):

- the event clock: ``textual.message.Message`` stamps ``time`` with ``textual._time.get_time``, which is the public
  ``time.monotonic`` (``time.perf_counter`` on Windows); :data:`get_time` is that public function, so a response
  time taken here is on the same clock as ``events.Key.time``;
- ``App._display(screen, renderable)``: called once per frame with what is written to the driver
  (:class:`FrameHookApp`);
- ``App._driver``: the running driver (:func:`app_driver`);
- ``App._handle_exception(error)``, ``App._exception``, ``App._exception_event``, ``App._return_code``,
  ``App._close_messages_no_wait()``: the exception path :class:`CrashSafeApp` replaces;
- ``Driver._app`` and ``Driver._debug`` (:func:`driver_app`, :func:`driver_debug`);
- ``LinuxDriver._file``: the file its writer thread writes frames to (:func:`wrap_output_file`);
- ``WebDriver._write`` (bytes -> None, the packet writer), ``WebDriver._input_reader`` (iterable of bytes with
  ``close()``), ``textual.drivers.web_driver._ExitInput``: what ``WebDriver.run_input_thread`` uses
  (:func:`replace_packet_writer`, :func:`web_input_reader`, :data:`ExitInput`);
- ``textual._xterm_parser.XTermParser(debug=...)`` with ``feed(str)``/``tick()`` yielding events, and
  ``textual.drivers._byte_stream.ByteStream`` with ``feed(bytes)`` yielding ``(packet_type, payload)``: the
  terminal parser and the packet splitter the web driver's input loop uses (:data:`XTermParser`,
  :data:`ByteStream`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any, Protocol, TextIO, TypeVar

from rich.console import RenderableType
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.driver import Driver
from textual.drivers._byte_stream import ByteStream
from textual.drivers.web_driver import WebDriver, _ExitInput
from textual.screen import Screen

from benchlab.tui.crash import EXIT_CODE

__all__ = [
    "TEXTUAL_VERSION", "ByteStream", "CrashSafeApp", "ExitInput", "FrameHookApp", "InputPackets", "XTermParser",
    "app_driver", "driver_app", "driver_debug", "get_time", "replace_packet_writer", "web_input_reader",
    "wrap_output_file",
]

#: The installed Textual, named in the private-API test's failures.
TEXTUAL_VERSION = metadata.version("textual")

#: The clock of Textual's event timestamps (``events.Key.time``): ``textual._time.get_time`` is this public function
#: (the test checks it is the same object), so onsets and key times taken with it are directly comparable.
get_time: Callable[[], float] = time.perf_counter if sys.platform == "win32" else time.monotonic

#: Raised inside ``WebDriver``'s input loop to end it (its ``_on_meta`` raises it on an ``exit`` packet).
ExitInput = _ExitInput

ReturnType = TypeVar("ReturnType")


# -- the app ------------------------------------------------------------------------------------------------------


def app_driver(app: App[Any]) -> Driver | None:
    """The driver ``app`` runs on (``App._driver``; Textual has no public accessor), ``None`` before it starts."""
    return app._driver


class FrameHookApp(App[ReturnType]):
    """An app told about every frame as Textual writes it: :meth:`frame_display` wraps the write.

    Relies on ``App._display(screen, renderable)``, Textual's per-frame step that renders and hands the result to
    the driver; there is no public "frame written" event (``call_after_refresh`` runs a frame or more later).
    """

    def frame_display(self, screen: Screen[Any], write: Callable[[], None]) -> None:
        """Called for every frame of ``screen``; ``write()`` hands it to the driver (override and call it once)."""
        write()

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        def write() -> None:
            super(FrameHookApp, self)._display(screen, renderable)

        self.frame_display(screen, write)


class CrashSafeApp(App[ReturnType]):
    """``App`` that never shows a traceback and raises its first unhandled exception from ``run()``.

    Textual's default (``App._handle_exception`` -> ``_fatal_error``) prints a rich traceback *with local variables*
    once the app has closed, and ``App.run()`` then returns normally: the command exited 0 and a participant's
    answers could be on the screen. Here an exception in a handler, worker or timer closes the app the same way but
    renders nothing, and ``run``/``run_async`` raise it again once the terminal is restored, so the CLI's ``main()``
    writes the crash report (:mod:`benchlab.tui.crash`) and exits 70. ``run_test`` re-raises it too (Textual's own
    rule). Relies on ``App._handle_exception``, ``_exception``, ``_exception_event``, ``_return_code`` and
    ``_close_messages_no_wait``.
    """

    @property
    def crash(self) -> Exception | None:
        """The first unhandled exception of this run (``None`` if it did not crash)."""
        return self._exception

    def _handle_exception(self, error: Exception) -> None:
        # Textual's version, minus the rendering: keep the first error, set the code, close the app.
        self._return_code = EXIT_CODE
        if self._exception is None:
            self._exception = error
            self._exception_event.set()
        self._close_messages_no_wait()

    async def run_async(self, *args: Any, **kwargs: Any) -> ReturnType | None:
        result = await super().run_async(*args, **kwargs)
        if self._exception is not None:
            raise self._exception  # the driver has closed: the terminal is back to normal
        return result


# -- drivers ------------------------------------------------------------------------------------------------------


def driver_app(driver: Driver) -> App[Any]:
    """The app a driver posts its messages to (``Driver._app``)."""
    return driver._app


def driver_debug(driver: Driver) -> bool:
    """Whether the driver runs in debug mode (``Driver._debug``; the input parser takes it)."""
    return driver._debug


def wrap_output_file(driver: Any, wrap: Callable[[TextIO], Any]) -> None:
    """Replace the file a ``LinuxDriver``'s writer thread writes frames to with ``wrap(file)``.

    Relies on ``LinuxDriver._file`` (set in ``__init__``, handed to the ``WriterThread`` in
    ``start_application_mode``, which calls its ``write`` and ``flush``). Called in the driver's ``__init__``, so the
    writer thread only ever sees the wrapped file. A ``None`` file (no stderr) is left as it is.
    """
    if driver._file is not None:
        driver._file = wrap(driver._file)


def replace_packet_writer(driver: WebDriver, write: Callable[[bytes], None]) -> None:
    """Make ``write`` the function a ``WebDriver`` writes every packet with (``WebDriver._write``)."""
    driver._write = write  # type: ignore[assignment]


class InputPackets(Protocol):
    """What a ``WebDriver`` reads its input from: chunks of bytes until closed."""

    def __iter__(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


def web_input_reader(driver: WebDriver) -> InputPackets:
    """What a ``WebDriver`` reads its input packets from (``WebDriver._input_reader``)."""
    reader: InputPackets = driver._input_reader
    return reader
