"""The helper process of :mod:`benchlab.data.analysis.stats.intervals_ahead`: reads draws from stdin, writes each
interval to stdout as soon as it is drawn.

Input: frames of an 8-byte little-endian length and a pickle of ``(index, (strata, n_boot, seed, level))`` (the
arguments of :func:`benchlab.data.analysis.stats.bootstrap.percentile_interval`), until stdin closes. Output: one
line ``index low high`` per interval, floats written with ``repr`` (read back to the same bits). A draw that fails
is left out (the command draws it itself and meets the error there). Frames already waiting are read between draws,
so the command never waits to send. Only the command that started it writes to its stdin.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
from collections import deque

from benchlab.data.analysis.stats.bootstrap import Stratum, percentile_interval

Draw = tuple[int, tuple[list[Stratum], int, int, float]]


def _frames(buffer: bytearray, queue: deque[Draw]) -> None:
    """Move every complete frame of ``buffer`` to ``queue``."""
    while len(buffer) >= 8:
        size = int.from_bytes(buffer[:8], "little")
        if len(buffer) < 8 + size:
            return
        queue.append(pickle.loads(bytes(buffer[8:8 + size])))
        del buffer[:8 + size]


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the command's to handle; it stops the helper
    source, sink = sys.stdin.buffer.fileno(), sys.stdout.buffer
    buffer = bytearray()
    queue: deque[Draw] = deque()
    open_ = True
    while open_ or queue:
        # read what is waiting (or wait for something when there is nothing to draw)
        while open_ and (not queue or select.select([source], [], [], 0)[0]):
            chunk = os.read(source, 1 << 20)
            if not chunk:
                open_ = False
                break
            buffer += chunk
            _frames(buffer, queue)
        if not queue:
            continue
        index, (strata, n_boot, seed, level) = queue.popleft()
        try:
            low, high = percentile_interval(strata, n_boot, seed, level)
        except Exception:  # deliberately broad: the command draws it again and meets the error there
            continue
        sink.write(f"{index} {low!r} {high!r}\n".encode("ascii"))
        sink.flush()


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the command stopped listening: nothing to do
        main()
