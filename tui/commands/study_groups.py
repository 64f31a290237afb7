"""``benchlab run`` and ``benchlab serve``: the two groups with options of their own (``--study`` ...), apart from
:mod:`benchlab.tui.commands.groups` so that their help pages can be laid out from the command cards
(:mod:`benchlab.tui.help_cards`: the group made here, one stand-in per card below it) without the session engine,
the web server or any benchmark's declaration. The CLI makes them with its own group class."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

import click

from benchlab.annotations.cards import help_of
from benchlab.annotations.online.commands import StudyServeOptions
from benchlab.annotations.options import OptionError
from benchlab.annotations.study_commands import StudyRunOptions
from benchlab.tui.commands.declared import click_params, model_from_click, reworded
from benchlab.tui.core_cards import CARDS

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")


def _without_study(ctx: click.Context, params: Mapping[str, object], verb: str) -> bool:
    """Whether the group was given no ``--study`` (its help is printed when no command follows either); a benchmark
    name after ``--study`` is refused (the study names its own benchmark)."""
    if params.get("study") is None:
        if ctx.invoked_subcommand is None:
            click.echo(ctx.get_help())
        return True
    if ctx.invoked_subcommand is not None:
        raise click.UsageError(f"--study {verb} the study's own benchmark: leave out the benchmark name")
    return False


def _start(model: type[M], params: Mapping[str, object], start: Callable[[M], object]) -> None:
    """``start`` on the checked options; a wrong value is one line naming its flag."""
    try:
        start(model_from_click(model, params))
    except OptionError as exc:
        raise reworded(exc, model) from None


def serve_group(cls: type[click.Group] = click.Group) -> click.Group:
    """``benchlab serve BENCHMARK`` (private links) or ``benchlab serve --study DIR`` (one crowd link)."""

    @click.group(cls=cls, invoke_without_command=True, params=click_params(StudyServeOptions),
                 help=help_of(CARDS, "serve"))
    @click.pass_context
    def serve(ctx: click.Context, **params: object) -> None:
        if params.get("study") is None:
            given = [f"--{k.replace('_', '-')}" for k, v in params.items()
                     if k != "study" and v != StudyServeOptions.model_fields[k].default]
            if given:  # never silently ignored (the benchmark's own options come after its name)
                raise click.UsageError(f"{given[0]} goes with --study (a benchmark's options come after its name)")
        if _without_study(ctx, params, "serves"):
            return
        # deferred: aiohttp loads only when a server starts (`benchlab --help` stays quick)
        from benchlab.tui.web.online.serve_study import serve_study

        _start(StudyServeOptions, params, serve_study)

    assert isinstance(serve, cls)
    return serve


def run_group(cls: type[click.Group] = click.Group) -> click.Group:
    """``benchlab run BENCHMARK`` (one subcommand per task) or ``benchlab run --study DIR --participant P``."""

    @click.group(cls=cls, invoke_without_command=True, params=click_params(StudyRunOptions),
                 help=help_of(CARDS, "run"))
    @click.pass_context
    def run(ctx: click.Context, **params: object) -> None:
        if _without_study(ctx, params, "runs"):
            return
        # deferred: the session engine loads only when a session starts (a help page never needs it)
        from benchlab.tui.commands.run import run_study

        _start(StudyRunOptions, params, run_study)

    assert isinstance(run, cls)
    return run
