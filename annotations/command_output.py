"""What a declared command prints while it runs (progress lines, notes, warnings), without a UI library.

A command's ``run`` returns its main text; commands that take long (benchmarks, generation, downloads) print each
line as soon as it is known instead, so the user sees progress. Notes and warnings go to stderr so that stdout
stays a clean table or figure list. Each line is flushed: the order on a terminal is the order of events.
"""

from __future__ import annotations

import sys


def say(text: str) -> None:
    """One line (or block) on stdout, now."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def note(message: str) -> None:
    """``benchlab: <message>`` on stderr (what was written, which default was used)."""
    sys.stderr.write(f"benchlab: {message}\n")
    sys.stderr.flush()


def warn(message: str) -> None:
    """``benchlab: warning: <message>`` on stderr, one line per problem."""
    sys.stderr.write(f"benchlab: warning: {message}\n")
    sys.stderr.flush()


def err(text: str) -> None:
    """A plain line on stderr (progress the user reads but a script does not parse)."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
