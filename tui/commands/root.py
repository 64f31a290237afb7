"""The ``benchlab`` root group and its launcher command (``demo``) as the CLI makes them: apart from
:mod:`benchlab.tui.commands.groups` (pydantic options, the plug-in report) so that a help page laid out from the
command cards (:mod:`benchlab.tui.help_cards`) has the same usage line, options and help as the live CLI, from
click alone."""

from __future__ import annotations

import click

from benchlab.annotations.cards import help_of
from benchlab.tui.core_cards import CARDS

#: the root's help options (its groups inherit them)
HELP_WORDS = ("-h", "--help")


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: what ``click.version_option`` prints, with the version read only when it is asked for (reading
    it imports ``importlib.metadata``, ~30 ms that no help page needs)."""
    if not value or ctx.resilient_parsing:
        return
    # deferred: importlib.metadata loads only for --version
    from benchlab.data.version import __version__

    click.echo(f"benchlab, version {__version__}", color=ctx.color)
    ctx.exit()


def root_group(cls: type[click.Group] = click.Group, launcher: click.Command | None = None) -> click.Group:
    """``benchlab`` with no command: the launcher (``launcher``; none for a group that only prints its help)."""

    @click.group(cls=cls, invoke_without_command=True, context_settings={"help_option_names": list(HELP_WORDS)})
    @click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
                  help="Show the version and exit.")  # click.version_option's, the version read when asked
    @click.pass_context
    def cli(ctx: click.Context) -> None:
        """benchlab: LLM benchmarks in front of people, scored with the benchmarks' own rules.

        With no command, opens the launcher.
        """
        if ctx.invoked_subcommand is None and launcher is not None:
            ctx.invoke(launcher)

    assert isinstance(cli, cls)
    return cli


@click.command("demo", help=help_of(CARDS, "demo"))
def demo_entry() -> None:
    """The launcher on the bundled sample."""
    # deferred: Textual loads only when the app starts (`benchlab --help` stays quick)
    from benchlab.tui.commands.demo import run_demo  # the app (Textual) loads only when it is opened

    run_demo()
