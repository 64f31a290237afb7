"""What people produce: session plans, response logs, context annotations and their edits.

Builds on ``benchlab.data``; never imports Textual, so records can be read and written from a notebook::

    import benchlab.annotations as ba
    task = ba.task_registry().get("worldsense")     # or a plug-in's task, by its name

The names below are imported on first use (PEP 562), so ``import benchlab.annotations`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchlab.data.lazy_api import lazy_attributes

#: public name -> (module, attribute): the notebook API of the annotations layer.
_LAZY: dict[str, tuple[str, str]] = {
    # tasks: the declarations every front end is generated from, and the registry of built-ins and plug-ins
    "Task": ("benchlab.annotations.task", "Task"),
    "Command": ("benchlab.annotations.task", "Command"),
    "ComparisonSource": ("benchlab.annotations.task", "ComparisonSource"),
    "ChoicePrompt": ("benchlab.annotations.task", "ChoicePrompt"),
    "SessionOptions": ("benchlab.annotations.task", "SessionOptions"),
    "Options": ("benchlab.annotations.options", "Options"),
    "option": ("benchlab.annotations.options", "option"),
    "parse_options": ("benchlab.annotations.options", "parse_options"),
    # (``task_registry``, not ``registry``: importing the submodule ``registry`` would rebind that package name)
    "task_registry": ("benchlab.annotations.registry", "registry"),
    "register": ("benchlab.annotations.registry", "register"),
    # sessions: opening one (every task, new or resumed), what a session's files say, plans, the engine, simulated
    # participants
    "open_session": ("benchlab.annotations.session.opening", "open_session"),
    "open_session_from_values": ("benchlab.annotations.session.opening", "open_session_from_values"),
    "session_state": ("benchlab.annotations.session.state", "session_state"),
    "SessionParts": ("benchlab.annotations.session.parts", "SessionParts"),
    "SessionFiles": ("benchlab.annotations.session.runner", "SessionFiles"),
    "SessionPlan": ("benchlab.annotations.session.plan", "SessionPlan"),
    "SessionRunner": ("benchlab.annotations.session.runner", "SessionRunner"),
    "SessionText": ("benchlab.annotations.session.runner", "SessionText"),
    "ResponseTiming": ("benchlab.annotations.session.runner", "ResponseTiming"),
    "SimulatedParticipant": ("benchlab.annotations.simulate", "SimulatedParticipant"),
    "simulate_session": ("benchlab.annotations.simulate", "simulate_session"),
    # sessions of the built-in benchmarks over data already loaded (open_parts underneath, as open_session)
    "prepare_worldsense_session": ("benchlab.annotations.worldsense.session", "prepare_worldsense_session"),
    "WorldSensePlanOptions": ("benchlab.annotations.worldsense.plan", "WorldSensePlanOptions"),
    "prepare_sort_session": ("benchlab.annotations.sort.session", "prepare_sort_session"),
    # the choice-task kit (a benchmark from one items file)
    "make_choice_task": ("benchlab.annotations.choice.task", "make_choice_task"),
    "ChoiceTask": ("benchlab.annotations.choice.task", "ChoiceTask"),
    "prepare_choice_session": ("benchlab.annotations.choice.task", "prepare_choice_session"),
}

__all__ = [  # a literal list, so linters and IDEs read it; a test checks it matches _LAZY
    "ChoicePrompt",
    "ChoiceTask",
    "Command",
    "ComparisonSource",
    "Options",
    "ResponseTiming",
    "SessionFiles",
    "SessionOptions",
    "SessionParts",
    "SessionPlan",
    "SessionRunner",
    "SessionText",
    "SimulatedParticipant",
    "Task",
    "WorldSensePlanOptions",
    "make_choice_task",
    "open_session",
    "open_session_from_values",
    "option",
    "parse_options",
    "prepare_choice_session",
    "prepare_sort_session",
    "prepare_worldsense_session",
    "register",
    "session_state",
    "simulate_session",
    "task_registry",
]


__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)


if TYPE_CHECKING:  # what type checkers and IDEs see; at run time the names load on first use
    from benchlab.annotations.choice.task import ChoiceTask, make_choice_task, prepare_choice_session
    from benchlab.annotations.options import Options, option, parse_options
    from benchlab.annotations.registry import register
    from benchlab.annotations.registry import registry as task_registry
    from benchlab.annotations.session.opening import open_session, open_session_from_values
    from benchlab.annotations.session.parts import SessionParts
    from benchlab.annotations.session.plan import SessionPlan
    from benchlab.annotations.session.runner import ResponseTiming, SessionFiles, SessionRunner, SessionText
    from benchlab.annotations.session.state import session_state
    from benchlab.annotations.simulate import SimulatedParticipant, simulate_session
    from benchlab.annotations.sort.session import prepare_sort_session
    from benchlab.annotations.task import ChoicePrompt, Command, ComparisonSource, SessionOptions, Task
    from benchlab.annotations.worldsense.plan import WorldSensePlanOptions
    from benchlab.annotations.worldsense.session import prepare_worldsense_session
