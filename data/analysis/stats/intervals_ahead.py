"""Bootstrap intervals drawn ahead by a helper process while a comparison goes on with the people's rows.

Why: after one more person joined a lab of 20, the models' intervals (a stratified bootstrap over each model's
thousands of units, for every cell and every extra-table figure: ~50 of them) were ~0.25 s of a ~1.3 s
comparison, and they wait on nothing the people's rows compute. The models are scored on the units
people saw, so their draws change whenever a person adds units and the interval memo cannot keep them. Worker
threads gained little: the draws are numpy calls between short stretches of Python, and two threads spent the
gain handing the interpreter's lock back and forth. A forked process drew at full speed but cost the command ~25 ms
of copy-on-write page faults. So a plain helper process (``python -m
benchlab.data.analysis.stats.draw_helper``) is started when the command starts, loads numpy while the command loads
pandas and reads its files, and draws on the other core.

How: the ``compare`` command opens :func:`drawing_ahead`; inside it the pipeline asks the design for the models'
intervals once inside :func:`submitting`, where :func:`benchlab.data.analysis.stats.bootstrap_ci` sends each one to
the helper (its strata as drawn: the distinct values and their counts, a few numbers each) and returns nan at once.
That pass's figures are thrown away; the selections it made are memoised by the design, so the real pass reuses
them. The helper draws them in the order sent and writes each interval back as it is done; the real pass finds each
by its content key (the interval memo's, :func:`benchlab.data.analysis.stats.interval_memo.interval_key`), reading
until it arrives. While the helper draws the one wanted, this process draws the last ones itself, so neither waits
at the end. The same function computes each interval from the same seed either way, and a float is written with
``repr`` (which reads back to the same bits), so the printed figures are those drawn in place. A helper that cannot
start, fails a draw, dies or stays silent for :data:`SILENCE_S` only means drawing in place (where an error, if
any, is raised as before).

Only with at least two usable cores; the helper is stopped (and reaped) when the block ends. Library calls and the
screens draw in place.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

Interval = tuple[float, float]

#: Seconds without a line from the helper after which it is taken for stuck: stopped, and the rest drawn in place
#: (a draw takes milliseconds; a helper that hangs must not hang the command).
SILENCE_S = 60.0

#: The helper's arguments to this interpreter (``python -m ...``); :func:`drawing_ahead` starts it.
HELPER_ARGS: tuple[str, ...] = ("-m", "benchlab.data.analysis.stats.draw_helper")


@dataclass
class _Helper:
    """The helper process, the draws sent to it, and the intervals read back so far."""

    process: subprocess.Popen[bytes] | None
    submitting: bool = False
    jobs: list[Callable[[], Interval]] = field(default_factory=list)  # each draw, to draw it here instead
    order: dict[str, int] = field(default_factory=dict)
    got: dict[int, Interval] = field(default_factory=dict)
    pending: bytes = b""
    last: int = -1  # the next interval to draw here from the end of the list (see :meth:`interval`)

    def ask(self, key: str, draw: Callable[[], Interval], payload: Callable[[], Any]) -> None:
        if key in self.order or self.process is None or self.process.stdin is None:
            return
        index = len(self.jobs)
        frame = pickle.dumps((index, payload()), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.process.stdin.write(len(frame).to_bytes(8, "little") + frame)
            self.process.stdin.flush()  # drawn as soon as it is sent
        except OSError:  # the helper is gone: every interval is drawn in place
            self.stop()
            return
        self.order[key] = index
        self.jobs.append(draw)

    def sent_all(self) -> None:
        """No more draws: the helper ends once it has drawn them."""
        if self.process is not None and self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        self.last = len(self.jobs) - 1

    def interval(self, key: str) -> Interval | None:
        """The helper's interval for ``key``, reading its output up to it; ``None`` (draw it here) when it was not
        sent, when the helper could not draw it (failed, died, went silent), or when the helper has not come to it
        yet. While the helper draws the one wanted, the intervals it would draw last are drawn here: the two
        processes share what is left from both ends, and the helper's later copies are thrown away."""
        index = self.order.get(key)
        if index is None:
            return None
        while index not in self.got:
            if not self._readable():
                if index > self._drawing():
                    return None
                if self._draw_last_here():
                    continue
            line = self._line()
            if line is None:  # the helper ended (or is stuck) without it: the rest is drawn in place
                self.stop()
                return None
            done, low, high = line.split()
            self.got[int(done)] = (float(low), float(high))
        return self.got[index]

    def _draw_last_here(self) -> bool:
        """Draw the last interval neither process has drawn (if the helper has not come to it); whether one was."""
        while self.last > self._drawing() and self.last in self.got:
            self.last -= 1
        if self.last <= self._drawing():
            return False
        index, self.last = self.last, self.last - 1
        try:
            self.got[index] = self.jobs[index]()
        except Exception:  # deliberately broad: raised again where it is asked for (drawn in place there)
            self.order = {k: i for k, i in self.order.items() if i != index}
        return True

    def _drawing(self) -> int:
        """The interval the helper is drawing now (it draws them in order): the one after the last it sent."""
        return max(self.got, default=-1) + 1

    def _out(self) -> int | None:
        stdout = self.process.stdout if self.process is not None else None
        return stdout.fileno() if stdout is not None else None

    def _readable(self) -> bool:
        """Whether a line (or the end) is waiting, without waiting for one."""
        fd = self._out()
        if b"\n" in self.pending or fd is None:
            return True
        ready, _, _ = select.select([fd], [], [], 0)
        return bool(ready)

    def _line(self) -> str | None:
        while b"\n" not in self.pending:
            fd = self._out()
            if fd is None:
                return None
            ready, _, _ = select.select([fd], [], [], SILENCE_S)
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                return None
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode("ascii")

    def stop(self) -> None:
        """Stop the helper; nothing more comes from it: what it did not send is drawn in place."""
        process, self.process = self.process, None
        if process is not None:
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            with contextlib.suppress(OSError):  # already gone
                process.kill()
            process.wait()
        self.order.clear()
        self.jobs.clear()
        self.got.clear()
        self.pending = b""


