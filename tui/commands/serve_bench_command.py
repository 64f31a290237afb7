"""``benchlab bench serve``: the load test of ``benchlab serve``, apart from :mod:`benchlab.tui.commands.serve` (the
session engine) so that its help page is laid out from its card (:mod:`benchlab.tui.help_cards`) with click alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from benchlab.annotations.cards import help_of
from benchlab.data.errors import BenchlabError
from benchlab.tui.core_cards import CARDS


@click.command("serve", help=help_of(CARDS, "bench serve"))
@click.option("--sessions", default="1,5,10", show_default=True, help="Concurrent sessions per level (comma list).")
@click.option("--keys", type=click.IntRange(3, 500), default=12, show_default=True,
              help="Keys each light client sends per level.")
@click.option("--min-gap", type=float, default=2.5, show_default=True, help="Shortest pause between keys (s).")
@click.option("--max-gap", type=float, default=5.0, show_default=True, help="Longest pause between keys (s).")
@click.option("--probe/--no-probe", default=True, show_default=True, help="Add one real Chromium page per level.")
@click.option("--keep", type=click.Path(path_type=Path), default=None, help="Keep the session files here.")
@click.option("--task", "task", metavar="NAME", default=None,
              help="Task whose sessions are served; it must show choice trials (default: the first registered task "
              "with choice trials, in launcher order).")
@click.option("--json", "as_json", is_flag=True, default=False,
              help="One JSON object per level (sessions, record_p50_ms, record_p95_ms, start_p95_ms, rss_mib, cpu_pct, "
              "client_rt_error_p50_ms, client_rt_error_p95_ms, ...).")
@click.option("--terminal-page", is_flag=True, default=False,
              help="Measure the terminal-in-browser page (one app process per participant) instead of the native page.")
@click.option("--dataset", type=click.Path(exists=True, path_type=Path), default=None,
              help="The data set served (default: the task's full data set when this machine has it, under the "
              "shared datasets folder, else its bundled sample); the output names it.")
@click.option("--cold", is_flag=True, default=False,
              help="Open the links as soon as the server listens, before it has planned its participants' sessions "
              "ahead (default: after, as for a server started before its participants arrive).")
@click.option("--consent", is_flag=True, default=False,
              help="Serve a consent page first, as a study does: each client reads it for a key gap, then agrees "
              "(start is then link -> consent; consent_to_trial_p95_ms: agree -> the first question).")
def bench_serve(sessions: str, keys: int, min_gap: float, max_gap: float, probe: bool,
                keep: Path | None, task: str | None, as_json: bool, terminal_page: bool, dataset: Path | None,
                cold: bool, consent: bool) -> None:
    # deferred: aiohttp loads only when a server starts (`benchlab --help` stays quick)
    from benchlab.tui.harness.serve_load import run_bench

    try:
        levels: Sequence[int] = [int(s) for s in sessions.split(",") if s.strip()]
    except ValueError:
        raise BenchlabError(f"--sessions: expected numbers separated by commas, not {sessions!r}") from None
    if not levels or min(levels) < 1:
        raise BenchlabError("--sessions: every level must be at least 1")
    click.echo(run_bench(levels, keys=keys, gap=(min_gap, max_gap), probe=probe, keep=keep, task=task,
                         terminal_page=terminal_page, as_json=as_json, dataset=dataset, cold=cold,
                         consent=consent), nl=False)
