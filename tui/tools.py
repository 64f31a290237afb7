"""The ``benchlab.tools`` entry-point group: a benchmark's own front ends (a launcher line, commands).

A package declares::

    [project.entry-points."benchlab.tools"]
    mytool = "my_package.tool:TOOL"

where ``TOOL`` is a :class:`Tool` (or a function returning one). Its launcher line follows benchlab's own lines;
each of its commands goes in the named parent group (``("curate", ...)`` gives ``benchlab curate NAME``;
a group that only tools use, such as ``curate``, is created when a tool contributes to it). benchlab's own tools
(the built-in benchmarks' editors and benches) are declared the same way in its ``pyproject.toml``, so nothing outside a
benchmark's folder names them. A tool that fails to load is kept with its one-line reason (``benchlab plugins``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import click

from benchlab.annotations.cards import help_of
from benchlab.annotations.plugins import Entry, GroupReport, load_group, name_problem, remember
from benchlab.tui.core_cards import CARDS
from benchlab.tui.launcher_entries import LauncherEntry

ENTRY_POINT_GROUP = "benchlab.tools"

#: Builds one click command (called once per CLI that is built).
CommandFactory = Callable[[], click.Command]

#: Groups that exist only when a tool contributes to them: name -> help.
CREATED_GROUPS: dict[str, str] = {
    "curate": help_of(CARDS, "curate"),
}
#: Where a tool's command may go: benchlab's groups of declared commands, and the groups tools create.
PARENT_GROUPS: tuple[str, ...] = ("bench", "compare", "fetch", "score", *CREATED_GROUPS)


@dataclass(frozen=True)
class Tool:
    """What one ``benchlab.tools`` entry contributes: an optional launcher line and commands.

    ``commands``: ``(parent group, factory)`` pairs, e.g. ``("curate", lambda: CURATE_COMMAND)``; the command's own
    name is the word after the group (``benchlab curate NAME``).
    """

    name: str
    launcher: LauncherEntry | None = None
    commands: Sequence[tuple[str, CommandFactory]] = ()


def _problem(entry: Entry, obj: Any) -> str | None:
    """Why a loaded object is not a usable tool (``None`` when it is)."""
    if not isinstance(obj, Tool):
        return f"{type(obj).__name__} is not a benchlab.tui.tools.Tool"
    wrong = [parent for parent, _ in obj.commands if parent not in PARENT_GROUPS]
    if wrong:
        return f"tool {obj.name!r} adds a command to {wrong[0]!r}, not one of: {', '.join(PARENT_GROUPS)}"
    return name_problem(obj.name, "tool")


@lru_cache(maxsize=1)
def tool_report() -> GroupReport:
    """The ``benchlab.tools`` group, loaded once per process (a second tool of the same name is refused)."""
    report = remember(load_group(ENTRY_POINT_GROUP, _problem))
    report.refuse_clashes("tool", lambda _, tool: str(tool.name))
    return report


def tools() -> tuple[Tool, ...]:
    """Every loaded tool: benchlab's own first, then plug-ins by entry-point name."""
    return tuple(tool for _, tool in tool_report().loaded)


def tool_entries() -> tuple[LauncherEntry, ...]:
    """The launcher lines of the loaded tools, in tool order."""
    return tuple(tool.launcher for tool in tools() if tool.launcher is not None)
