"""The "Curate fastbook" launcher entry: the context editor on the default benchmark file (read-only there;
``benchlab curate fastbook --benchmark COPY`` edits a copy)."""

from __future__ import annotations

from textual.app import App

from benchlab.data.errors import BenchlabError
from benchlab.tui.launcher_registry import LauncherEntry, register_entry


def open_curate(app: App[object]) -> None:
    from benchlab.tui.fastbook.curate_command import load_editor_inputs
    from benchlab.tui.fastbook.editor_screen import FastbookCurateScreen

    try:
        session, chapters, runs = load_editor_inputs(None, None, (), None)
    except BenchlabError as exc:
        app.notify(str(exc), title="Cannot open the fastbook editor", severity="error", timeout=10)
        return
    app.push_screen(FastbookCurateScreen(session, chapters, runs, exit_app_on_quit=False))


register_entry(LauncherEntry(
    id="curate-fastbook",
    title="Curate fastbook",
    description="Context annotations of the fastbook-benchmark: audit marks, chapter text, undo/redo, safe saves.",
    open=open_curate,
))
