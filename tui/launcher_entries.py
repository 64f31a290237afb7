"""The launcher's lines that are not participant tasks, as lazy screen factories (like Textual's ``App.SCREENS``).

The launcher lists, in this order: one line per task of the registry, :data:`CORE_ENTRIES`, then the launcher
lines of the loaded ``benchlab.tools`` entries (:mod:`benchlab.tui.tools`). An entry's ``screen`` imports and
builds its screen only when the line is chosen, so listing the launcher loads none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the CLI reads these entries without loading Textual
    from textual.screen import Screen


@dataclass(frozen=True)
class LauncherEntry:
    """A launcher line that is not a participant task (e.g. "Results", or a tool's "Curate ..." line)."""

    id: str
    title: str
    description: str
    #: Builds the screen the line opens (called when the line is chosen, never before).
    screen: Callable[[], Screen[Any]]


# Each factory imports its screen when called: the Results screen alone pulls in the analysis stack, and the
# launcher shows without any of these screens loaded.

def results_screen() -> Screen[Any]:
    # deferred: Textual, pandas and scipy load only when this screen opens (the entries are declared with the CLI)
    from benchlab.tui.screens.results import ResultsScreen

    return ResultsScreen()


def sessions_screen() -> Screen[Any]:
    # deferred: Textual loads only when this screen opens (the entries are declared with the CLI)
    from benchlab.tui.screens.sessions import SessionsScreen

    return SessionsScreen()


def study_open_screen() -> Screen[Any]:
    # deferred: Textual loads only when this screen opens (the entries are declared with the CLI)
    from benchlab.tui.screens.study_open import StudyOpenScreen

    return StudyOpenScreen()


#: benchlab's own lines (experimenter only: the launcher is never shown in participant mode).
CORE_ENTRIES: tuple[LauncherEntry, ...] = (
    LauncherEntry(
        id="results",
        title="Results: humans vs models",
        description="Tables with 95% CIs and tests, accuracy charts, response times; refreshes while a session "
                    "writes.",
        screen=results_screen,
    ),
    LauncherEntry(
        id="sessions",
        title="Sessions: who is where",
        description="Every participant of a results folder (browser or terminal): consent, practice, trial k of n, "
                    "break, disconnected, finished; last activity, practice accuracy. Refreshes by itself.",
        screen=sessions_screen,
    ),
    LauncherEntry(
        id="open-study",
        title="Open study",
        description="Run the next participant of a study file: its benchmark, options and the participant's arm.",
        screen=study_open_screen,
    ),
)
