"""INTERIM, delete when the built-in ``TASK`` objects land (``benchlab.annotations.{worldsense,sort}.task``).

Until then the launcher form, the launcher lines and the Results screen need :class:`Task` objects for WorldSense
and SORT: this module wraps the old ``TaskUI`` objects, with stand-in plan options models mirroring the fields the
real tasks declare, and turns the form's checked options back into the old ``SessionRequest``. Nothing outside
:mod:`benchlab.tui.session_start` imports it, so removing it is one file plus the fallback there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from benchlab.annotations.options import Options, option
from benchlab.annotations.session_plan import SessionPlan
from benchlab.annotations.session_runner import SessionRunner, SessionText
from benchlab.annotations.sort.comparison import COMPARISON as SORT_COMPARISON
from benchlab.annotations.task import Command, ComparisonSource, Registry, SessionOptions
from benchlab.annotations.worldsense.comparison import COMPARISON as WORLDSENSE_COMPARISON
from benchlab.tui.task_registry import SessionRequest, TaskUI


class WorldSenseFormOptions(Options):
    """Stand-in for ``WorldSensePlanOptions`` (the real one is declared with the task)."""

    tuples_per_cell: int = option(2, label="Tuples per (problem, size) cell", ge=2,
                                  help="Tuples sampled from every (problem, size) cell.")
    practice: int = option(4, label="Practice trials", ge=0, help="Practice trials, from outside the scored set.")
    block_size: int = option(30, label="Trials per block", ge=1, help="A break between blocks.")
    min_gap: int = option(1, label="Minimum gap", ge=1, help="Minimum trials between tuple mates.")
    participants: tuple[str, ...] = option((), label="Participant list",
                                           help="Participant list for item assignment (optional).")


class SortFormOptions(Options):
    """Stand-in for ``SortPlanOptions`` (the real one is declared with the task)."""

    trials: int = option(20, label="Scored trials", ge=1, help="Spread evenly over the 4 distance bins.")
    practice: int = option(2, label="Practice trials", ge=0, help="Practice trials, from the validation split.")
    block_size: int = option(10, label="Trials per block", ge=1, help="A break between blocks.")
    condition: Literal["stm", "ltm"] = option("stm", label="Condition",
                                              help="stm: read the excerpt; ltm: title and segments only.")
    excerpt_length: int | None = option(250, label="Excerpt length", help="Excerpt length in words (250, 1000, ...).")
    segment_length: int | None = option(20, label="Segment length", help="Segment length in words (20 or 50).")
    book: str | None = option(None, label="Book", help="Gutenberg id or part of the title (empty: all).")
    delay_s: float = option(0.0, label="Delay (s)", ge=0, help="Delay between reading and question, seconds.")
    min_reading_s: float = option(0.0, label="Minimum reading time (s)", ge=0, help="Seconds before Enter counts.")
    max_reading_s: float | None = option(None, label="Maximum reading time (s)", help="Empty: no limit.")


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _common(session: SessionOptions, ui: TaskUI) -> dict[str, Any]:
    return {
        "dataset": str(session.dataset or ui.default_dataset()), "participant": session.participant,
        "session": session.session, "out": _text(session.out), "seed": session.seed, "resume": session.resume,
        "consent_file": _text(session.consent_file) or None,
        "instructions_file": _text(session.instructions_file) or None,
        "no_instructions": session.no_instructions, "practice_feedback": session.feedback,
        "simulated": session.simulate,
    }


def _worldsense_request(session: SessionOptions, plan: Any, ui: TaskUI) -> SessionRequest:
    return SessionRequest(**_common(session, ui), items_per_cell=plan.tuples_per_cell, practice=plan.practice,
                          block_size=plan.block_size, min_gap=plan.min_gap, participants=tuple(plan.participants))


def _sort_request(session: SessionOptions, plan: Any, ui: TaskUI) -> SessionRequest:
    extra = {"condition": plan.condition, "excerpt_length": _text(plan.excerpt_length),
             "segment_length": _text(plan.segment_length), "book": _text(plan.book), "delay": str(plan.delay_s),
             "min_reading": str(plan.min_reading_s), "max_reading": _text(plan.max_reading_s)}
    return SessionRequest(**_common(session, ui), items_per_cell=plan.trials, practice=plan.practice,
                          block_size=plan.block_size, extra=extra)


@dataclass
class LegacyTask:
    """An old ``TaskUI`` seen through the :class:`~benchlab.annotations.task.Task` protocol (launcher use only)."""

    ui: TaskUI
    plan_options: type[Options]
    comparison: ComparisonSource | None
    to_request: Callable[[SessionOptions, Any, TaskUI], SessionRequest]
    name: str = ""
    title: str = ""
    description: str = ""
    trial_kind: str = "choice"
    simulated_policies: tuple[str, ...] = ()
    commands: Sequence[Command] = field(default=())

    def __post_init__(self) -> None:
        self.name, self.title, self.description = self.ui.name, self.ui.title, self.ui.description

    def default_dataset(self) -> Path:
        return self.ui.default_dataset()

    def default_out(self, dataset: str) -> Path:
        return self.ui.default_out(dataset)

    def prepare(self, session: SessionOptions, plan: Any, text: SessionText) -> SessionRunner:
        """The old path: the ``TaskUI`` reads the texts itself from the request (``text`` is ignored)."""
        return self.ui.prepare(self.to_request(session, plan, self.ui))

    def planned_values(self, plan: SessionPlan) -> dict[str, Any]:
        return {}

    def instructions(self, plan: Any, session: SessionOptions) -> list[str]:
        return []


@lru_cache(maxsize=1)
def legacy_registry() -> Registry:
    """WorldSense then SORT, as the launcher listed them."""
    from benchlab.tui.sort.task_ui import SortUI
    from benchlab.tui.worldsense.task_ui import WorldSenseUI

    reg = Registry()
    reg.add(LegacyTask(WorldSenseUI(), WorldSenseFormOptions, WORLDSENSE_COMPARISON, _worldsense_request))
    reg.add(LegacyTask(SortUI(), SortFormOptions, SORT_COMPARISON, _sort_request))
    return reg
