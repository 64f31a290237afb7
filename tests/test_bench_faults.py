"""``benchlab bench faults`` with a few kills: real sessions killed with SIGKILL, resumed, and the counts printed;
and the harness's comparison sees a lost and a duplicated record when there is one."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchlab.annotations.harness import faults as session_faults
from benchlab.annotations.harness.faults import Tally, faults_table
from benchlab.tui.cli import main


class _KillAtTheEnd(random.Random):
    """Kill moments at the end of the span: the session has ended and every answer is on disk."""

    def uniform(self, a: float, b: float) -> float:
        return b

    def random(self) -> float:
        return 0.99  # not in start-up


@pytest.mark.slow
def test_bench_faults_kills_resumes_and_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "faults", "--kills", "2", "--seed", "3", "--sim-delay", "0.005", "--keep", str(tmp_path)])
    out = capsys.readouterr().out
    assert "lost 0, duplicated 0, resumed 2 of 2" in out, out
    assert "problem:" not in out
    # One WorldSense and one SORT session were killed and resumed in the kept folder.
    assert (tmp_path / "worldsense-000").is_dir() and (tmp_path / "sort-001").is_dir()


def test_the_harness_counts_a_lost_and_a_duplicated_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The resume that follows the kill is replaced by one that drops the first record and repeats the last: the
    harness must say so (a harness that cannot see a loss proves nothing)."""
    real_run = session_faults.subprocess.run

    def damaging_run(args: list[str], **kw: object) -> object:
        done = real_run(args, **kw)  # type: ignore[call-overload]
        folder = Path(args[args.index("--out") + 1]) / "results"
        if done.returncode == 0 and folder.is_dir():
            results = next(folder.iterdir())
            lines = results.read_text().splitlines(keepends=True)
            results.write_text("".join([lines[0], *lines[2:], lines[-1]]))  # sort: header kept, row 1 dropped
        return done

    # the task's reader of its records comes from an uninterrupted run (the damaged session cannot be reopened)
    reader = session_faults._calibrate("sort", tmp_path, 0.001).reader
    monkeypatch.setattr(session_faults.subprocess, "run", damaging_run)
    span = session_faults.Span(120.0, 120.0, reader)
    tally = session_faults._one_kill("sort", 0, tmp_path, _KillAtTheEnd(1), span, 0.001)
    assert tally.lost >= 1 and tally.duplicated == 1 and tally.resumed == 0
    table = faults_table({"sort": tally}, seed=1)
    assert "duplicated 1" in table and "problem: sort kill 0" in table
    assert isinstance(tally, Tally)


def test_the_campaign_kills_the_builtin_tasks_with_simulated_participants_by_default() -> None:
    """Why: the task list was written into the harness; it now comes from the registry (launcher order)."""
    from benchlab.data.errors import BenchlabError

    assert session_faults.default_tasks() == ["worldsense", "sort"]
    with pytest.raises(BenchlabError, match="unknown task 'nope'"):
        session_faults.run_faults(1, tasks=["nope"])
