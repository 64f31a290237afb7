"""How ``benchlab`` runs a click command: one clear line for user errors, a crash report for a bug, never a
traceback. Apart from :mod:`benchlab.tui.cli` so that a command routed straight to its declaration
(:mod:`benchlab.tui.command_routes`) runs the same way without importing the whole CLI."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import click

from benchlab.data.errors import BenchlabError


def run_guarded(argv: Sequence[str] | None, make: Callable[[], click.Command]) -> None:
    """Run the command ``make`` gives (made inside the guard: a failing build is reported like any bug); exit 2
    with ``benchlab: error: ...`` on bad input, 70 with a crash report on a bug."""
    try:
        cli = make()
        cli.main(args=list(argv) if argv is not None else None, prog_name="benchlab", standalone_mode=False)
    except BenchlabError as exc:
        click.echo(f"benchlab: error: {exc}", err=True)
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        click.echo("benchlab: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # a bug, in the CLI or inside the app (its terminal is restored by then)
        # deferred: the crash report's modules (platform, importlib.metadata, the settings) load only on a crash
        from benchlab.tui import crash

        click.echo(crash.crash_line(exc, crash.write_report(exc)), err=True)
        sys.exit(crash.EXIT_CODE)
