"""Registries the launcher reads: participant tasks (one :class:`TaskUI` each) and other launcher entries.

Adding a task or a tool to the launcher is one call: ``register_task(MyTaskUI())`` or
``register_entry(LauncherEntry(...))`` in the module that defines it, plus importing that module in
``benchlab.tui.launcher_entries``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from benchlab.annotations.session_plan import PlannedStep
from benchlab.annotations.session_runner import ResponseTiming, SessionRunner
from benchlab.tui.key_debounce import KeyDebounce

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen


@dataclass
class SessionRequest:
    """What the experimenter filled in on the launcher (or passed on the command line)."""

    dataset: str
    participant: str
    session: str = "1"
    out: str = ""
    seed: int | None = None
    practice: int = 4
    block_size: int = 30
    items_per_cell: int = 2
    min_gap: int = 1
    participants: tuple[str, ...] = ()
    resume: bool = False
    consent_file: str | None = None
    instructions_file: str | None = None
    no_instructions: bool = False
    practice_feedback: bool = True
    simulated: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


AnswerCallback = Callable[[str, ResponseTiming], None]


@dataclass(frozen=True)
class TrialContext:
    """What the session gives every trial screen: the progress line, the answer callback, the key debouncer."""

    label: str
    done: int
    total: int
    on_answer: AnswerCallback
    debounce: KeyDebounce


class TaskUI(Protocol):
    """The participant-facing part of a task: how to prepare its session and how one trial looks."""

    name: str
    title: str
    description: str
    #: Label of the launcher field that sets how many items are sampled (e.g. "Tuples per (problem, size) cell").
    items_per_cell_label: str

    def default_dataset(self) -> Path: ...

    def default_out(self, dataset: str) -> Path: ...

    def prepare(self, request: SessionRequest) -> SessionRunner:
        """Load the data, build or reload the plan and open the runner (raises BenchlabError on bad input)."""
        ...

    def trial_screen(self, runner: SessionRunner, step: PlannedStep, context: TrialContext) -> Screen[None]: ...


TASKS: dict[str, TaskUI] = {}


def register_task(task: TaskUI) -> TaskUI:
    TASKS[task.name] = task
    return task


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
