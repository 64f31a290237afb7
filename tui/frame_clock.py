"""When did a frame actually leave for the terminal? A Linux/macOS driver whose output file time-stamps flushes.

Textual hands each frame to a writer thread, which writes it to the terminal when it gets the interpreter lock;
on a busy 2-core machine that is milliseconds after the app "displayed" it, and ``call_after_refresh`` runs a frame
(~16 ms) or more later still. For stimulus onset we want the moment the frame's bytes go to the terminal: the
writer thread's write. :class:`FrameClock` counts what was queued and what was written, and calls back (from the
writer thread) with the monotonic time taken just before a given frame's last item (the frame itself, or the
end-of-synchronized-update marker on terminals that support it) is written.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol, TextIO, runtime_checkable

from benchlab.tui.textual_private import get_time, wrap_output_file

FlushCallback = Callable[[float], None]


class _Numbered(str):
    """An output item tagged with its queue number (writes that bypass the queue carry none)."""

    seq: int


class FrameClock:
    """Numbers output items as they are queued (main thread); stamps the write of chosen items (writer thread)."""

    def __init__(self) -> None:
        self.queued = 0
        self._written = 0
        self._lock = threading.Lock()
        self._waiting: dict[int, list[FlushCallback]] = {}
        self._stamps: dict[int, float] = {}  # recent items' write times, for callers that ask after the write

    def number(self, text: str) -> str:
        self.queued += 1
        item = _Numbered(text)
        item.seq = self.queued
        return item

    def call_when_written(self, item: int, callback: FlushCallback) -> None:
        """Call ``callback(time)`` with the time just before output item number ``item`` is written."""
        with self._lock:
            done = self._stamps.get(item) if item <= self._written else None
            if done is None and item > self._written:
                self._waiting.setdefault(item, []).append(callback)
                return
        if done is not None:  # the writer thread was quicker than the caller
            callback(done)

    def writing(self, text: str, when: float) -> None:
        """Item ``text`` (as numbered) is being written at ``when``: call back whoever waits for it."""
        if not isinstance(text, _Numbered):  # a write that bypassed the queue
            return
        seq = text.seq
        with self._lock:
            self._written = seq
            self._stamps[seq] = when
            self._stamps.pop(seq - 256, None)
            due = self._waiting.pop(seq, [])
        for callback in due:
            callback(when)

    _writing = writing  # the name the terminal writer used first


@runtime_checkable
class TimedDriver(Protocol):
    """A driver that time-stamps its frame writes (the app asks the frame clock for stimulus onsets)."""

    frame_clock: FrameClock


class _TimedFile:
    """The output file as the writer thread sees it: every item goes out in one unbuffered write, time-stamped.

    Unbuffered, so the bytes of a frame reach the terminal at the stamped moment rather than at a later flush.
    """

    def __init__(self, file: TextIO, clock: FrameClock) -> None:
        self._file = file
        self._fd = file.fileno()
        self._encoding = getattr(file, "encoding", None) or "utf-8"
        self._clock = clock

    def write(self, text: str) -> int:
        data = memoryview(text.encode(self._encoding, "replace"))
        self._clock.writing(text, get_time())
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        return len(text)

    def flush(self) -> None:
        return

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


def timed_driver_class() -> type[Any] | None:
    """A ``LinuxDriver`` subclass with a :class:`FrameClock` (``None`` on Windows: default driver, fallback onset)."""
    if sys.platform == "win32":
        return None
    # deferred: the Linux driver imports termios, which Windows lacks (the platform check above must come first)
    from textual.drivers.linux_driver import LinuxDriver

    class TimedLinuxDriver(LinuxDriver):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.frame_clock = FrameClock()
            clock = self.frame_clock
            wrap_output_file(self, lambda file: _TimedFile(file, clock))

        def write(self, data: str) -> None:
            super().write(self.frame_clock.number(data))

    return TimedLinuxDriver
