"""A spinner on stderr while a command computes for seconds (reading results, bootstrapping), so a terminal user
sees that something is happening; nothing at all when stderr is not a terminal (logs, pipes, CI), and never on
stdout, which stays a clean table. Rich is imported only when the spinner is shown."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def working(message: str) -> Iterator[None]:
    """Show ``message`` with a spinner on stderr while the block runs (only when stderr is a terminal); it is
    erased when the block ends. Warnings written to stderr meanwhile print above it."""
    if not sys.stderr.isatty():
        yield
        return
    # deferred: rich loads only when `working` runs (this module loads with the CLI)
    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner

    console = Console(file=sys.stderr, force_terminal=True)
    with Live(Spinner("dots", text=message), console=console, transient=True, refresh_per_second=12.5,
              redirect_stdout=False, redirect_stderr=True):
        yield


def count_files(paths: Iterable[Path], pattern: str) -> int:
    """How many files ``paths`` name: a file counts once, a folder by its files matching ``pattern`` (searched
    recursively, as the loaders do)."""
    n = 0
    for path in paths:
        if path.is_dir():
            n += sum(1 for p in path.rglob(pattern) if p.is_file())
        elif path.exists():
            n += 1
    return n


def files(n: int) -> str:
    """``1 file``, ``2 files``."""
    return f"{n} file" if n == 1 else f"{n} files"
