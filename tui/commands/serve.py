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

from benchlab.annotations.ids import IdError, check_id
from benchlab.annotations.task import Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.commands.declared import model_from_click, typed_on_command_line
from benchlab.tui.commands.task_pages import serve_page
from benchlab.tui.web.participants import read_participants
from benchlab.tui.web.serve_options import check_participant_options, column_names, plan_args, served_infos


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

    return serve_page(task, callback)
