"""Broken plug-ins are visible: ``benchlab plugins`` lists each with its reason, ``benchlab --help`` and the
launcher show a one-line warning, and a command word only a broken plug-in would have added says why it is
missing (not click's bare ``No such command``). Run as a user runs it: ``benchlab`` in a subprocess with the
plug-ins on ``PYTHONPATH``."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from benchlab.annotations.plugins import Entry, GroupReport
from benchlab.tui import cli
from benchlab.tui.app import BenchlabApp
from benchlab.tui.screens.launcher import LauncherScreen
from benchlab.tui.tools import Tool
from tests.broken_plugins import install_broken
from tests.plugin_helpers import forget_loaded_plugins

CLI = [sys.executable, "-c", "from benchlab.tui.cli import main; main()"]


def benchlab(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_broken(tmp_path_factory.mktemp("site"))


def test_plugins_lists_loaded_and_broken_with_their_reasons(site: Path) -> None:
    proc = benchlab(site, "plugins", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout.split("\n", 1)[1])))  # after the "# title" line
    by_entry = {(r["group"], r["name"], r["package"]): r for r in rows}
    assert by_entry["benchlab.tasks", "worldsense", "benchlab"]["status"] == "loaded"
    assert by_entry["benchlab.tools", "fastbook", "benchlab"]["kind"] == "built-in"
    odd = by_entry["benchlab.tasks", "oddword", "benchlab-oddword"]
    assert (odd["kind"], odd["status"]) == ("plug-in", "broken")
    assert odd["reason"] == "SyntaxError: '(' was never closed (task.py, line 1)"
    assert "lower-case letters" in by_entry["benchlab.tasks", "odd_word", "benchlab-oddname"]["reason"]
    clash = by_entry["benchlab.tasks", "sort", "benchlab-oddsort"]["reason"]
    assert "already taken by sort = benchlab.annotations.sort.task:TASK (benchlab)" in clash
    assert by_entry["benchlab.tasks", "sort", "benchlab"]["status"] == "loaded"


def test_help_warns_in_one_line_and_the_builtin_sort_still_runs(site: Path) -> None:
    proc = benchlab(site, "--help")
    assert proc.returncode == 0, proc.stderr
    warning = [line for line in proc.stdout.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1
    assert warning[0].startswith("warning: 3 plug-ins failed to load: ")
    assert "oddword (benchlab-oddword): SyntaxError" in warning[0]
    assert "odd_word (benchlab-oddname)" in warning[0] and "sort (benchlab-oddsort)" in warning[0]
    assert warning[0].endswith("see benchlab plugins")
    assert "--simulate" in benchlab(site, "run", "sort", "--help").stdout  # the built-in keeps its name


@pytest.mark.parametrize("group", ["run", "score"])
def test_the_broken_plugins_word_says_why(site: Path, group: str) -> None:
    proc = benchlab(site, group, "oddword")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "benchlab: error: 'oddword' comes from a plug-in that failed to load: oddword (benchlab-oddword): "
        + proc.stderr.split("oddword (benchlab-oddword): ", 1)[1].strip()]
    assert "SyntaxError" in proc.stderr and "No such command" not in proc.stderr


def test_an_unknown_word_is_still_clicks_error(site: Path) -> None:
    proc = benchlab(site, "run", "nosuchtask")
    assert proc.returncode == 2 and "No such command 'nosuchtask'" in proc.stderr


@pytest.fixture
def broken_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The broken plug-ins on this process's path, every group loaded afresh (and again after the test)."""
    monkeypatch.syspath_prepend(str(install_broken(tmp_path)))
    forget_loaded_plugins()
    yield
    monkeypatch.undo()
    forget_loaded_plugins()


async def test_the_launcher_shows_the_warning_under_the_intro(broken_in_process: None) -> None:
    app = BenchlabApp()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LauncherScreen)
        text = str(app.screen.query_one("#plugin-warning", Static).render())
        assert text.startswith("warning: 3 plug-ins failed to load: ")
        assert "oddword (benchlab-oddword): SyntaxError" in text
        assert "\n" not in text.strip()
        menu = str([str(o.prompt) for o in app.screen.query_one("OptionList").options])  # type: ignore[attr-defined]
        assert "SORT" in menu or "sort" in menu.lower()  # the built-in line is still there


async def test_no_warning_when_everything_loads() -> None:
    app = BenchlabApp()
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert not app.screen.query("#plugin-warning")


def test_a_tool_whose_command_factory_fails_is_listed_with_a_one_line_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """The factory runs when the CLI is built: its error is the tool's reason (type and first line), the rest of
    the CLI is built as usual."""
    def factory() -> Any:
        raise RuntimeError("no editor here\nsecond line")

    entry = Entry("benchlab.tools", "oddtool", "oddtool:TOOL", "benchlab-oddtool")
    report = GroupReport("benchlab.tools", loaded=[(entry, Tool("oddtool", commands=[("curate", factory)]))])
    monkeypatch.setattr(cli, "tool_report", lambda: report)
    built = cli.build_cli()
    assert [(b.entry.name, b.reason) for b in report.broken] == [("oddtool", "RuntimeError: no editor here")]
    assert report.loaded == [] and "run" in built.commands
