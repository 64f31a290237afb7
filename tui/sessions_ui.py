"""The "Sessions" launcher entry: every participant's state in a results folder (experimenter only; the launcher is
never shown in participant mode, in a terminal or a browser)."""

from __future__ import annotations

from textual.app import App

from benchlab.tui.launcher_registry import LauncherEntry, register_entry


def open_sessions(app: App[object]) -> None:
    from benchlab.tui.screens.sessions import SessionsScreen

    app.push_screen(SessionsScreen())


register_entry(LauncherEntry(
    id="sessions",
    title="Sessions: who is where",
    description="Every participant of a results folder (browser or terminal): consent, practice, trial k of n, "
                "break, disconnected, finished; last activity, practice accuracy. Refreshes by itself.",
    open=open_sessions,
))
