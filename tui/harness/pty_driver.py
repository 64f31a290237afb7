"""Run a command inside a pseudo-terminal and talk to it like a person at a keyboard (for timing checks and tests).

The child gets a real terminal (so Textual uses its normal Linux driver and input thread); everything it writes is
read by a background thread and time-stamped on the same monotonic clock the child uses, and key bytes are written
at known times. This measures the software path (pty -> Textual input thread -> event -> handler -> file), not the
keyboard or the terminal emulator.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Mapping, Sequence


class PtyApp:
    """A child process on a pty, with its output collected and searchable."""

    def __init__(self, argv: Sequence[str], *, size: tuple[int, int] = (100, 30), env: Mapping[str, str] | None = None,
                 cwd: str | None = None) -> None:
        master, slave = pty.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        child_env = dict(os.environ if env is None else env)
        child_env.setdefault("TERM", "xterm-256color")
        child_env.pop("TEXTUAL", None)
        self.proc = subprocess.Popen(list(argv), stdin=slave, stdout=slave, stderr=slave, env=child_env, cwd=cwd,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self._buf = bytearray()
        self._chunks: list[tuple[float, int]] = []  # (time read, end offset of the chunk)
        self._cond = threading.Condition()
        self._eof = False
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b""
            now = time.monotonic()
            with self._cond:
                if not data:
                    self._eof = True
                    self._cond.notify_all()
                    return
                self._buf += data
                self._chunks.append((now, len(self._buf)))
                self._cond.notify_all()

    @property
    def output(self) -> bytes:
        with self._cond:
            return bytes(self._buf)

    def wait_for(self, marker: bytes, start: int = 0, timeout: float = 30.0) -> tuple[float, int]:
        """Wait until ``marker`` appears after offset ``start``; return (time its last byte was read, end offset)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                idx = self._buf.find(marker, start)
                if idx != -1:
                    end = idx + len(marker)
                    for when, chunk_end in self._chunks:
                        if chunk_end >= end:
                            return when, end
                left = deadline - time.monotonic()
                if self._eof or left <= 0:
                    tail = bytes(self._buf[-400:]).decode("utf-8", "replace")
                    why = "the program ended" if self._eof else f"nothing after {timeout:.0f} s"
                    raise TimeoutError(f"waiting for {marker!r}: {why}; last output: {tail!r}")
                self._cond.wait(min(left, 0.5))

    def send(self, data: bytes) -> float:
        """Write key bytes; returns the monotonic time just before the write."""
        when = time.monotonic()
        os.write(self.master, data)
        return when

    def send_at(self, data: bytes, when: float) -> float:
        """Write at monotonic time ``when`` (sleep, then spin for the last 2 ms); returns the actual write time."""
        while True:
            left = when - time.monotonic()
            if left <= 0:
                break
            if left > 0.002:
                time.sleep(left - 0.002)
        return self.send(data)

    def wait(self, timeout: float = 30.0) -> int:
        code = self.proc.wait(timeout)
        self._reader.join(2)
        return code

    def kill(self, sig: int = signal.SIGKILL) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)
        self.proc.wait(10)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.kill()
        with contextlib.suppress(OSError):
            os.close(self.master)
