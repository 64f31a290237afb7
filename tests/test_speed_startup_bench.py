"""``benchlab bench startup`` prints one line per help request with the three measurements, the target and the
load (figures, never timed assertions)."""

from __future__ import annotations

import click

from benchlab.annotations.harness.startup_bench import HELP_REQUESTS, startup_figures
from benchlab.tui.cli import build_cli


def test_bench_startup_prints_every_help_request_against_the_target() -> None:
    text = startup_figures(1)
    lines = text.splitlines()
    assert "target 0.15 s" in lines[0] and "load" in lines[0]
    for args in HELP_REQUESTS:
        row = next(line for line in lines if line.startswith("benchlab " + " ".join(args) + " "))
        assert row.count(" cpu") == 3


def test_bench_startup_is_a_command_of_the_bench_group() -> None:
    cli = build_cli()
    bench = cli.get_command(click.Context(cli), "bench")
    assert isinstance(bench, click.Group)
    assert bench.get_command(click.Context(bench), "startup") is not None
