"""The "Results" launcher entry: humans vs models for a results folder (experimenter only; the launcher is never
shown in participant mode)."""

from __future__ import annotations

from textual.app import App

from benchlab.tui.launcher_registry import LauncherEntry, register_entry


def open_results(app: App[object]) -> None:
    from benchlab.tui.screens.results import ResultsScreen

    app.push_screen(ResultsScreen())


register_entry(LauncherEntry(
    id="results",
    title="Results: humans vs models",
    description="Tables with 95% CIs and tests, accuracy charts, response times; refreshes while a session writes.",
    open=open_results,
))
