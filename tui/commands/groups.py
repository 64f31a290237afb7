"""The CLI's groups, made fresh for every CLI that :func:`benchlab.tui.cli.build_cli` builds (nothing here adds a
command to anything on import), and the group class that knows about broken plug-ins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from benchlab.annotations.cards import help_of
from benchlab.data.errors import BenchlabError
from benchlab.tui.commands import study_groups
from benchlab.tui.commands.format_option import FORMAT_OPTION
from benchlab.tui.commands.root import demo_entry
from benchlab.tui.commands.root import root_group as make_root
from benchlab.tui.core_cards import CARDS
from benchlab.tui.plugin_report import warning_line, why_missing


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
            reason = why_missing(click.utils.make_str(args[0])) if args else None
            if reason is not None:
                raise BenchlabError(reason) from None
            raise


class RootGroup(PluginAwareGroup):
    """``benchlab``: its ``--help`` ends with the one-line warning when a plug-in failed to load."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help(ctx, formatter)
        warning = warning_line()
        if warning is not None:
            formatter.write_paragraph()
            formatter.write(f"{warning}\n")


def _group(name: str, help_text: str, **kwargs: Any) -> PluginAwareGroup:
    return PluginAwareGroup(name, help=help_text, **kwargs)


def root_group() -> RootGroup:
    """``benchlab`` with no command: the launcher."""
    root = make_root(RootGroup, DEMO)
    assert isinstance(root, RootGroup)
    return root


DEMO = demo_entry


def score_group() -> PluginAwareGroup:
    return _group("score", help_of(CARDS, "score"))


def fetch_group() -> PluginAwareGroup:
    return _group("fetch", help_of(CARDS, "fetch"))


def compare_group() -> PluginAwareGroup:
    return _group("compare", help_of(CARDS, "compare"))


def bench_group() -> PluginAwareGroup:
    return _group("bench", help_of(CARDS, "bench"))


def serve_group() -> PluginAwareGroup:
    """``benchlab serve BENCHMARK`` (private links) or ``benchlab serve --study DIR`` (one crowd link)."""
    group = study_groups.serve_group(PluginAwareGroup)
    assert isinstance(group, PluginAwareGroup)
    return group


def run_group() -> PluginAwareGroup:
    """``benchlab run BENCHMARK`` (one subcommand per task) or ``benchlab run --study DIR --participant P``."""
    group = study_groups.run_group(PluginAwareGroup)
    assert isinstance(group, PluginAwareGroup)
    return group


__all__ = ["DEMO", "FORMAT_OPTION", "PluginAwareGroup", "RootGroup", "bench_group", "compare_group", "fetch_group",
           "root_group", "run_group", "score_group", "serve_group"]
