"""``benchlab ... --help`` from the command cards on the first call (after an install, or after an edit of a file
the CLI imports): every page the cards lay out is the CLI's own page (the whole tree, several widths), every
command has one card and every card a command (the declarations take their help from the cards; the commands a
task's title makes say what their cards say), a group's page imports no declaration and a command's page only its
own, and a plug-in without cards (or a broken one) is answered by the whole CLI, as before."""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from benchlab.tui import cli
from benchlab.tui.help_cards import all_cards, carded_help
from tests.broken_plugins import install_broken
from tests.plugin_helpers import example_env
from tests.test_cli_wiring import TREE, paths

#: The pages the cards lay out with benchlab alone installed: every page (a task's ``run NAME`` / ``serve NAME``
#: from its face, the tools' commands from their cards in the tui).
CARDED = ["", *TREE]
MODULES = ("pydantic", "benchlab.annotations.registry", "benchlab.annotations.worldsense.commands",
           "benchlab.annotations.sort.commands", "benchlab.annotations.fastbook.commands")
PROBE = [sys.executable, "-c", "import sys; from benchlab.tui.entry import main; main(); "
         f"print('LOADED', sorted(m for m in {MODULES!r} if m in sys.modules), file=sys.stderr)"]
LIVE = [sys.executable, "-m", "benchlab.tui.cli"]


def _live_page(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        cli.main(argv)
    return out.getvalue()


def _run(cmd: list[str], env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100"}


@pytest.mark.parametrize("width", ["52", "80", "140"])
def test_every_page_laid_out_from_the_cards_is_the_clis_page(width: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", width)
    laid_out = []
    for path in ["", *TREE]:
        argv = [*path.split(), "--help"]
        page = carded_help(argv)
        if page is not None:
            assert page == _live_page(argv), path
            laid_out.append(path)
    assert laid_out == CARDED


def test_every_command_has_one_card_and_every_card_a_command() -> None:
    """A command without a card would be missing from its group's page; a card without one would list a ghost."""
    cards = all_cards()
    assert cards is not None
    assert sorted(cards) == sorted(paths(cli.build_cli()))


def _first_paragraph(text: str) -> str:
    return " ".join(inspect.cleandoc(text).split("\n\n")[0].split())


def test_the_run_and_serve_commands_a_task_makes_say_what_their_cards_say() -> None:
    """``run NAME`` / ``serve NAME`` are made from the task's title (not from the card), and open with the card."""
    cards = all_cards()
    assert cards is not None
    root = cli.build_cli()
    made = [card for path, card in cards.items() if path.split()[0] in ("run", "serve") and " " in path]
    assert len(made) == 4  # WorldSense's and SORT's
    for card in made:
        group, name = card.path.split()
        command = root.get_command(click.Context(root), group)
        assert isinstance(command, click.Group)
        command = command.get_command(click.Context(command), name)
        assert command is not None and command.help is not None, card.path
        assert _first_paragraph(command.help) == _first_paragraph(card.help), card.path


def test_the_first_group_page_imports_no_declaration_and_a_command_page_only_its_own(env: dict[str, str]) -> None:
    for argv in (["--help"], ["score", "--help"], ["compare", "-h"]):
        page = _run(PROBE, env, *argv)  # an empty cache: no help text, no listing
        assert page.returncode == 0 and page.stdout == _run(LIVE, env, *argv).stdout
        assert "LOADED []" in page.stderr, (argv, page.stderr)
    page = _run(PROBE, env, "score", "worldsense", "--help")
    assert page.returncode == 0 and page.stdout == _run(LIVE, env, "score", "worldsense", "--help").stdout
    # its own declaration, and no pydantic: the options models behind it are built only when values are checked
    assert "LOADED ['benchlab.annotations.worldsense.commands']" in page.stderr, page.stderr


ENGINE = ("pydantic", "benchlab.annotations.registry", "benchlab.annotations.session.runner",
          "benchlab.annotations.worldsense.task", "benchlab.annotations.sort.task", "benchlab.tui.cli")
ENGINE_PROBE = [sys.executable, "-c", "import sys; from benchlab.tui.entry import main; main(); "
                f"print('LOADED', sorted(m for m in {ENGINE!r} if m in sys.modules), file=sys.stderr)"]


@pytest.mark.parametrize("argv", [["run", "worldsense"], ["serve", "sort"], ["curate", "fastbook"],
                                  ["bench", "sort-screen"], ["bench", "curate-fastbook"]])
def test_a_task_or_tool_command_page_loads_neither_the_task_nor_pydantic(argv: list[str],
                                                                         env: dict[str, str]) -> None:
    """A task's ``run``/``serve`` page comes from its face, a tool's page from its own module (an empty cache)."""
    page = _run(ENGINE_PROBE, env, *argv, "--help")
    assert page.returncode == 0 and page.stdout == _run(LIVE, env, *argv, "--help").stdout
    assert "LOADED []" in page.stderr, page.stderr


def _carded_plugin(folder: Path) -> Path:
    """A plug-in that declares a benchmark with no commands and gives its (empty) list of cards."""
    (folder / "carded_pkg").mkdir(parents=True)
    (folder / "carded_pkg" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "carded_pkg" / "task.py").write_text(
        "class Declared:\n    name = 'carded'\n    title = 'Carded'\n    description = 'Declares itself.'\n"
        "    commands = ()\n\n\nTASK = Declared()\nCARDS = ()\n", encoding="utf-8")
    info = folder / "benchlab_carded-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: benchlab-carded\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[benchlab.tasks]\ncarded = carded_pkg.task:TASK\n\n"
                                           "[benchlab.cards]\ncarded = carded_pkg.task:CARDS\n", encoding="utf-8")
    return folder


def _with_path(env: dict[str, str], folder: Path, cache: Path) -> dict[str, str]:
    return {**env, "BENCHLAB_CACHE_DIR": str(cache),
            "PYTHONPATH": os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])}


