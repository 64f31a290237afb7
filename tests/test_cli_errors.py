"""The CLI's promise: a user error is one line naming the problem, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from benchlab.data.errors import BenchlabError
from benchlab.tui import cli as cli_module


def test_benchlab_error_prints_one_line_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command()
    def boom() -> None:
        raise BenchlabError("not valid JSON", Path("results/x.jsonl"), 7)

    with pytest.raises(SystemExit) as info:
        cli_module.main([], command=boom)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err == "benchlab: error: results/x.jsonl:7: not valid JSON\n"


def test_unexpected_bug_saves_a_report_instead_of_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command()
    def bug() -> None:
        raise ZeroDivisionError("oops")

    with pytest.raises(SystemExit) as info:
        cli_module.main([], command=bug)
    assert info.value.code == 70
    err = capsys.readouterr().err
    assert "Traceback" not in err and "ZeroDivisionError: oops" in err
    report = Path(err.rsplit("Report saved to ", 1)[1].strip())
    assert "ZeroDivisionError" in report.read_text()


def test_unknown_command_is_a_usage_error_without_traceback() -> None:
    proc = subprocess.run([sys.executable, "-m", "benchlab.tui.cli", "no-such-command"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "No such command" in proc.stderr and "Traceback" not in proc.stderr
