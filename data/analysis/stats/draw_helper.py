"""The helper process of :mod:`benchlab.data.analysis.stats.intervals_ahead`: reads draws from stdin, writes each
interval to stdout as soon as it is drawn.

Input: frames of an 8-byte little-endian length and a pickle of ``(index, (strata, n_boot, seed, level))`` (the
arguments of :func:`benchlab.data.analysis.stats.bootstrap.percentile_interval`), until stdin closes. Output: one
line ``index low high`` per interval, floats written with ``repr`` (read back to the same bits). A draw that fails
is left out (the command draws it itself and meets the error there). A frame with a negative index, ``-1 - number``,
is a call (``("call", module, function, arguments)``, sent before any draw by
:func:`benchlab.data.analysis.stats.intervals_ahead.call_ahead`), answered by a line ``call number ...`` (and, for a
result sent through the pipe, its bytes). Frames already waiting are read between draws, so the command never waits
to send. Only the command that started it writes to its stdin.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import select
import signal
import sys
from collections import deque
from typing import Any

from benchlab.data.analysis.stats.bootstrap import percentile_interval
from benchlab.data.file_digest import remembered

#: A frame: an interval's index and its draw ``(strata, n_boot, seed, level)``, or a negative number
#: (``-1 - call``) and a call.
Draw = tuple[int, Any]


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
        index, job = queue.popleft()
        if index < 0:
            sink.write(_call(-1 - index, job))
            sink.flush()
            continue
        strata, n_boot, seed, level = job
        try:
            low, high = percentile_interval(strata, n_boot, seed, level)
        except Exception:  # deliberately broad: the command draws it again and meets the error there
            continue
        sink.write(f"{index} {low!r} {high!r}\n".encode("ascii"))
        sink.flush()


#: The anonymous memory files holding calls' results: open until this process ends (the command maps them).
_KEPT: list[int] = []


def _call(number: int, job: tuple[str, str, str, tuple[Any, ...]]) -> bytes:
    """Run a call; its answer (see
    :func:`benchlab.data.analysis.stats.intervals_ahead.returned_value`): the pickle of (its result, the digests of
    the files it hashed) with the arrays' bytes out of band in an anonymous memory file where there are such, inline
    otherwise; or ``failed``."""
    _kind, module, function, arguments = job
    try:
        if not module.startswith("benchlab."):
            raise ValueError(f"not one of benchlab's modules: {module}")
        with contextlib.redirect_stdout(sys.stderr):  # stdout is the answers' channel: a stray print would break it
            result = getattr(importlib.import_module(module), function)(*arguments)
        if not hasattr(os, "memfd_create"):
            body = pickle.dumps((result, remembered()), protocol=pickle.HIGHEST_PROTOCOL)
            return f"call {number} bytes {len(body)}\n".encode("ascii") + body
        buffers: list[pickle.PickleBuffer] = []
        meta = pickle.dumps((result, remembered()), protocol=5, buffer_callback=buffers.append)
        raws = [b.raw() for b in buffers]
        fd = os.memfd_create("benchlab-call")
        with os.fdopen(os.dup(fd), "wb") as out:
            out.write(meta)
            for raw in raws:
                out.write(raw)
        _KEPT.append(fd)
    except Exception:  # deliberately broad: the command makes the call itself and meets the error there
        return f"call {number} failed\n".encode("ascii")
    sizes = " ".join(str(r.nbytes) for r in raws)
    return f"call {number} memfd {fd} {len(meta)} {sizes}".rstrip().encode("ascii") + b"\n"


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the command stopped listening: nothing to do
        main()
