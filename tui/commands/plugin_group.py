"""The CLI's group class: commands added as factories, made when first used, and an unknown command word looked
up among the broken plug-ins. Apart from :mod:`benchlab.tui.commands.groups` so that a module that makes a group
of its own (``benchlab models``) loads neither the plug-in report nor any declaration until it is needed (its help
pages come from the command cards, :mod:`benchlab.tui.help_cards`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from benchlab.data.errors import BenchlabError


class PluginAwareGroup(click.Group):
    """A group whose unknown command word is looked up among the broken plug-ins: ``benchlab run oddword`` says
    why ``oddword`` did not load instead of ``No such command``.

    Its commands may be added as factories (:meth:`add_lazy`), built the first time they are looked up or listed:
    generating a declared command's options costs about a millisecond, and every participant's session in a
    browser starts a ``benchlab run`` process that needs one command of one group.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy: dict[str, Callable[[], click.Command]] = {}
        self._factories: dict[str, Callable[[], click.Command]] = {}

    def add_lazy(self, name: str, factory: Callable[[], click.Command]) -> None:
        """Add the command ``name``, made by ``factory`` when it is first looked up."""
        self._lazy[name] = self._factories[name] = factory

    def factory(self, name: str) -> Callable[[], click.Command] | None:
        """The factory that makes (or made) the command ``name``; ``None`` for a command added already made (the
        help listing records where a declared command comes from: ``benchlab.tui.command_routes``)."""
        return self._factories.get(name)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        self._factories.pop(name or str(cmd.name), None)  # added made: no factory
        super().add_command(cmd, name)

    def holds(self, name: str) -> bool:
        """Whether ``name`` is a command of this group (made or not yet made)."""
        return name in self.commands or name in self._lazy

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        factory = self._lazy.pop(cmd_name, None)
        if factory is not None:
            super().add_command(factory(), cmd_name)  # keeps its factory (see add_command)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self._lazy})

    def built(self) -> dict[str, click.Command]:
        """Every command, each made now if it was not yet (tests, ``benchlab --help`` listings)."""
        for name in list(self._lazy):
            self.get_command(click.Context(self), name)
        return dict(self.commands)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                           list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            # deferred: the plug-in report (every declaration) loads only for a command word that is not there
            from benchlab.tui.plugin_report import why_missing

            reason = why_missing(click.utils.make_str(args[0])) if args else None
            if reason is not None:
                raise BenchlabError(reason) from None
            raise


class RootGroup(PluginAwareGroup):
    """``benchlab``: its ``--help`` ends with the one-line warning when a plug-in failed to load."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # deferred: the plug-in report loads with the root's help page, which the whole CLI prints
        from benchlab.tui.plugin_report import warning_line

        super().format_help(ctx, formatter)
        warning = warning_line()
        if warning is not None:
            formatter.write_paragraph()
            formatter.write(f"{warning}\n")
