"""Entry point of the ``benchlab`` command: the CLI built from one explicit list, one clear line for user errors,
never a traceback.

:func:`build_cli` is the only place commands are added to groups (as inspect_ai's ``_cli/main.py`` does): the
core commands, then the commands each declaration of the ``benchlab.tasks`` group contributes, the core declared
command lists, and the commands of the ``benchlab.tools`` entries. Importing a module adds nothing anywhere, so two
builds give two independent CLIs.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import click

from benchlab.annotations.harness.faults import FAULTS
from benchlab.annotations.harness.startup_bench import STARTUP
from benchlab.annotations.plugins import one_line
from benchlab.annotations.registry import registry
from benchlab.annotations.report.commands import TOP_COMMANDS
from benchlab.annotations.stats_commands import COMMANDS as STATS_COMMANDS
from benchlab.annotations.stats_commands import power_commands
from benchlab.annotations.study_commands import COMMANDS as STUDY_COMMANDS
from benchlab.annotations.trial_export import COMMANDS as EXPORT_COMMANDS
from benchlab.tui.cli_guard import run_guarded
from benchlab.tui.commands import groups
from benchlab.tui.commands.benchmark_commands import add_declared
from benchlab.tui.commands.declared import command_from
from benchlab.tui.commands.models import bench_models_command, models_group
from benchlab.tui.commands.plugins import plugins_command
from benchlab.tui.commands.run import run_command
from benchlab.tui.commands.serve import serve_command
from benchlab.tui.commands.serve_bench_command import bench_serve
from benchlab.tui.commands.timing_check_command import timing_check
from benchlab.tui.tools import CREATED_GROUPS, tool_report


def _tool_parent(cli: click.Group, name: str) -> groups.PluginAwareGroup:
    """The group a tool's command goes in; a group only tools use (``curate``) is made on first use."""
    existing = cli.commands.get(name)
    if isinstance(existing, groups.PluginAwareGroup):
        return existing
    group = groups.PluginAwareGroup(name, help=CREATED_GROUPS[name])
    cli.add_command(group)
    return group


def _add_tools(cli: click.Group) -> None:
    """Each loaded tool's commands; a command word already taken refuses the tool (reported, never replaced)."""
    report = tool_report()
    for entry, tool in list(report.loaded):
        try:
            made = [(parent, factory()) for parent, factory in tool.commands]
        except Exception as exc:  # a plug-in's factory failing must not take the whole CLI down
            report.refuse(entry, one_line(exc))
            continue
        taken = [f"{parent} {cmd.name}" for parent, cmd in made
                 if parent in cli.commands and _tool_parent(cli, parent).holds(str(cmd.name))]
        if taken:
            report.refuse(entry, f"tool {tool.name!r}: command 'benchlab {taken[0]}' is already taken")
            continue
        for parent, cmd in made:
            _tool_parent(cli, parent).add_command(cmd)


def build_cli() -> groups.RootGroup:
    """A new ``benchlab`` CLI with every command (each call builds fresh groups)."""
    cli = groups.root_group()
    run, serve, bench = groups.run_group(), groups.serve_group(), groups.bench_group()
    for group in (run, groups.score_group(), groups.fetch_group(), groups.compare_group(), bench, serve):
        cli.add_command(group)
    cli.add_command(groups.DEMO)
    cli.add_command(timing_check)
    cli.add_command(plugins_command)
    bench.add_command(bench_serve)
    cli.add_command(models_group())  # benchlab models run|import|export|list
    bench.add_lazy("models", bench_models_command)
    for task in registry():  # tasks that run people: built-ins, then plug-ins (each command made when used)
        run.add_lazy(task.name, partial(run_command, task))
        if task.trial_kind:
            serve.add_lazy(task.name, partial(serve_command, task))
    for benchmark in registry().benchmarks.values():  # every declaration, also those that only score or curate
        add_declared(cli, benchmark.commands, benchmark.name)
    power = power_commands(registry().benchmarks.values())  # ``benchlab power NAME`` for each task that plans power
    for commands in (STATS_COMMANDS, power, STUDY_COMMANDS, EXPORT_COMMANDS, (FAULTS, STARTUP)):
        add_declared(cli, commands)
    for top in TOP_COMMANDS:  # ``benchlab report|withdraw|release`` (declared in annotations/)
        cli.add_lazy(str(top.name), partial(command_from, top, str(top.name)))
    _add_tools(cli)
    return cli


def __getattr__(name: str) -> Any:
    """``benchlab.tui.cli.cli``: a CLI built on first use (kept for callers that import it)."""
    if name == "cli":
        built = build_cli()
        globals()["cli"] = built
        return built
    raise AttributeError(name)


def main(argv: Sequence[str] | None = None, command: click.Command | None = None) -> None:
    """Run the CLI (or ``command``, a test's stand-in); exit 2 with ``benchlab: error: ...`` on bad input, 70 with a
    crash report on a bug (:func:`benchlab.tui.cli_guard.run_guarded`)."""
    run_guarded(argv, (lambda: command) if command is not None else build_cli)


if __name__ == "__main__":
    main()
