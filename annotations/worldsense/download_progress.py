"""The download of ``benchlab fetch worldsense`` with its progress shown: bars on a terminal, one line per file
otherwise (logs, CI), both on stderr so stdout keeps only the summary."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TransferSpeedColumn

from benchlab.annotations.command_output import err
from benchlab.data.worldsense.fetch import FetchEvent, fetch_worldsense

if TYPE_CHECKING:
    from benchlab.data.worldsense.fetch import FetchSummary

_LINE = {"skip": "ok (already there)", "done": "downloaded, sha256 ok"}


def fetch_with_progress(dest: Path, base_url: str | None, only: Sequence[str]) -> FetchSummary:
    """:func:`~benchlab.data.worldsense.fetch.fetch_worldsense` into ``dest``, reporting each file's progress."""
    console_err = sys.stderr.isatty()
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  console=Console(stderr=True), disable=not console_err, transient=False) as progress:
        tasks: dict[str, TaskID] = {}

        def on_event(event: FetchEvent) -> None:
            name = event.file.dest
            if name not in tasks:
                tasks[name] = progress.add_task(name, total=event.file.size)
            progress.update(tasks[name], completed=event.done)
            if not console_err and event.kind in ("skip", "done", "resume", "retry"):
                err(f"{name}: {_LINE.get(event.kind, event.message)}")

        return fetch_worldsense(dest, base_url=base_url, only=only, on_event=on_event)
