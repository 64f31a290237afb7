"""SORT's front end as a ``benchlab.tools`` entry: ``benchlab bench sort-screen`` (its harness drives the Textual
trial screen, so the command lives in the tui; declared in benchlab's ``pyproject.toml``)."""

from __future__ import annotations

import click

from benchlab.tui.commands.declared import command_from
from benchlab.tui.sort.screen_bench_command import SCREEN_BENCH
from benchlab.tui.tools import Tool


def screen_bench_command() -> click.Command:
    """``benchlab bench sort-screen``, generated from its declaration like every declared command."""
    return command_from(SCREEN_BENCH, SCREEN_BENCH.name or "sort-screen")


TOOL = Tool(name="sort", commands=(("bench", screen_bench_command),))
