"""The click commands ``benchlab run NAME`` and ``benchlab serve NAME`` as a task's declarations make them: its
session and plan options as flags, its title and description as the help. Apart from the callbacks
(:mod:`benchlab.tui.commands.run`, :mod:`benchlab.tui.commands.serve`), which load the session engine and the web
server, so that a help page can be laid out from a task's face (:class:`~benchlab.annotations.task_face.TaskFace`,
named by its card) with click and the options alone (:mod:`benchlab.tui.help_cards`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import click

from benchlab.annotations.options import Options
from benchlab.annotations.task import SessionOptions
from benchlab.tui.commands.declared import click_params
from benchlab.tui.experimenter_keys import DEFAULT_KEYS
from benchlab.tui.web.serve_options import FROM_FILE, NOT_SERVED

Callback = Callable[..., None]


class TaskWords(Protocol):
    """What the two commands are made from: a :class:`~benchlab.annotations.task.Task` or its face."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def session_options(self) -> type[SessionOptions]: ...
    @property
    def plan_options(self) -> type[Options]: ...
    @property
    def simulated_policies(self) -> tuple[str, ...]: ...


def run_page(task: TaskWords, callback: Callback | None = None) -> click.Command:
    """``benchlab run <task.name>``: the task's session and plan options as flags, ``--simulate`` with its
    simulated participants; ``callback`` runs the session (none: a command that only prints its help)."""
    simulate = click.Option(["--simulate", "simulate"], type=click.Choice(list(task.simulated_policies)),
                            default=None, help="Run a simulated participant through the same engine and files "
                            "(pilot a design).")
    params = click_params(task.session_options, task.plan_options, exclude=("simulate",))
    at = next((i for i, p in enumerate(params) if p.name == "sim_delay"), len(params))
    params.insert(at, simulate)
    help_text = (f"Run a {task.title} session for one participant (kiosk mode; experimenter menu: "
                 f"{DEFAULT_KEYS.describe()}, or $BENCHLAB_EXPERIMENTER_KEYS).\n\n{task.description}")
    return click.Command(task.name, params=params, callback=callback, help=help_text)


def _serve_params() -> list[click.Parameter]:
    """``benchlab serve NAME``'s own options (after the task's)."""
    return [
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


def serve_page(task: TaskWords, callback: Callback | None = None) -> click.Command:
    """``benchlab serve <task.name>``: the task's served options, then the server's; ``callback`` serves (none: a
    command that only prints its help)."""
    params = click_params(task.session_options, task.plan_options, exclude=(*NOT_SERVED, *FROM_FILE))
    help_text = (f"Serve {task.title} sessions in a web browser: one private link per participant "
                 f"(printed and written to OUT/links.csv).\n\n{task.description}")
    return click.Command(task.name, params=[*params, *_serve_params()], callback=callback, help=help_text)


#: The page maker of each group whose commands a task's face makes (its card names the face).
TASK_PAGES: dict[str, Callable[[Any], click.Command]] = {"run": run_page, "serve": serve_page}
