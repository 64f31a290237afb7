"""``--format``, the option every table command shares (its own module, so a benchmark's command module can use it
without importing the CLI's groups)."""

from __future__ import annotations

import click

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["table", "csv", "json", "markdown", "latex"]), default="table",
    show_default=True, help="Output format of the tables.",
)