def test_a_plugin_with_cards_has_its_group_pages_laid_out_from_them_but_not_the_root(tmp_path: Path,
                                                                                    env: dict[str, str]) -> None:
    carded = _with_path(env, _carded_plugin(tmp_path / "site"), tmp_path / "cache")
    score = _run(PROBE, carded, "score", "--help")
    assert score.stdout == _run(LIVE, carded, "score", "--help").stdout and "LOADED []" in score.stderr
    root = _run(PROBE, carded, "--help")  # the root page may end with a plug-in's warning: always live
    assert root.stdout == _run(LIVE, carded, "--help").stdout and "'benchlab.annotations.registry'" in root.stderr


def test_a_plugin_without_cards_or_a_broken_one_is_answered_by_the_whole_cli(tmp_path: Path,
                                                                            env: dict[str, str]) -> None:
    plugin = {**example_env(tmp_path / "plugin"), "COLUMNS": "100"}
    for argv in (["compare", "--help"], ["score", "--help"]):  # its commands are known only by loading it
        first = {**plugin, "BENCHLAB_CACHE_DIR": str(tmp_path / argv[0])}  # an empty cache: no listing either
        page = _run(PROBE, first, *argv)
        assert page.stdout == _run(LIVE, first, *argv).stdout and "numbers" in page.stdout
        assert "'benchlab.annotations.registry'" in page.stderr
    (tmp_path / "site").mkdir()
    broken = _with_path(env, install_broken(tmp_path / "site"), tmp_path / "other-cache")
    for argv in (["--help"], ["score", "--help"]):
        proc = _run(PROBE, broken, *argv)
        assert proc.returncode == 0 and "'benchlab.annotations.registry'" in proc.stderr, proc.stderr
    assert "warning: 3 plug-ins failed" in _run(PROBE, broken, "--help").stdout


def test_a_command_page_is_recorded_with_only_the_files_it_loaded(env: dict[str, str]) -> None:
    """An edit of a file the page did not load (``tui/cli.py``, another benchmark's commands) keeps the record."""
    argv = ["score", "worldsense", "--help"]
    first = _run(PROBE, env, *argv)
    assert first.returncode == 0 and "'benchlab.annotations.worldsense.commands'" in first.stderr
    [record] = Path(env["BENCHLAB_CACHE_DIR"]).rglob("page-*.json")
    files = {Path(stamp[0]).as_posix() for stamp in json.loads(record.read_text(encoding="utf-8"))["files"]}
    assert any(f.endswith("worldsense/commands.py") for f in files)
    assert any(f.endswith("worldsense/cards.py") for f in files)  # its help: an edit of the card shows at once
    assert not [f for f in files if f.endswith(("tui/cli.py", "sort/commands.py", "fastbook/commands.py"))]
    changed = {**env, "BENCHLAB_SOMETHING_ELSE": "1", "COLUMNS": "61"}  # the help cache misses
    again = _run(PROBE, changed, *argv)
    assert again.stdout == _run(LIVE, changed, *argv).stdout and "LOADED []" in again.stderr
