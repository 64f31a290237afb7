"""The "Curate fastbook" launcher entry: asks which file to edit (or makes a working copy of the shared one), then
opens the context editor (see :mod:`benchlab.tui.fastbook.curate_open`)."""

from __future__ import annotations

from textual.app import App

from benchlab.tui.launcher_registry import LauncherEntry, register_entry


def open_curate(app: App[object]) -> None:
    from benchlab.tui.fastbook.curate_open import CurateOpenScreen

    app.push_screen(CurateOpenScreen())


register_entry(LauncherEntry(
    id="curate-fastbook",
    title="Curate fastbook",
    description="Context annotations of the fastbook-benchmark: pick a file or make a working copy; audit marks, "
                "chapter text, undo/redo, safe saves.",
    open=open_curate,
))
