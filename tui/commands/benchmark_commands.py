"""Every benchmark's declared commands, generated as click commands on their groups.

A benchmark declares each command once (:class:`~benchlab.annotations.task.Command`: group, help, options model,
function); nothing here names an option. ``tool`` commands go in the benchmark's own group (``benchlab booksort``,
``benchlab fastbook``), created on first use.
"""

from __future__ import annotations

from collections.abc import Iterable

import click

from benchlab.annotations.fastbook.commands import COMMANDS as FASTBOOK_COMMANDS
from benchlab.annotations.harness.faults import FAULTS
from benchlab.annotations.registry import registry
from benchlab.annotations.stats_commands import COMMANDS as STATS_COMMANDS
from benchlab.annotations.stats_commands import power_commands
from benchlab.annotations.study_commands import COMMANDS as STUDY_COMMANDS
from benchlab.annotations.task import Command
from benchlab.annotations.trial_export import COMMANDS as EXPORT_COMMANDS
from benchlab.tui.commands import groups
from benchlab.tui.commands.declared import command_from
from benchlab.tui.sort.screen_bench_command import SCREEN_BENCH

_GROUPS: dict[str, click.Group] = {"score": groups.score, "compare": groups.compare, "bench": groups.bench,
                                   "fetch": groups.fetch}


def group_of(cmd: Command) -> click.Group:
    """The click group ``cmd`` goes in (a tool command's group is made the first time it is needed)."""
    if cmd.group != "tool":
        return _GROUPS[cmd.group]
    if cmd.tool is None:
        raise ValueError(f"tool command {cmd.name!r} declares no tool group")
    existing = groups.cli.commands.get(cmd.tool.name)
    if isinstance(existing, click.Group):
        return existing
    group = click.Group(cmd.tool.name, help=cmd.tool.help)
    groups.cli.add_command(group)
    return group


def register(commands: Iterable[Command], task_name: str | None = None) -> None:
    """Add ``commands`` to the CLI (an unnamed command takes the task's name: ``benchlab score <task>``)."""
    for cmd in commands:
        name = cmd.name or task_name
        if name is None:
            raise ValueError(f"a {cmd.group} command needs a name or a task")
        group_of(cmd).add_command(command_from(cmd, name), name)


for _task in registry():  # built-in tasks, then plug-ins (``benchlab.tasks`` entry points)
    register(_task.commands, _task.name)
register(FASTBOOK_COMMANDS)
register(STATS_COMMANDS)
register(power_commands(registry().benchmarks.values()))  # ``benchlab power NAME`` for each task that plans power
register(STUDY_COMMANDS)
register(EXPORT_COMMANDS)
register((SCREEN_BENCH, FAULTS))
