"""``benchlab timing-check``: apart from the session commands (:mod:`benchlab.tui.commands.run`) so that its help
page, laid out from its command card (:mod:`benchlab.tui.help_cards`), loads click alone."""

from __future__ import annotations

from pathlib import Path

import click

from benchlab.annotations.cards import help_of
from benchlab.tui.core_cards import CARDS


@click.command("timing-check", help=help_of(CARDS, "timing-check"))
@click.option("--trials", type=int, default=60, show_default=True, help="Scripted key presses to send.")
@click.option("--min-delay", type=float, default=0.3, show_default=True, help="Shortest scripted RT (seconds).")
@click.option("--max-delay", type=float, default=0.8, show_default=True, help="Longest scripted RT (seconds).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the scripted RTs.")
@click.option("--keep", type=click.Path(path_type=Path), default=None, help="Keep the session files in this folder.")
@click.option("-t", "--testset", type=click.Path(path_type=Path), default=None,
              help="Data set whose questions are shown (default: the task's bundled sample).")
@click.option("--task", "task", metavar="NAME", default=None,
              help="Task whose session is driven; it must show choice trials (default: the first registered task "
              "with choice trials, in launcher order).")
def timing_check(trials: int, min_delay: float, max_delay: float, seed: int, keep: Path | None,
                 testset: Path | None, task: str | None) -> None:
    # deferred: loaded only when the command runs (`benchlab --help` imports every command module)
    from benchlab.annotations.report.timing import save_last_timing_check
    from benchlab.tui.harness.timing_check import run_timing_check

    report = run_timing_check(n_trials=trials, min_delay=min_delay, max_delay=max_delay, seed=seed, keep=keep,
                              testset=str(testset) if testset else None, task=task)
    click.echo(report)
    save_last_timing_check(report)  # benchlab report shows the last check made on this machine
