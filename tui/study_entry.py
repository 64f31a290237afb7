"""The "Open study" launcher entry (see :mod:`benchlab.tui.screens.study_open`)."""

from __future__ import annotations

from typing import Any

from textual.app import App

from benchlab.tui.launcher_registry import LauncherEntry, register_entry


def open_study(app: App[Any]) -> None:
    from benchlab.tui.screens.study_open import StudyOpenScreen

    app.push_screen(StudyOpenScreen())


register_entry(LauncherEntry(
    id="open-study",
    title="Open study",
    description="Run the next participant of a study file: its benchmark, options and the participant's arm.",
    open=open_study,
))
