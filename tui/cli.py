"""Entry point of the ``benchlab`` command: one clear line for user errors, never a traceback."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from benchlab.data.errors import BenchlabError
from benchlab.tui import crash
from benchlab.tui.commands import benchmark_commands as _declared  # noqa: F401
from benchlab.tui.commands import groups
from benchlab.tui.commands import run as _session  # noqa: F401
from benchlab.tui.commands import serve as _serve  # noqa: F401
from benchlab.tui.fastbook.curate_command import BENCH_COMMAND, CURATE_COMMAND

# Importing a command module registers its commands on the groups (one line per module, kept sorted).

cli = groups.cli
groups.curate.add_command(CURATE_COMMAND)
groups.bench.add_command(BENCH_COMMAND)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI; exit 2 with ``benchlab: error: ...`` on bad input, 70 with a crash report on a bug."""
    try:
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
        click.echo(crash.crash_line(exc, crash.write_report(exc)), err=True)
        sys.exit(crash.EXIT_CODE)


if __name__ == "__main__":
    main()
