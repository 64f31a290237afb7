"""A benchmark's declared commands, generated as click commands on the groups of one CLI.

A benchmark declares each command once (:class:`~benchlab.annotations.task.Command`: group, help, options model,
function); nothing here names an option or a benchmark. ``tool`` commands go in the benchmark's own group
(``benchlab GROUP COMMAND``, GROUP from its :class:`~benchlab.annotations.task.ToolGroup`), created on first use.
:func:`benchlab.tui.cli.build_cli` calls :func:`add_declared` for each declaration; nothing is added on import.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import click

from benchlab.annotations.task import Command
from benchlab.tui.commands.declared import command_from
from benchlab.tui.commands.groups import PluginAwareGroup


def group_of(cli: click.Group, cmd: Command) -> PluginAwareGroup:
    """The group of ``cli`` that ``cmd`` goes in (a tool command's group is made the first time it is needed)."""
    if cmd.group != "tool":
        group = cli.commands[cmd.group]
        assert isinstance(group, PluginAwareGroup)
        return group
    if cmd.tool is None:
        raise ValueError(f"tool command {cmd.name!r} declares no tool group")
    existing = cli.commands.get(cmd.tool.name)
    if isinstance(existing, PluginAwareGroup):
        return existing
    group = PluginAwareGroup(cmd.tool.name, help=cmd.tool.help)
    cli.add_command(group)
    return group


def add_declared(cli: click.Group, commands: Iterable[Command], task_name: str | None = None) -> None:
    """Add ``commands`` to ``cli`` (an unnamed command takes the task's name: ``benchlab score <task>``)."""
    for cmd in commands:
        name = cmd.name or task_name
        if name is None:
            raise ValueError(f"a {cmd.group} command needs a name or a task")
        group_of(cli, cmd).add_lazy(name, partial(command_from, cmd, name))
