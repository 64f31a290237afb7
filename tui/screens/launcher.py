"""The experimenter's start page: participant tasks and tools from the registries (others add entries there)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from benchlab.annotations.registry import registry
from benchlab.tui import launcher_entries as _launcher_entries  # noqa: F401  (fills the registries)
from benchlab.tui.task_registry import ENTRIES


class LauncherScreen(Screen[None]):
    CSS_PATH = "launcher.tcss"

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="launcher"):
            yield Static("Run a participant session, or open a tool. Enter selects, Ctrl+Q quits.", id="intro")
            options = [
                Option(f"{task.title} session\n[dim]{task.description}[/dim]", id=f"task:{name}")
                for name, task in registry().tasks.items()
            ]
            options += [Option(f"{e.title}\n[dim]{e.description}[/dim]", id=f"entry:{e.id}") for e in ENTRIES.values()]
            yield OptionList(*options, id="menu")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        kind, _, name = (event.option.id or "").partition(":")
        if kind == "task":
            from benchlab.tui.screens.session_setup import SessionSetupScreen

            self.app.push_screen(SessionSetupScreen(registry().get(name)))
        elif kind == "entry":
            ENTRIES[name].open(self.app)
