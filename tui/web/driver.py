"""``WebSessionDriver``: Textual's web driver (the packet stream a web server relays to the page), plus what a timed
participant session needs.

Selected with ``TEXTUAL_DRIVER=benchlab.tui.web.driver:WebSessionDriver`` (what ``benchlab serve`` sets) or by
``benchlab run ... --web-session``. On top of :class:`~textual.drivers.web_driver.WebDriver` it

- stamps every write with the app's :class:`~benchlab.tui.frame_clock.FrameClock`, so stimulus onsets are the moment
  the frame's bytes leave for the server, as in the terminal (the web driver writes on the main thread, so the
  stamp is taken there, just before the write);
- reads the page's meta packets (``benchlab_client``, ``benchlab_clock``, ``benchlab_onset``, ``benchlab_key``;
  see ``notes/WEB_PROTOCOL.md``) into a :class:`~benchlab.tui.web.client.ClientState` and ties each key stamp to
  the key event parsed from the data packet that follows it;
- writes every packet whole, and takes a closed stdout for a disconnect;
- turns stdin EOF and SIGTERM/SIGINT into one :class:`~benchlab.tui.web.client.WebDisconnected` message (the app
  logs ``disconnected`` and exits) instead of Textual's silent end of input or bare exit;
- survives malformed meta packets (a bad packet is dropped, the input thread keeps reading).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import sys
from codecs import getincrementaldecoder
from traceback import format_exc
from typing import Any

from textual import events, log
from textual.drivers.web_driver import WebDriver

from benchlab.tui.frame_clock import FrameClock
from benchlab.tui.textual_private import (
    ByteStream,
    ExitInput,
    XTermParser,
    driver_app,
    driver_debug,
    get_time,
    replace_packet_writer,
    web_input_reader,
)
from benchlab.tui.web.client import ClientState, KeyStamp, WebClientConnected, WebDisconnected

#: The onset marker written right after a stimulus frame; xterm.js ignores OSC 7717 unless the page handles it.
ONSET_MARKER = "\x1b]7717;onset;{mark}\x07"
#: Written with the end page: the page stops warning before the tab is closed (everything is on disk).
END_MARKER = "\x1b]7717;end\x07"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _environ_size() -> tuple[int, int] | None:
    try:
        width = int(os.environ.get("COLUMNS", "80"))
        height = int(os.environ.get("LINES") or os.environ.get("ROWS") or "24")
    except ValueError:
        return None
    return (width, height) if 0 < width <= 1000 and 0 < height <= 1000 else None


class WebSessionDriver(WebDriver):
    """The web driver of a participant session (see the module docstring)."""

    def __init__(self, app: Any, *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        if size is None:  # the server passes the page's first size as COLUMNS/LINES (Textual reads only ROWS)
            size = _environ_size()
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.frame_clock = FrameClock()
        self.client = ClientState()
        self._pending_key: KeyStamp | None = None
        self._disconnected = False
        self._stdout_gone = False
        replace_packet_writer(self, self._write_all)

    # -- output ---------------------------------------------------------------------------------------------

    def _write_all(self, data: bytes) -> None:
        """Every byte of a packet (a short write would tear the stream); a closed stdout (the server is gone) is a
        disconnect, not a crash."""
        if self._stdout_gone:
            return
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fileno, view):]
        except OSError:
            self._stdout_gone = True
            self._disconnect("stdout closed")

    def write(self, data: str) -> None:
        item = self.frame_clock.number(data)
        self.frame_clock.writing(item, get_time())
        super().write(data)

    def write_end_marker(self) -> None:
        """The session is over: closing the tab now loses nothing, so the page may stop asking."""
        super().write(END_MARKER)

    def write_onset_marker(self, mark: str) -> None:
        """Tell the page (in the same stream, right after the stimulus frame) which stimulus it is painting."""
        super().write(ONSET_MARKER.format(mark=mark))

    # -- lifecycle ------------------------------------------------------------------------------------------

    def start_application_mode(self) -> None:
        super().start_application_mode()
        if sys.platform != "win32":
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):  # replaces the web driver's bare exit
                loop.add_signal_handler(signum, self._disconnect, signal.Signals(signum).name)

    def _disconnect(self, reason: str) -> None:
        if self._disconnected:
            return
        self._disconnected = True
        driver_app(self).post_message(WebDisconnected(reason))

    # -- input ----------------------------------------------------------------------------------------------

    def run_input_thread(self) -> None:
        """Textual's web input loop, plus: key stamps tied to their key events, bad meta dropped, EOF reported."""
        parser = XTermParser(debug=driver_debug(self))
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        packets = ByteStream()
        reader = web_input_reader(self)
        try:
            for data in reader:
                if data:
                    for packet_type, payload in packets.feed(data):
                        if packet_type == "D":
                            self._keys(parser.feed(decode(payload)))
                        else:
                            self._meta_packet(packet_type, payload)
                for event in parser.tick():
                    self.process_message(event)
        except ExitInput:
            return
        except Exception:
            log(format_exc())
        finally:
            reader.close()
        if not self.exit_event.is_set():
            self._disconnect("stdin closed")

    def _keys(self, parsed: Any) -> None:
        stamp, self._pending_key = self._pending_key, None
        for event in parsed:
            if stamp is not None and isinstance(event, events.Key):
                self.client.stamp_key(event.time, stamp)
                stamp = None
            self.process_message(event)

    def _meta_packet(self, packet_type: str, payload: bytes) -> None:
        try:
            meta = json.loads(payload)
        except ValueError:
            log.error("benchlab web driver: a meta packet that is not JSON was dropped")
            return
        if not isinstance(meta, dict) or not isinstance(meta.get("type"), str):
            log.error("benchlab web driver: a meta packet without a type was dropped")
            return
        try:
            self.on_meta(meta["type"], meta)
        except ExitInput:
            raise
        except (KeyError, TypeError, ValueError):
            log.error(f"benchlab web driver: malformed {meta['type']!r} packet dropped")

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        client = self.client
        if packet_type == "benchlab_key":
            page_ms = _number(payload.get("page_ms"))
            self._pending_key = KeyStamp(str(payload.get("key", "")), page_ms) if page_ms is not None else None
        elif packet_type == "benchlab_onset":
            page_ms = _number(payload.get("page_ms"))
            if page_ms is not None:
                client.painted(str(payload.get("mark", "")), page_ms)
        elif packet_type == "benchlab_clock":
            client.clock_offset_ms = _number(payload.get("offset_ms"))
            client.clock_rtt_ms = _number(payload.get("rtt_ms"))
        elif packet_type == "benchlab_client":
            client.user_agent = str(payload.get("user_agent", ""))[:500]
            client.reconnect = payload.get("reconnect") is True
            driver_app(self).post_message(WebClientConnected(client.user_agent, client.reconnect))
        elif packet_type == "resize":
            width, height = payload["width"], payload["height"]
            if not (isinstance(width, int) and isinstance(height, int) and 0 < width <= 1000 and 0 < height <= 1000):
                raise ValueError("bad size")
            super().on_meta(packet_type, payload)
        elif packet_type == "quit":
            self._disconnect("quit")
        else:
            super().on_meta(packet_type, payload)
