"""The ``benchlab`` console script's help cache: the same text as the CLI's own ``--help`` (first and cached),
printed from the cache without importing click or any declaration, recomputed when a source, plug-in or setting
changes, and never cached while a plug-in is broken (its warning comes from a live load every time)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.tui import help_cache
from tests.broken_plugins import install_broken

ENTRY = [sys.executable, "-c", "import sys; from benchlab.tui.entry import main; main()"]
CLI = [sys.executable, "-c", "from benchlab.tui.cli import main; main()"]
PROBE = [sys.executable, "-c", "import sys; from benchlab.tui.entry import main; main(); "
         "print('LOADED', sorted(m for m in ('click', 'pydantic', 'benchlab.annotations.registry') "
         "if m in sys.modules), file=sys.stderr)"]
#: each request, and what its first call (nothing cached) loads: a group's page comes from the command cards
#: (click alone; ``run``'s own options need pydantic, and their module imports the registry's), a declared
#: command's from its declaration, a task's ``run`` command from the task's face (its options, not the task)
# a command's own page loads its declaration but no pydantic (options are plain data until values are checked)
ARGVS = {"--help": "['click']", "score worldsense --help": "['click']",
         "run --help": "['benchlab.annotations.registry', 'click']", "score -h": "['click']",
         "run worldsense --help": "['click']"}


def _run(cmd: list[str], env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100"}


@pytest.mark.parametrize("request_", ARGVS)
def test_cached_help_is_the_clis_help_and_loads_no_declaration(env: dict[str, str], request_: str) -> None:
    argv = request_.split()
    expected = _run(CLI, env, *argv)
    assert expected.returncode == 0 and "Usage: benchlab" in expected.stdout
    first, second = _run(PROBE, env, *argv), _run(PROBE, env, *argv)
    assert first.stdout == second.stdout == expected.stdout
    assert f"LOADED {ARGVS[request_]}" in first.stderr  # computed
    assert "LOADED []" in second.stderr, second.stderr  # printed from the cache


def test_anything_but_a_help_request_runs_the_cli(env: dict[str, str]) -> None:
    assert help_cache.is_help_request(["score", "worldsense", "--help"])
    for argv in (["score", "worldsense", "-t", "x", "--help"], ["--format=csv", "--help"], [], ["plugins"]):
        assert not help_cache.is_help_request(argv)
    wrong = _run(ENTRY, env, "nosuchcommand", "--help")
    assert wrong.returncode == 2 and "nosuchcommand" in wrong.stderr
    assert not list(Path(env["BENCHLAB_CACHE_DIR"]).rglob("help-*.json"))  # a failed help is not stored


def test_a_changed_source_setting_or_width_gives_a_new_fingerprint(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site" / "helpfp_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(help_cache, "_BENCHLAB_PACKAGES", (*help_cache._BENCHLAB_PACKAGES, "helpfp_pkg"))
    seen = {help_cache.fingerprint()}
    (package / "__init__.py").write_text("X = 22\n")  # a declaration's help text edited
    seen.add(help_cache.fingerprint())
    monkeypatch.setenv("BENCHLAB_SOMETHING", "1")
    seen.add(help_cache.fingerprint())
    monkeypatch.setenv("COLUMNS", "61")
    seen.add(help_cache.fingerprint())
    (tmp_path / "site" / "newdep-1.0.dist-info").mkdir()  # a distribution installed (or removed)
    seen.add(help_cache.fingerprint())
    assert len(seen) == 5


def test_broken_plugins_are_warned_about_on_every_help(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "site").mkdir()
    site = install_broken(tmp_path / "site")
    env = {**env, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    for _ in range(2):
        proc = _run(ENTRY, env, "--help")
        assert proc.returncode == 0, proc.stderr
        assert [line for line in proc.stdout.splitlines() if line.startswith("warning: 3 plug-ins failed")]
    assert not list(Path(env["BENCHLAB_CACHE_DIR"]).rglob("help-*.json"))


def test_an_unusable_cache_folder_still_prints_the_help(tmp_path: Path, env: dict[str, str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {**env, "BENCHLAB_CACHE_DIR": str(blocker / "cache")}
    for _ in range(2):
        proc = _run(ENTRY, env, "score", "--help")
        assert proc.returncode == 0 and "worldsense" in proc.stdout and not proc.stderr
