"""The click command groups; declared commands (``benchlab.tui.commands.benchmark_commands``) and the session
commands attach themselves to these."""

from __future__ import annotations

import click

from benchlab.data.version import __version__

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["table", "csv", "json", "markdown", "latex"]), default="table",
    show_default=True, help="Output format of the tables.",
)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="benchlab")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """benchlab: LLM benchmarks in front of people, scored with the benchmarks' own rules.

    With no command, opens the launcher.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(demo_entry)


@cli.command("demo")
def demo_entry() -> None:
    """Open benchlab on the bundled sample (no network, no other data needed)."""
    from benchlab.tui.commands.demo import run_demo

    run_demo()


@cli.group()
def score() -> None:
    """Score human and model results with the benchmark's own scoring rules."""


@cli.group()
def fetch() -> None:
    """Download full benchmark data (checksummed, resumable)."""


@cli.group()
def compare() -> None:
    """Compare humans with models (tables with CIs and tests) and curators with each other."""


@cli.group()
def curate() -> None:
    """Curate benchmark annotations in the terminal (edits are undoable, logged and saved safely)."""


def _study_params() -> list[click.Parameter]:
    from benchlab.annotations.study_commands import StudyRunOptions
    from benchlab.tui.commands.declared import click_params

    return click_params(StudyRunOptions)


@cli.group(invoke_without_command=True, params=_study_params())
@click.pass_context
def run(ctx: click.Context, **params: object) -> None:
    """Run a human (or simulated) session.

    Either "benchlab run BENCHMARK [OPTIONS]", or "benchlab run --study DIR --participant P01": the benchmark,
    options and the participant's arm come from the study file.
    """
    from benchlab.annotations.study_commands import StudyRunOptions
    from benchlab.tui.commands.declared import model_from_click, reworded

    if params.get("study") is None:
        if ctx.invoked_subcommand is None:
            click.echo(ctx.get_help())
        return
    if ctx.invoked_subcommand is not None:
        raise click.UsageError("--study runs the study's own benchmark: leave out the benchmark name")
    from benchlab.annotations.options import OptionError
    from benchlab.tui.commands.run import run_study

    try:
        run_study(model_from_click(StudyRunOptions, params))
    except OptionError as exc:
        raise reworded(exc, StudyRunOptions) from None


@cli.group()
def bench() -> None:
    """Speed and memory benchmarks that print figures (for closing notes and methods sections)."""
