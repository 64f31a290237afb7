"""The experimenter's start page: one line per registered task (its title and description open its session form),
then the tools other modules register (Results, Curate fastbook ...)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from benchlab.tui import launcher_entries as _launcher_entries  # noqa: F401  (fills the tool entries)
from benchlab.tui.launcher_registry import ENTRIES
from benchlab.tui.session_start import tasks


def _line(title: str, description: str) -> Text:
    """Title, then the description dimmed; plain text, so a plug-in's brackets are never read as markup."""
    return Text.assemble(f"{title}\n", (description, "dim"))


class LauncherScreen(Screen[None]):
    CSS_PATH = "launcher.tcss"

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="launcher"):
            yield Static("Run a participant session, or open a tool. Enter selects, Ctrl+Q quits.", id="intro")
            options = [Option(_line(f"{task.title} session", task.description), id=f"task:{task.name}")
                       for task in tasks()]
            options += [Option(_line(e.title, e.description), id=f"entry:{e.id}") for e in ENTRIES.values()]
            yield OptionList(*options, id="menu")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        kind, _, name = (event.option.id or "").partition(":")
        if kind == "task":
            from benchlab.tui.screens.session_setup import SessionSetupScreen

            self.app.push_screen(SessionSetupScreen(tasks().get(name)))
        elif kind == "entry":
            ENTRIES[name].open(self.app)
