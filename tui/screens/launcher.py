"""The experimenter's start page: one line per registered task (its title and description open its session form),
then benchlab's own lines (Results, Sessions, Open study) and the launcher lines of the ``benchlab.tools`` entries
(a benchmark's curation editor ...); a one-line warning under the intro when a plug-in failed to load."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from benchlab.tui.launcher_entries import CORE_ENTRIES, LauncherEntry
from benchlab.tui.plugin_report import warning_line
from benchlab.tui.screens.session_setup import SessionSetupScreen
from benchlab.tui.session_handover import tasks
from benchlab.tui.tools import tool_entries


def _line(title: str, description: str) -> Text:
    """Title, then the description dimmed; plain text, so a plug-in's brackets are never read as markup."""
    return Text.assemble(f"{title}\n", (description, "dim"))


def launcher_entries() -> dict[str, LauncherEntry]:
    """benchlab's own lines, then the tools' lines, by id (the order they are listed)."""
    return {entry.id: entry for entry in (*CORE_ENTRIES, *tool_entries())}


class LauncherScreen(Screen[None]):
    CSS_PATH = "launcher.tcss"

    def __init__(self) -> None:
        super().__init__()
        self.entries = launcher_entries()

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="launcher"):
            yield Static("Run a participant session, or open a tool. Enter selects, Ctrl+Q quits.", id="intro")
            warning = warning_line()
            if warning is not None:
                yield Static(Text(warning), id="plugin-warning")
            options = [Option(_line(f"{task.title} session", task.description), id=f"task:{task.name}")
                       for task in tasks()]
            options += [Option(_line(e.title, e.description), id=f"entry:{e.id}") for e in self.entries.values()]
            yield OptionList(*options, id="menu")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        kind, _, name = (event.option.id or "").partition(":")
        if kind == "task":
            self.app.push_screen(SessionSetupScreen(tasks().get(name)))
        elif kind == "entry":
            self.app.push_screen(self.entries[name].screen())
