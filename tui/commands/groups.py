"""The CLI's groups, made fresh for every CLI that :func:`benchlab.tui.cli.build_cli` builds (nothing here adds a
command to anything on import), and the group class that knows about broken plug-ins."""

from __future__ import annotations

from typing import Any

from benchlab.annotations.cards import help_of
from benchlab.tui.commands import study_groups
from benchlab.tui.commands.format_option import FORMAT_OPTION
from benchlab.tui.commands.plugin_group import PluginAwareGroup, RootGroup
from benchlab.tui.commands.root import demo_entry
from benchlab.tui.commands.root import root_group as make_root
from benchlab.tui.core_cards import CARDS


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
