"""What ``benchlab run NAME`` and ``benchlab serve NAME`` show of a task, apart from the task itself.

A task module declares how sessions are planned, opened, scored and compared, so importing it loads the session
engine, the comparison and the model prompts: a third of a CPU-second. A command's ``--help`` page needs only the
task's name, title, description, options and simulated participants. Each built-in task declares these once in a
light module (a :class:`TaskFace`), the task takes them from there, and the task's ``run`` / ``serve`` cards name
that face (:mod:`benchlab.tui.help_cards` lays the pages out from it), as Textual's ``App.SCREENS`` names a screen
by a factory that is called only when the screen is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchlab.annotations.options import Options
    from benchlab.annotations.task import SessionOptions


@dataclass(frozen=True)
class TaskFace:
    """A task's name, words and options (the attributes of :class:`~benchlab.annotations.task.Task` of the same
    names): everything its ``run`` and ``serve`` commands are made from, and nothing that runs a session."""

    name: str
    title: str
    description: str
    session_options: type[SessionOptions]
    plan_options: type[Options]
    simulated_policies: tuple[str, ...]


#: The simulated participants :mod:`benchlab.annotations.simulate` implements (``--simulate``); here so that a face
#: can offer them without loading the session engine the simulation runs on.
POLICIES = ("random", "oracle", "biased")
