"""``benchlab`` / ``benchlab demo``: open the launcher (each task on its bundled sample by default, the first-ranked
first)."""

from __future__ import annotations

import click

from benchlab.tui.app import BenchlabApp


def run_demo() -> None:
    """Open the launcher; print what each session recorded once the app closes."""
    app = BenchlabApp()
    app.run()
    for summary in app.summaries:
        click.echo(summary)
    if app.error is not None:
        raise app.error
