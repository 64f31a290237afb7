"""``benchlab demo``: the main job on the bundled sample."""

from __future__ import annotations

import click


def run_demo() -> None:
    """Until the app lands, score the bundled WorldSense sample and print its tables."""
    from benchlab.tui.commands.worldsense import score_sample_demo

    click.echo(score_sample_demo())
