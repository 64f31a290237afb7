"""``benchlab run`` and ``benchlab serve``: the two groups with options of their own (``--study`` ...), apart from
:mod:`benchlab.tui.commands.groups` so that their help pages can be laid out from the command cards
(:mod:`benchlab.tui.help_cards`: the group made here, one stand-in per card below it) without the session engine,
the web server or any benchmark's declaration. The CLI makes them with its own group class."""

from __future__ import annotations

import click

from benchlab.annotations.online.commands import StudyServeOptions
from benchlab.annotations.options import OptionError
from benchlab.annotations.study_commands import StudyRunOptions
from benchlab.tui.commands.declared import click_params, model_from_click, reworded


def serve_group(cls: type[click.Group] = click.Group) -> click.Group:
    """``benchlab serve BENCHMARK`` (private links) or ``benchlab serve --study DIR`` (one crowd link)."""

    @click.group(cls=cls, invoke_without_command=True, params=click_params(StudyServeOptions))
    @click.pass_context
    def serve(ctx: click.Context, **params: object) -> None:
        """Serve sessions to participants in a web browser (one private link per participant).

        Either "benchlab serve BENCHMARK [OPTIONS]", or "benchlab serve --study DIR [--admin]": one study link for
        a crowd recruited on Prolific, SONA or MTurk (see docs/online.md).
        """
        if params.get("study") is None:
            given = [f"--{k.replace('_', '-')}" for k, v in params.items()
                     if k != "study" and v != StudyServeOptions.model_fields[k].default]
            if given:  # never silently ignored (the benchmark's own options come after its name)
                raise click.UsageError(f"{given[0]} goes with --study (a benchmark's options come after its name)")
            if ctx.invoked_subcommand is None:
                click.echo(ctx.get_help())
            return
        if ctx.invoked_subcommand is not None:
            raise click.UsageError("--study serves the study's own benchmark: leave out the benchmark name")
        # deferred: aiohttp loads only when a server starts (`benchlab --help` stays quick)
        from benchlab.tui.web.online.serve_study import serve_study

        try:
            serve_study(model_from_click(StudyServeOptions, params))
        except OptionError as exc:
            raise reworded(exc, StudyServeOptions) from None

    assert isinstance(serve, cls)
    return serve


def run_group(cls: type[click.Group] = click.Group) -> click.Group:
    """``benchlab run BENCHMARK`` (one subcommand per task) or ``benchlab run --study DIR --participant P``."""

    @click.group(cls=cls, invoke_without_command=True, params=click_params(StudyRunOptions))
    @click.pass_context
    def run(ctx: click.Context, **params: object) -> None:
        """Run a human (or simulated) session.

        Either "benchlab run BENCHMARK [OPTIONS]", or "benchlab run --study DIR --participant P01": the benchmark,
        options and the participant's arm come from the study file.
        """
        if params.get("study") is None:
            if ctx.invoked_subcommand is None:
                click.echo(ctx.get_help())
            return
        if ctx.invoked_subcommand is not None:
            raise click.UsageError("--study runs the study's own benchmark: leave out the benchmark name")
        # deferred: the session engine loads only when a session starts (a help page never needs it)
        from benchlab.tui.commands.run import run_study

        try:
            run_study(model_from_click(StudyRunOptions, params))
        except OptionError as exc:
            raise reworded(exc, StudyRunOptions) from None

    assert isinstance(run, cls)
    return run
