"""``benchlab ... --help`` after a setting changed: every page laid out again from the help listing is the CLI's own
page (every command of the tree, at several widths), printed without importing pydantic or any declaration, and
the live CLI answers again when a file it loaded, a setting it read or the installed plug-ins change (a broken
plug-in's warning always comes from a live load)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.data.settings import reset_settings
from benchlab.tui import cli, help_listing
from benchlab.tui.help_cache import is_help_request
from tests.broken_plugins import install_broken
from tests.plugin_helpers import example_env
from tests.test_cli_wiring import TREE

#: Prints what it printed, then which of these modules the process imported (on stderr).
HEAVY = ("pydantic", "benchlab.annotations.registry", "benchlab.annotations.task", "benchlab.annotations.options")
PROBE = [sys.executable, "-c", "import sys; from benchlab.tui.entry import main; main(); "
         f"print('LOADED', sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"]
LIVE = [sys.executable, "-m", "benchlab.tui.cli"]


def _run(cmd: list[str], env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, timeout=120)


def _live_page(argv: list[str]) -> str:
    """The page the CLI itself prints for ``argv``, in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        cli.main(argv)
    return out.getvalue()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BENCHLAB_CACHE_DIR", str(tmp_path / "cache"))
    reset_settings()
    yield tmp_path / "cache"
    reset_settings()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100"}


@pytest.mark.parametrize("width", ["52", "80", "140"])
def test_every_page_of_the_tree_laid_out_from_the_listing_is_the_clis_page(cache: Path, width: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    help_listing.record_listing(cli.build_cli())  # recorded at one width, laid out at another
    monkeypatch.setenv("COLUMNS", width)
    for path in ["", *TREE]:
        argv = [*path.split(), "--help"]
        assert is_help_request(argv)
        assert help_listing.listed_help(argv) == _live_page(argv), path


def test_a_changed_file_that_the_cli_loaded_or_a_setting_it_read_retires_the_listing(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site" / "helplisting_probe"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    __import__("helplisting_probe")  # a module the CLI build imported
    try:
        help_listing.record_listing(cli.build_cli())
    finally:
        sys.modules.pop("helplisting_probe", None)
    argv = ["score", "--help"]
    assert help_listing.listed_help(argv) is not None
    monkeypatch.setenv("BENCHLAB_NOT_A_SETTING", "1")  # a variable nothing reads
    assert help_listing.listed_help(argv) is not None
    assert help_listing.listed_help(["score", "--no-such-help-word"]) is None
    monkeypatch.setenv("BENCHLAB_SHARED_DATASETS", str(tmp_path))  # a setting the CLI read
    assert help_listing.listed_help(argv) is None
    monkeypatch.delenv("BENCHLAB_SHARED_DATASETS")
    assert help_listing.listed_help(argv) is not None
    (package / "__init__.py").write_text("X = 22\n")  # an edit of a loaded file
    assert help_listing.listed_help(argv) is None


def test_after_a_setting_changed_a_help_page_loads_no_declaration(env: dict[str, str]) -> None:
    first = _run(PROBE, env, "fetch", "--no-such-option")  # through the whole CLI, which records the listing (a
    assert first.returncode == 2 and "No such option" in first.stderr  # help page would come from the cards)
    for argv in (["--help"], ["score", "--help"], ["score", "worldsense", "--help"], ["compare", "-h"],
                 ["run", "--help"]):
        changed = {**env, "BENCHLAB_SOMETHING_ELSE": " ".join(argv)}  # the help cache misses
        page = _run(PROBE, changed, *argv)
        assert page.returncode == 0 and page.stdout == _run(LIVE, changed, *argv).stdout
        assert "LOADED []" in page.stderr, (argv, page.stderr)


def test_a_first_command_records_the_listing_so_a_later_help_loads_no_declaration(env: dict[str, str]) -> None:
    """After an install the first thing run is often a command, not a help page: its whole-CLI build is recorded."""
    first = _run(PROBE, env, "fetch", "--no-such-option")  # any command through the whole CLI (here a usage error)
    assert first.returncode == 2 and "No such option" in first.stderr
    changed = {**env, "BENCHLAB_SOMETHING_ELSE": "1"}
    page = _run(PROBE, changed, "--help")
    assert page.returncode == 0 and page.stdout == _run(LIVE, changed, "--help").stdout
    assert "LOADED []" in page.stderr, page.stderr


def test_a_broken_plugin_is_warned_about_after_a_listing_was_recorded(tmp_path: Path, env: dict[str, str]) -> None:
    assert _run(PROBE, env, "fetch", "--no-such-option").returncode == 2  # records the listing, nothing broken
    (tmp_path / "site").mkdir()
    site = install_broken(tmp_path / "site")
    broken = {**env, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    for argv in (["--help"], ["--help"], ["score", "--help"]):
        proc = _run(PROBE, broken, *argv)
        assert proc.returncode == 0, proc.stderr
        if argv == ["--help"]:
            assert [line for line in proc.stdout.splitlines() if line.startswith("warning: 3 plug-ins failed")]
        assert "LOADED []" not in proc.stderr  # a live load each time


def test_with_a_plugin_installed_only_listings_are_laid_out_from_the_index(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    plugin = {**example_env(tmp_path / "plugin"), "BENCHLAB_CACHE_DIR": env["BENCHLAB_CACHE_DIR"],
              "COLUMNS": "100"}
    assert _run(PROBE, plugin, "--help").returncode == 0
    changed = {**plugin, "BENCHLAB_SOMETHING_ELSE": "1"}
    listing = _run(PROBE, changed, "run", "--help")  # declared options: live, since a plug-in may read the env
    assert "LOADED []" not in listing.stderr and listing.stdout == _run(LIVE, changed, "run", "--help").stdout
    changed = {**plugin, "BENCHLAB_SOMETHING_ELSE": "2"}
    root = _run(PROBE, changed, "--help")  # the root page may end with a plug-in's warning: live
    assert "LOADED []" not in root.stderr and root.stdout == _run(LIVE, changed, "--help").stdout
    changed = {**plugin, "BENCHLAB_SOMETHING_ELSE": "3"}
    score = _run(PROBE, changed, "score", "--help")
    assert "LOADED []" in score.stderr and score.stdout == _run(LIVE, changed, "score", "--help").stdout
