"""``benchlab serve NAME``: participants in a browser, one private link each (and ``benchlab bench serve``).

The command is generated from the same declarations as ``benchlab run NAME`` (its session and plan options), so
every plan option typed here reaches each participant's app unchanged; the participants file may set some of them
per participant (a ``condition`` column, a ``list`` column).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from benchlab.annotations.cards import help_of
from benchlab.annotations.ids import IdError, check_id
from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.declared import click_params, model_from_click, typed_on_command_line
from benchlab.tui.core_cards import CARDS
from benchlab.tui.web.participants import read_participants
from benchlab.tui.web.serve_options import (
    FROM_FILE,
    NOT_SERVED,
    check_participant_options,
    column_names,
    plan_args,
    served_infos,
)


def check_before_serving(task: Task, served: dict[str, Any], file: Path | None, out: Path,
                         add: Sequence[str]) -> None:
    """Everything that would make a server hand out links that cannot run, refused before anything changes: an
    output folder that is a file, a participants file that lists nobody, a participant whose options a session
    refuses (the file's rows and each ``--add`` id, checked before the file is changed)."""
    if out.exists() and not out.is_dir():
        raise BenchlabError("is a file; --out names the output folder", out)
    for pid in add:
        try:
            check_id(pid, "participant")
        except IdError as exc:
            raise BenchlabError(f"--add: {exc}") from None
    listed = read_participants(file, column_names(task)) if file is not None and file.exists() else []
    if not listed and not add:
        raise BenchlabError("the participants file lists nobody (add rows under its header, or use --add ID)", file)
    rows = [(p.id, dict(p.options)) for p in listed] + [(pid, {}) for pid in add]
    check_participant_options(task, served, rows, file)


def serve_command(task: Task) -> click.Command:
    def callback(**params: Any) -> None:
        # deferred: aiohttp loads only when a server starts (`benchlab --help` stays quick)
        from benchlab.tui.web.native import DeviceRule
        from benchlab.tui.web.serve_main import ServeConfig, add_and_report, run_server  # aiohttp: only when serving

        ctx = click.get_current_context()
        names = [i.name for i in served_infos(task)]
        typed = typed_on_command_line(ctx, names)
        values = {n: params[n] for n in names if n in typed}
        # Check the options once here (a wrong one is a one-line error before anything is served).
        checked = {k: v for k, v in params.items() if k in names}
        model_from_click(task.session_options, {**checked, "participant": "check"})
        model_from_click(task.plan_options, checked)
        if params["participants_file"] is None and not params["add"]:
            raise BenchlabError("give the participants with --participants FILE (a CSV with an 'id' column)")
        check_before_serving(task, checked, params["participants_file"], params["out_dir"], params["add"])
        config = ServeConfig(
            task=task, plan_args=plan_args(task, values), out=params["out_dir"].resolve(),
            participants_file=params["participants_file"], host=params["host"], port=params["port"],
            public_url=params["public_url"], max_starts=params["max_starts"], values=values,
            title=params["title"], native=not params["terminal_page"], node=params["node"],
            device=DeviceRule(require_computer=params["require_computer"], min_width=params["min_screen"][0],
                              min_height=params["min_screen"][1]),
        )
        if params["add"] and add_and_report(config, params["add"]):
            return
        run_server(config)

    extra = [
        click.Option(["--participants", "participants_file"], type=click.Path(path_type=Path), default=None,
                     help="CSV of participant ids (column 'id'; other columns set plan options per participant, "
                     "e.g. condition, list)."),
        click.Option(["--out", "out_dir"], type=click.Path(path_type=Path), required=True,
                     help="Output folder (results, links.csv and the saved links)."),
        click.Option(["--host"], default="127.0.0.1", show_default=True, help="Address to listen on."),
        click.Option(["--port"], type=click.IntRange(0, 65535), default=8000, show_default=True,
                     help="Port to listen on."),
        click.Option(["--public-url"], default=None,
                     help="Base URL participants see (behind a reverse proxy), e.g. https://lab.example.org."),
        click.Option(["--add"], multiple=True, metavar="ID",
                     help="Add a participant to the file (repeatable); a running server picks them up."),
        click.Option(["--title"], default="Research study", show_default=True,
                     help="The study's title: the browser tab and the page header show it (not the benchmark)."),
        click.Option(["--require-computer"], is_flag=True, default=False,
                     help="Before consent, refuse phones and tablets (a clear page; nothing is recorded)."),
        click.Option(["--min-screen"], type=(int, int), default=(0, 0), metavar="W H",
                     help="Before consent, refuse screens smaller than W x H CSS pixels (either orientation)."),
        click.Option(["--node"], default=None, metavar="NAME",
                     help="Serve OUT as one of several servers behind a proxy (HAProxy/nginx routing by token); "
                     "each session is live on one node at a time (its lock), the others take it over if it dies."),
        click.Option(["--terminal-page"], is_flag=True, default=False,
                     help="Serve the terminal-in-browser page (one app process per participant) even when the "
                     "trial kind has a native web page."),
        click.Option(["--max-starts"], type=click.IntRange(1, 64), default=2, show_default=True,
                     help="Sessions starting at once (others see a 'please wait' page)."),
    ]
    params = click_params(task.session_options, task.plan_options, exclude=(*NOT_SERVED, *FROM_FILE))
    help_text = (f"Serve {task.title} sessions in a web browser: one private link per participant "
                 f"(printed and written to OUT/links.csv).\n\n{task.description}")
    return click.Command(task.name, params=[*params, *extra], callback=callback, help=help_text)


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
