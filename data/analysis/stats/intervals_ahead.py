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

The helper also runs a call ahead (:func:`call_ahead`, before any draw): a command hands it work that needs
nothing pandas does, such as reading and scoring its files, as soon as it starts, and takes the result where it
needs it (:func:`called`), reading it in place when the helper could not make it. The result's arrays come back
through an anonymous memory file the command maps, not through the pipe (see :func:`returned_value`).

Only with at least two usable cores; the helper is stopped (and reaped) when the block ends. Library calls and the
screens draw in place.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import select
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from benchlab.data.file_digest import learn

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
    calls: dict[str, int] = field(default_factory=dict)  # each call's key -> its number
    returned: dict[int, tuple[bool, Any]] = field(default_factory=dict)  # what each call returned, by number
    jobs: list[Callable[[], Interval]] = field(default_factory=list)  # each draw, to draw it here instead
    order: dict[str, int] = field(default_factory=dict)
    got: dict[int, Interval] = field(default_factory=dict)
    pending: bytearray = field(default_factory=bytearray)
    last: int = -1  # the next interval to draw here from the end of the list (see :meth:`interval`)

    def ask(self, key: str, draw: Callable[[], Interval], payload: Callable[[], Any]) -> None:
        if key in self.order or self.process is None or self.process.stdin is None:
            return
        index = len(self.jobs)
        if not self._send(index, payload()):
            return
        self.order[key] = index
        self.jobs.append(draw)

    def call(self, module: str, function: str, arguments: tuple[Any, ...]) -> None:
        """Send a call (its frame's index is negative: ``-1 - number``)."""
        key = repr((module, function, arguments))
        if key in self.calls or self.process is None or self.process.stdin is None:
            return
        number = len(self.calls)
        if self._send(-1 - number, ("call", module, function, arguments)):
            self.calls[key] = number

    def result(self, module: str, function: str, arguments: tuple[Any, ...]) -> tuple[bool, Any]:
        """What the helper's call returned, reading its output up to it; ``(False, None)`` when it was not sent or
        the helper could not make it (it failed, died or went silent)."""
        number = self.calls.get(repr((module, function, arguments)))
        if number is None:
            return False, None
        while number not in self.returned:
            if not self._next():
                self.stop()
                return False, None
        return self.returned[number]

    def _send(self, index: int, payload: Any) -> bool:
        """Write one frame to the helper; ``False`` (and the helper stopped) when it is gone."""
        assert self.process is not None and self.process.stdin is not None
        frame = pickle.dumps((index, payload), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.process.stdin.write(len(frame).to_bytes(8, "little") + frame)
            self.process.stdin.flush()  # done as soon as it is sent
        except OSError:  # the helper is gone: everything is done in place
            self.stop()
            return False
        return True

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
            if not self._next():  # the helper ended (or is stuck) without it: the rest is drawn in place
                self.stop()
                return None
        return self.got[index]

    def _next(self) -> bool:
        """Read the helper's next answer, an interval (``index low high``) or what a call returned (see
        :func:`returned_value`); ``False`` when none comes."""
        line = self._line()
        if line is None:
            return False
        if not line.startswith("call "):
            done, low, high = line.split()
            self.got[int(done)] = (float(low), float(high))
            return True
        words = line.split()
        body = self._bytes(int(words[3])) if words[2] == "bytes" else b""
        if body is None:
            return False
        assert self.process is not None
        self.returned[int(words[1])] = returned_value(words, body, self.process.pid)
        return True

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
            if not self._read_more():
                return None
        end = self.pending.index(b"\n")
        line = self.pending[:end].decode("ascii")
        del self.pending[:end + 1]
        return line

    def _bytes(self, size: int) -> bytes | None:
        while len(self.pending) < size:
            if not self._read_more():
                return None
        body = bytes(self.pending[:size])
        del self.pending[:size]
        return body

    def _read_more(self) -> bool:
        """Read what the helper wrote (waiting up to :data:`SILENCE_S`); ``False`` at its end or silence."""
        fd = self._out()
        if fd is None:
            return False
        ready, _, _ = select.select([fd], [], [], SILENCE_S)
        chunk = os.read(fd, 1 << 16) if ready else b""
        if not chunk:
            return False
        self.pending += chunk
        return True

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
        self.calls.clear()
        self.pending.clear()


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


def returned_value(words: list[str], body: bytes, pid: int) -> tuple[bool, Any]:
    """What a call returned, from the helper's answer line (split) and what followed it:

    * ``call N failed``: nothing (the caller makes the call itself);
    * ``call N bytes SIZE`` and SIZE bytes: the pickle of (result, file digests);
    * ``call N memfd FD META SIZE...``: the same pickle (META bytes) and its out-of-band buffers (the arrays' bytes,
      each SIZE), one after the other in the helper's anonymous memory file FD, mapped here copy-on-write through
      ``/proc/PID/fd/FD``, so the arrays are read without a copy through the pipe (~25 ms for a lab's 13 MB).

    The digests are taken into this process's memo (:func:`benchlab.data.file_digest.learn`)."""
    try:
        if words[2] == "failed":
            return False, None
        if words[2] == "bytes":
            value, digests = pickle.loads(body)
        else:
            value, digests = _mapped(pid, int(words[3]), int(words[4]), [int(w) for w in words[5:]])
    except Exception:  # deliberately broad: an unreadable answer means making the call in place
        return False, None
    learn(digests)
    return True, value


def _mapped(pid: int, fd: int, meta: int, sizes: list[int]) -> Any:
    """The pickle and buffers of a ``memfd`` answer (see :func:`returned_value`)."""
    with open(f"/proc/{pid}/fd/{fd}", "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), meta + sum(sizes), access=mmap.ACCESS_COPY)
    view = memoryview(mapped)
    buffers, at = [], meta
    for size in sizes:
        buffers.append(view[at:at + size])
        at += size
    return pickle.loads(view[:meta], buffers=buffers)


def call_ahead(module: str, function: str, *arguments: Any) -> None:
    """Within :func:`drawing_ahead`: have the helper run ``module.function(*arguments)`` now, before any draw (a
    module of benchlab's that loads no pandas, so it starts at once; arguments and result are pickled). Its result
    is for :func:`called`; outside the block nothing happens."""
    helper = _helper.get()
    if helper is not None:
        helper.call(module, function, arguments)


def called(module: str, function: str, *arguments: Any) -> tuple[bool, Any]:
    """``(True, result)`` of a :func:`call_ahead` with the same module, function and arguments (waiting for it);
    ``(False, None)`` when there was none or the helper could not make it: the caller makes the call itself then
    (and meets any error there)."""
    helper = _helper.get()
    return helper.result(module, function, arguments) if helper is not None else (False, None)


def drawn(key: str | None) -> Interval | None:
    """The interval the helper drew for ``key`` (waiting for it); ``None`` when it drew none (draw it in place)."""
    helper = _helper.get()
    return helper.interval(key) if helper is not None and key is not None else None