def _start() -> subprocess.Popen[bytes] | None:
    """The helper process, loading numpy while the command loads pandas; ``None`` when it cannot be started."""
    try:
        process = subprocess.Popen([sys.executable, *HELPER_ARGS], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
    except OSError:
        return None
    if process.stdin is not None and sys.platform.startswith("linux"):
        # deferred: Linux only (a pipe with room for every draw of a comparison, ~100 KB: sending never waits)
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.fcntl(process.stdin.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    return process


_helper: ContextVar[_Helper | None] = ContextVar("intervals_ahead", default=None)


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, e.g. a CI container's 2)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def helper_open() -> bool:
    """Whether a :func:`drawing_ahead` block with a helper is open (then intervals get content keys)."""
    return _helper.get() is not None


@contextlib.contextmanager
def drawing_ahead() -> Iterator[None]:
    """Within this block, intervals asked for inside :func:`submitting` are drawn by a helper process, started
    now; it is stopped when the block ends. With one usable core, or no helper, nothing changes."""
    process = _start() if usable_cores() >= 2 and _helper.get() is None else None
    if process is None:
        yield
        return
    helper = _Helper(process)
    token = _helper.set(helper)
    try:
        yield
    finally:
        _helper.reset(token)
        helper.stop()


@contextlib.contextmanager
def submitting() -> Iterator[None]:
    """Within this block (inside :func:`drawing_ahead`), each bootstrap interval is sent to the helper and reads
    as (nan, nan). Outside :func:`drawing_ahead` nothing changes."""
    helper = _helper.get()
    if helper is None:
        yield
        return
    helper.submitting = True
    try:
        yield
    finally:
        helper.submitting = False
        helper.sent_all()


def hand_over(key: str | None, draw: Callable[[], Interval], payload: Callable[[], Any]) -> bool:
    """While submitting: send ``payload()`` to the helper (once per key; ``draw`` draws it here if need be) and
    say so (the caller returns nan then)."""
    helper = _helper.get()
    if helper is None or key is None or not helper.submitting:
        return False
    helper.ask(key, draw, payload)
    return True


def drawn(key: str | None) -> Interval | None:
    """The interval the helper drew for ``key`` (waiting for it); ``None`` when it drew none (draw it in place)."""
    helper = _helper.get()
    return helper.interval(key) if helper is not None and key is not None else None
