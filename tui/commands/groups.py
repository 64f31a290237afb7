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
def run() -> None:
    """Run a human (or simulated) session."""


@cli.group()
def bench() -> None:
    """Speed and memory benchmarks that print figures (for closing notes and methods sections)."""
