"""``benchlab bench sort-screen``: declared like every other command (options in ``benchlab.annotations.sort``),
but its harness drives the Textual trial screen on a pseudo-terminal, so the function lives here in the tui."""

from __future__ import annotations

import json

from benchlab.annotations.cards import help_of
from benchlab.annotations.sort.commands import ScreenBenchOptions
from benchlab.annotations.task import Command
from benchlab.tui.sort.cards import CARDS


def bench_sort_screen(opts: ScreenBenchOptions) -> str:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    from benchlab.tui.sort.screen_bench import run_sort_screen_bench, summarise

    figures = run_sort_screen_bench(trials=opts.trials, words=opts.words)
    return json.dumps(figures, indent=2) if opts.as_json else summarise(figures)


SCREEN_BENCH = Command("bench", help_of(CARDS, "bench sort-screen"), ScreenBenchOptions, bench_sort_screen,
                       name="sort-screen")
