"""Launcher lines that are not participant tasks (e.g. "Results", "Curate fastbook").

Participant tasks come from the task registry (:mod:`benchlab.annotations.registry`); a tool adds its line with
``register_entry(LauncherEntry(...))`` in the module that defines it, plus importing that module in
``benchlab.tui.launcher_entries``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App


@dataclass(frozen=True)
class LauncherEntry:
    """A launcher menu line that is not a participant task (e.g. "Results", "Curate fastbook")."""

    id: str
    title: str
    description: str
    open: Callable[[App[Any]], None]


ENTRIES: dict[str, LauncherEntry] = {}


def register_entry(entry: LauncherEntry) -> LauncherEntry:
    ENTRIES[entry.id] = entry
    return entry
