"""``benchlab bench startup`` prints one line per help request with the five measurements, the target and the
load (figures, never timed assertions)."""

from __future__ import annotations

import click
import pytest

from benchlab.annotations.harness import startup_bench
from benchlab.annotations.harness.startup_bench import GROUP_HELP_REQUESTS, help_requests, startup_figures
from benchlab.annotations.registry import registry
from benchlab.tui.cli import build_cli


def test_bench_startup_prints_every_help_request_against_the_target(monkeypatch: pytest.MonkeyPatch) -> None:
    # the edit is stood in for: touching this checkout's tui/cli.py would make the help listing and every stored
    # replay stale for the tests running beside this one (pytest -n 2), which then computed and failed at random
    edits: list[bool] = []
    monkeypatch.setattr(startup_bench, "_edit_a_file_the_cli_imports", lambda: edits.append(True) or True)
    text = startup_figures(1)
    assert len(edits) == len(help_requests())
    lines = text.splitlines()
    assert "target 0.15 s" in lines[0] and "load" in lines[0]
    for args in help_requests():
        row = next(line for line in lines if line.startswith("benchlab " + " ".join(args) + " "))
        assert row.count(" cpu") == 5  # the edit case too


def test_bench_startup_is_a_command_of_the_bench_group() -> None:
    cli = build_cli()
    bench = cli.get_command(click.Context(cli), "bench")
    assert isinstance(bench, click.Group)
    assert bench.get_command(click.Context(bench), "startup") is not None


def test_bench_startup_times_a_score_and_a_compare_command_found_through_the_registry() -> None:
    requests = help_requests()
    assert set(GROUP_HELP_REQUESTS) <= set(requests)
    for group in ("score", "compare"):
        found = [r for r in requests if r[0] == group and len(r) == 3]
        assert len(found) == 1
        names = {c.name or b.name for b in registry().benchmarks.values() for c in b.commands if c.group == group}
        assert found[0][1] in names
