"""``benchlab GROUP NAME ...`` run straight from the declaration that gives it, without building the whole CLI.

Building the CLI imports every declaration module (every benchmark's commands, the core command lists) and their
pydantic options: ~0.09 CPU-seconds more than the one declaration a command such as ``compare sort`` needs. The
help listing (:mod:`benchlab.tui.help_listing`) records, for each command of a group below the root that
:func:`~benchlab.tui.commands.declared.command_from` makes from a declared
:class:`~benchlab.annotations.task.Command`, where that declaration lives (``module:NAME``). While the listing is
valid (no file the build imported, no setting it read, no installed entry point changed) the ``benchlab`` script
imports that module alone and runs the command under a root and a group with the same names and help words, through
the same guard (:func:`~benchlab.tui.cli_guard.run_guarded`).

Everything else runs through the whole CLI: a command of ``run``/``serve`` (their groups have options), a command
made otherwise (generated declarations, tools, core commands), any command while a plug-in is installed (a plug-in
may claim a word; the listing records no route then), and everything when the listing is missing or stale.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import click

    from benchlab.tui.commands.groups import PluginAwareGroup


def origin(group: PluginAwareGroup, name: str) -> str | None:
    """``module:NAME`` of the declared command that ``group``'s command ``name`` is made from, if it is made by
    ``command_from`` from a module-level declaration (found by identity among its run function's module's names)."""
    # deferred: only a live build records, and it has the declared commands' module loaded already
    from benchlab.tui.commands.declared import command_from

    factory = group.factory(name)
    if not isinstance(factory, partial) or factory.func is not command_from or factory.keywords:
        return None
    if len(factory.args) != 2 or factory.args[1] != name:
        return None
    declared = factory.args[0]
    module = sys.modules.get(str(getattr(getattr(declared, "run", None), "__module__", "")))
    if module is None:  # a run function from nowhere importable (a partial, a builtin): not routed
        return None
    names = [attr for attr, value in vars(module).items() if value is declared]
    return f"{module.__name__}:{names[0]}" if len(names) == 1 else None


def route_of(argv: Sequence[str], record: dict[str, Any] | None) -> str | None:
    """``module:NAME`` of the declaration ``record`` (a help listing, checked or not) gives for ``argv``'s command."""
    if record is None or len(argv) < 2:
        return None
    nodes = record.get("nodes")
    node = nodes.get(argv[0]) if isinstance(nodes, dict) else None
    origins = node.get("origins") if isinstance(node, dict) else None
    where = origins.get(argv[1]) if isinstance(origins, dict) else None
    return where if isinstance(where, str) and where.count(":") == 1 else None


def routed(argv: Sequence[str], record: dict[str, Any]) -> click.Command:
    """A root holding only the command ``argv`` starts with (``record``, a valid help listing, routes it: see
    :func:`route_of`)."""
    where = route_of(argv, record)
    if where is None:
        raise ValueError(f"the help listing routes no command {' '.join(argv[:2])!r}")
    node = record["nodes"][argv[0]]
    # deferred: click and the one declaration load only for a command that is routed
    import click

    from benchlab.tui.commands.declared import command_from

    module, attr = where.split(":")
    declared = getattr(importlib.import_module(module), attr)
    root = click.Group("benchlab", context_settings={"help_option_names": list(node["help_words"])})
    group = click.Group(argv[0], help=node["help"])
    group.add_command(command_from(declared, argv[1]))
    root.add_command(group)
    return root
