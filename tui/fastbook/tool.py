"""fastbook's front ends as a ``benchlab.tools`` entry: the "Curate fastbook" launcher line, ``benchlab curate
fastbook`` and ``benchlab bench curate-fastbook`` (declared in benchlab's ``pyproject.toml``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchlab.tui.fastbook.curate_command import BENCH_COMMAND, CURATE_COMMAND
from benchlab.tui.launcher_entries import LauncherEntry
from benchlab.tui.tools import Tool

if TYPE_CHECKING:  # the CLI loads this tool for its commands without loading Textual
    from textual.screen import Screen


def curate_open_screen() -> Screen[Any]:
    """The file picker of the editor (imported when the line is chosen: the launcher opens without it)."""
    # deferred: Textual loads only when the curation screen opens (the tool is declared with the CLI)
    from benchlab.tui.fastbook.curate_open import CurateOpenScreen

    return CurateOpenScreen()


TOOL = Tool(
    name="fastbook",
    launcher=LauncherEntry(
        id="curate-fastbook",
        title="Curate fastbook",
        description="Context annotations of the fastbook-benchmark: pick a file or make a working copy; audit "
                    "marks, chapter text, undo/redo, safe saves.",
        screen=curate_open_screen,
    ),
    commands=(("curate", lambda: CURATE_COMMAND), ("bench", lambda: BENCH_COMMAND)),
)
