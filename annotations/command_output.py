"""What a declared command prints while it runs (progress lines, notes, warnings), without a UI library.

A command's ``run`` returns its main text; commands that take long (benchmarks, generation, downloads) print each
line as soon as it is known instead, so the user sees progress. Notes and warnings go to stderr so that stdout
stays a clean table or figure list. Each line is flushed: the order on a terminal is the order of events.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Recording:
    """What :func:`say`, :func:`note`, :func:`warn` and :func:`err` wrote while :func:`recorded` ran: the exact
    stdout and stderr texts a replay must print (a terminal spinner is not part of them)."""

    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)


_recording: Recording | None = None


@contextmanager
def recorded() -> Iterator[Recording]:
    """Keep a copy of every line written through this module while the block runs (they are still printed), so
    that a command can offer its output to :mod:`benchlab.data.command_replay`."""
    global _recording
    outer, _recording = _recording, Recording()
    try:
        yield _recording
    finally:
        _recording = outer


def _write(stream: str, text: str) -> None:
    out = sys.stdout if stream == "stdout" else sys.stderr
    out.write(text)
    out.flush()
    if _recording is not None:
        getattr(_recording, stream).append(text)


def say(text: str) -> None:
    """One line (or block) on stdout, now."""
    _write("stdout", text + "\n")


def note(message: str) -> None:
    """``benchlab: <message>`` on stderr (what was written, which default was used)."""
    _write("stderr", f"benchlab: {message}\n")


def warn(message: str) -> None:
    """``benchlab: warning: <message>`` on stderr, one line per problem."""
    _write("stderr", f"benchlab: warning: {message}\n")


def err(text: str) -> None:
    """A plain line on stderr (progress the user reads but a script does not parse)."""
    _write("stderr", text + "\n")
