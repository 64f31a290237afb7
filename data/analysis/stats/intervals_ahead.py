"""Bootstrap intervals drawn ahead by a forked helper process while a comparison goes on with the people's rows.

Why: after one more person joined a lab of 20, the models' intervals (a stratified bootstrap over each model's
thousands of tuples, for every cell and every bias figure: ~50 of them) were ~0.25 s of a ~1.3 s
``compare worldsense``, and they wait on nothing the people's rows compute. The models are scored on the units
people saw, so their draws change whenever a person adds units and the interval memo cannot keep them. Worker
threads gained little: the draws are numpy calls between short stretches of Python, and the two threads spent the
gain handing the interpreter's lock back and forth. A process forked at that moment has its own interpreter and
a copy of everything already computed, so it draws on the second core at full speed.

How: a ``compare`` command opens :func:`drawing_ahead`; inside it the pipeline asks the design for the models'
intervals once inside :func:`submitting`, where :func:`benchlab.data.analysis.stats.bootstrap_ci` hands each draw
over and returns nan at once (that pass's figures are thrown away; the selections it made are memoised by the
design, so the real pass reuses them). :func:`start` then forks one helper that draws them in the order asked and
writes each interval to a pipe as it is done; the real pass finds each by its content key (the interval memo's,
:func:`benchlab.data.analysis.stats.interval_memo.interval_key`), reading the pipe until it arrives. Each interval
is computed by the same function from the same seed either way, and a float is written with ``repr`` (which reads
back to the same bits), so the printed figures are the same as drawn in place. A draw that fails, a helper that
dies or a fork that is refused only means drawing in place (where the error, if any, is raised as before).

Only on Linux (where forking a process that holds numpy is safe and cheap), with at least two usable cores; the
helper never writes anywhere but its pipe and leaves with ``os._exit`` (no exit handlers, no flush of the
parent's buffers), and is killed and reaped when the block ends. Library calls and the screens draw in place.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

Interval = tuple[float, float]


#: Seconds without a line from the helper after which it is taken for stuck: killed, and the rest drawn in place
#: (a draw takes milliseconds; a helper that hangs must not hang the command).
SILENCE_S = 60.0


@dataclass
class _Helper:
    """The draws asked for, the helper drawing them, and the intervals read back so far."""

    submitting: bool = False
    jobs: list[tuple[str, Callable[[], Interval]]] = field(default_factory=list)
    order: dict[str, int] = field(default_factory=dict)
    got: dict[int, Interval] = field(default_factory=dict)
    pid: int | None = None
    fd: int | None = None
    pending: bytes = b""

    def ask(self, key: str, draw: Callable[[], Interval]) -> None:
        if key not in self.order and self.pid is None:
            self.order[key] = len(self.jobs)
            self.jobs.append((key, draw))

    def start(self) -> None:
        if self.pid is not None or not self.jobs:
            return
        read_end, write_end = os.pipe()
        try:
            with warnings.catch_warnings():  # 3.12+ warns when other threads exist (a spinner): none is used
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:  # no process to spare: every interval is drawn in place
            os.close(read_end)
            os.close(write_end)
            self.jobs.clear()
            return
        if pid == 0:
            os.close(read_end)
            _draw_all(self.jobs, write_end)  # never returns
        os.close(write_end)
        self.pid, self.fd = pid, read_end

    def interval(self, key: str) -> Interval | None:
        """The helper's interval for ``key``, reading its pipe up to it; ``None`` when it was not asked for, or the
        helper could not draw it (failed, died, went silent)."""
        index = self.order.get(key)
        if index is None:
            return None
        while index not in self.got:
            line = self._line()
            if line is None:  # the helper ended (or is stuck) without it: the rest is drawn in place
                self.stop()
                return None
            done, low, high = line.split()
            self.got[int(done)] = (float(low), float(high))
        return self.got[index]

    def _line(self) -> str | None:
        while self.fd is not None and b"\n" not in self.pending:
            ready, _, _ = select.select([self.fd], [], [], SILENCE_S)
            chunk = os.read(self.fd, 1 << 16) if ready else b""
            if not chunk:
                return None
            self.pending += chunk
        if self.fd is None:
            return None
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode("ascii")

    def stop(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.pid is not None:
            with contextlib.suppress(OSError):  # already gone
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None
        # nothing more comes from this helper: what it did not send is drawn in place (a later pass may ask anew)
        self.order.clear()
        self.jobs.clear()
        self.got.clear()
        self.pending = b""


def _draw_all(jobs: list[tuple[str, Callable[[], Interval]]], write_end: int) -> None:
    """The helper: each interval in the order asked, one line ``index low high`` each; a draw that fails is left
    out (the parent draws it in place and meets the error there). Leaves without exit handlers or flushes."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it kills the helper
        with os.fdopen(write_end, "w", encoding="ascii") as out:
            for index, (_key, draw) in enumerate(jobs):
                try:
                    low, high = draw()
                except Exception:  # deliberately broad: drawn again in place, where the error is raised
                    continue
                out.write(f"{index} {low!r} {high!r}\n")
                out.flush()
    finally:
        os._exit(0)


_helper: ContextVar[_Helper | None] = ContextVar("intervals_ahead", default=None)


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, e.g. a CI container's 2)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def helper_open() -> bool:
    """Whether a :func:`drawing_ahead` block is open (then intervals get content keys even without a memo)."""
    return _helper.get() is not None


@contextlib.contextmanager
def drawing_ahead() -> Iterator[None]:
    """Within this block, intervals asked for inside :func:`submitting` are drawn by a helper process after
    :func:`start`; the helper is gone when the block ends. Outside Linux, or with one usable core, nothing
    changes."""
    if not sys.platform.startswith("linux") or usable_cores() < 2 or _helper.get() is not None:
        yield
        return
    helper = _Helper()
    token = _helper.set(helper)
    try:
        yield
    finally:
        _helper.reset(token)
        helper.stop()


@contextlib.contextmanager
def submitting() -> Iterator[None]:
    """Within this block (inside :func:`drawing_ahead`), each bootstrap interval is asked for and reads as
    (nan, nan); then the helper starts drawing them. Outside :func:`drawing_ahead` nothing changes."""
    helper = _helper.get()
    if helper is None:
        yield
        return
    helper.submitting = True
    try:
        yield
    finally:
        helper.submitting = False
    helper.start()


def hand_over(key: str | None, draw: Callable[[], Interval]) -> bool:
    """While submitting: ask for ``draw`` (once per key) and say so (the caller returns nan then)."""
    helper = _helper.get()
    if helper is None or key is None or not helper.submitting:
        return False
    helper.ask(key, draw)
    return True


def drawn(key: str | None) -> Interval | None:
    """The interval the helper drew for ``key`` (waiting for it); ``None`` when it drew none (draw it in place)."""
    helper = _helper.get()
    return helper.interval(key) if helper is not None and key is not None else None
