"""``benchlab plugins``: every entry of the plug-in groups, loaded or broken (with the one-line reason)."""

from __future__ import annotations

import click

from benchlab.annotations.cards import help_of
from benchlab.data.tables import Table, render
from benchlab.tui.commands.format_option import FORMAT_OPTION
from benchlab.tui.core_cards import CARDS
from benchlab.tui.plugin_report import plugin_reports


@click.command("plugins", help=help_of(CARDS, "plugins"))
@FORMAT_OPTION
def plugins_command(fmt: str) -> None:
    # deferred: pandas loads only when the command runs (`benchlab --help` stays quick)
    import pandas as pd  # the table stack loads for this command only, not for every `benchlab` start

    rows: list[dict[str, str]] = []
    for report in plugin_reports():
        for entry, _ in report.loaded:
            rows.append({"group": report.group, "name": entry.name, "package": entry.package,
                         "kind": "built-in" if entry.builtin else "plug-in", "status": "loaded", "reason": ""})
        for broken in report.broken:
            entry = broken.entry
            rows.append({"group": report.group, "name": entry.name, "package": entry.package,
                         "kind": "built-in" if entry.builtin else "plug-in", "status": "broken",
                         "reason": broken.reason})
    frame = pd.DataFrame(rows, columns=["group", "name", "package", "kind", "status", "reason"])
    frame = frame.set_index(["group", "name"])
    click.echo(render([Table("benchlab plugins (entry-point groups)", frame)], fmt), nl=False)
