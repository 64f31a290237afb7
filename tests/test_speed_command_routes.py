"""``benchlab compare sort ...`` routed straight to SORT's declaration once the help listing knows it: the same
output, errors and exit codes as through the whole CLI, without importing the other benchmarks' declarations or
the CLI; a stale listing runs the whole CLI and records a new one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.data.samples import sample_path
from tests.test_compare_sort import sort_lab  # noqa: F401  (the fixture)

WATCHED = ("benchlab.tui.cli", "benchlab.annotations.registry", "benchlab.annotations.worldsense.commands",
           "benchlab.annotations.fastbook.commands", "benchlab.annotations.sort.commands")
PROBE = [sys.executable, "-c", "import sys; from benchlab.tui.entry import main\ntry:\n    main()\nfinally:\n    "
         f"print('LOADED', sorted(m for m in {WATCHED!r} if m in sys.modules), file=sys.stderr)"]
LIVE = [sys.executable, "-m", "benchlab.tui.cli"]


def _run(cmd: list[str], env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def _loaded(proc: subprocess.CompletedProcess[str]) -> str:
    return next(line for line in proc.stderr.splitlines() if line.startswith("LOADED"))


@pytest.fixture
def lab(sort_lab: Path) -> Path:  # noqa: F811  (the fixture imported above)
    """The folder holding ``results/`` (a model and two people, see tests/test_compare_sort.py)."""
    return sort_lab.parent


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100"}


def test_a_routed_command_prints_what_the_cli_prints_and_loads_one_declaration(lab: Path,
                                                                             env: dict[str, str]) -> None:
    # no listing yet: the whole CLI (other arguments than below, which a repeated comparison would replay)
    before = _run(PROBE, env, lab, "compare", "sort", "results", "--format", "json")
    assert "benchlab.tui.cli" in _loaded(before)
    assert _run(PROBE, env, lab, "--help").returncode == 0  # a help page in between changes nothing
    sample = str(sample_path("booksort", "test_e250_s20.parquet"))
    for args in (["compare", "sort", "results", "--format", "csv"], ["compare", "sort", "results", "--no-bins"],
                 ["booksort", "info", sample]):  # a command of a benchmark's own group too
        routed = _run(PROBE, env, lab, *args)
        live = _run(LIVE, env, lab, *args)
        assert routed.returncode == live.returncode == 0, routed.stderr
        assert routed.stdout == live.stdout and routed.stdout
        assert _loaded(routed) == "LOADED ['benchlab.annotations.sort.commands']"


@pytest.mark.parametrize("args", [["compare", "sort"], ["compare", "sort", "results", "--fast-ms", "-3"],
                                  ["compare", "sort", "results", "--no-such-flag"],
                                  ["compare", "sort", "no-such-folder"]], ids=" ".join)
def test_a_routed_command_fails_as_the_cli_does(lab: Path, env: dict[str, str], args: list[str]) -> None:
    # a first command builds the whole CLI and records its listing (a first --help is laid out from the cards and
    # records none)
    assert _run(PROBE, env, lab, "fetch", "--no-such-option").returncode == 2
    routed, live = _run(PROBE, env, lab, *args), _run(LIVE, env, lab, *args)
    assert routed.returncode == live.returncode != 0
    assert routed.stdout == live.stdout
    assert routed.stderr.replace(_loaded(routed) + "\n", "") == live.stderr
    assert "Traceback" not in routed.stderr
    assert "benchlab.tui.cli" not in _loaded(routed)


def test_a_stale_listing_runs_the_whole_cli_and_records_again(lab: Path, env: dict[str, str]) -> None:
    assert _run(PROBE, env, lab, "--help").returncode == 0
    changed = {**env, "BENCHLAB_SHARED_DATASETS": str(lab)}  # a setting the CLI read
    first = _run(PROBE, changed, lab, "compare", "sort", "results")
    assert first.returncode == 0 and "benchlab.tui.cli" in _loaded(first)
    second = _run(PROBE, changed, lab, "compare", "sort", "results")
    assert second.stdout == first.stdout and "benchlab.tui.cli" not in _loaded(second)


def test_commands_of_groups_with_options_and_unknown_words_are_never_routed(lab: Path, env: dict[str, str]) -> None:
    assert _run(PROBE, env, lab, "--help").returncode == 0
    wrong = _run(PROBE, env, lab, "compare", "nosuchbenchmark")
    assert wrong.returncode == 2 and "nosuchbenchmark" in wrong.stderr and "benchlab.tui.cli" in _loaded(wrong)
    plugins = _run(PROBE, env, lab, "plugins", "--format", "csv")  # a core command: the whole CLI
    assert plugins.returncode == 0 and "benchlab.tui.cli" in _loaded(plugins)


@pytest.mark.parametrize("damage", ["{not json", '{"nodes": []}', '{"nodes": {"compare": {"origins": '
                                    '{"sort": "no_such_module:X"}}}}'])
def test_a_damaged_listing_runs_the_whole_cli(lab: Path, env: dict[str, str], damage: str) -> None:
    listing = Path(env["BENCHLAB_CACHE_DIR"]) / "help" / "listing-v1.json"
    listing.parent.mkdir(parents=True)
    listing.write_text(damage)
    proc = _run(PROBE, env, lab, "compare", "sort", "results")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and "benchlab.tui.cli" in _loaded(proc)
    assert proc.stdout == _run(LIVE, env, lab, "compare", "sort", "results").stdout
