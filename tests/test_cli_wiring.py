"""The CLI and the launcher are built from explicit lists: the same command tree as before the lists, nothing
added to a group by importing a module, and every launcher line opening its screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest

from benchlab.tui.app import BenchlabApp
from benchlab.tui.cli import build_cli
from benchlab.tui.commands import groups
from benchlab.tui.screens.launcher import LauncherScreen

#: Every command path of ``benchlab`` (before the explicit list, plus ``plugins``): a command that goes missing,
#: or one added twice under another group, fails here.
TREE = [
    "bench", "bench booksort", "bench compare", "bench coverage", "bench curate-fastbook", "bench fastbook",
    "bench faults", "bench models", "bench serve", "bench sort-screen", "bench startup", "bench worldsense",
    "booksort", "booksort check", "booksort info", "booksort make",
    "compare", "compare fastbook", "compare sort", "compare worldsense",
    "curate", "curate fastbook",
    "demo",
    "export", "export trials",
    "fastbook", "fastbook assign", "fastbook audit", "fastbook baseline", "fastbook chapters", "fastbook chunks",
    "fastbook import-run", "fastbook oracle",
    "fetch", "fetch worldsense",
    "models", "models export", "models import", "models list", "models run",
    "plugins",
    "power", "power sort", "power worldsense",
    "release", "report",
    "run", "run sort", "run worldsense",
    "score", "score fastbook", "score sort", "score worldsense",
    "serve", "serve sort", "serve worldsense",
    "study", "study init", "study reconcile", "study set-password", "study show",
    "timing-check",
    "withdraw",
]


def paths(group: click.Group, prefix: str = "") -> list[str]:
    out: list[str] = []
    commands = group.built() if isinstance(group, groups.PluginAwareGroup) else group.commands
    for name, cmd in sorted(commands.items()):
        out.append(f"{prefix}{name}")
        if isinstance(cmd, click.Group):
            out += paths(cmd, f"{prefix}{name} ")
    return out


def test_the_cli_has_every_command_it_had() -> None:
    assert paths(build_cli()) == TREE


def test_building_twice_gives_two_independent_clis() -> None:
    first, second = build_cli(), build_cli()
    assert first is not second
    for name in ("run", "score", "bench", "curate", "fastbook"):
        assert first.commands[name] is not second.commands[name]
    ctx = click.Context(first)
    assert first.commands["score"].get_command(ctx, "worldsense") is not second.commands["score"].get_command(  # type: ignore[attr-defined]
        ctx, "worldsense")
    first.add_command(click.Command("extra"))
    first.commands["score"].add_command(click.Command("extra"))  # type: ignore[attr-defined]
    assert "extra" not in second.commands and not second.commands["score"].holds("extra")  # type: ignore
    assert paths(build_cli()) == TREE


def test_a_group_is_empty_until_the_builder_fills_it() -> None:
    """Nothing attaches itself on import: a fresh group holds no command."""
    for make in (groups.run_group, groups.score_group, groups.bench_group, groups.serve_group):
        assert make().built() == {}
    assert set(groups.root_group().commands) == set()


def test_the_old_cli_name_still_works() -> None:
    from benchlab.tui import cli

    assert paths(cli.cli) == TREE


@pytest.mark.parametrize(("line", "screen"), [
    ("results", "ResultsScreen"), ("sessions", "SessionsScreen"), ("open-study", "StudyOpenScreen"),
    ("curate-fastbook", "CurateOpenScreen"),
])
async def test_each_launcher_line_opens_its_screen(line: str, screen: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = BenchlabApp()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LauncherScreen)
        menu: Any = app.screen.query_one("OptionList")
        ids = [menu.get_option_at_index(i).id for i in range(menu.option_count)]
        assert ids[-4:] == ["entry:results", "entry:sessions", "entry:open-study", "entry:curate-fastbook"]
        menu.highlighted = ids.index(f"entry:{line}")
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LauncherScreen)
