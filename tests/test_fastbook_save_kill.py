"""The curation change log and the saved file agree after a kill at any moment of a save: the editor dies before
the backup, between backup and rename, between the rename and the log's "save" line, or while writing that line;
the next session finds a log that tells the truth about the file (injected in process, and a real SIGKILL)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from test_fastbook_curation import Q1, SMALL

from benchlab.annotations.fastbook import change_log
from benchlab.annotations.fastbook.change_log import ChangeLog, ChangeRecord, log_path_for
from benchlab.annotations.fastbook.context_edits import AddContext, ReplaceContext, Slot
from benchlab.annotations.fastbook.curation import CurationSession
from benchlab.data.fastbook import benchmark as benchmark_module


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs, no handler catches it."""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def bench_file(tmp_path: Path) -> Path:
    path = tmp_path / "fastbook-benchmark.json"
    path.write_text(SMALL, encoding="utf-8")
    return path


def _edit_and_save_killed(bench_file: Path, monkeypatch: pytest.MonkeyPatch, moment: str) -> CurationSession:
    session = CurationSession.open(bench_file, curator="ada")
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "a processor"))
    session.apply(ReplaceContext(Q1, Slot("answer", 0), 0, "a graphics processing unit (GPU)", "GPU"))
    if moment == "before the backup":
        monkeypatch.setattr(benchmark_module, "atomic_write_bytes", _die)
    elif moment == "between backup and rename":
        monkeypatch.setattr(benchmark_module, "atomic_write_text", _die)
    elif moment == "between rename and log":
        real = ChangeLog.append
        monkeypatch.setattr(ChangeLog, "append",
                            lambda self, record: _die() if record.action == "save" else real(self, record))
    elif moment == "while writing the save line":
        real_line = change_log.append_line

        def torn(path: Path, line: str) -> None:
            if '"action": "save"' not in line:
                real_line(path, line)
                return
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(line[: len(line) // 2])
            _die()

        monkeypatch.setattr(change_log, "append_line", torn)
    with pytest.raises(Killed):
        session.save()
    monkeypatch.undo()
    return session


def _die(*_args: Any, **_kw: Any) -> None:
    raise Killed


def _saves(bench_file: Path) -> list[ChangeRecord]:
    return [r for r in ChangeLog(log_path_for(bench_file)).read() if r.action == "save"]


@pytest.mark.parametrize("moment", ["before the backup", "between backup and rename", "between rename and log",
                                    "while writing the save line"])
def test_log_and_file_agree_after_a_kill_at_any_moment_of_a_save(bench_file: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 moment: str) -> None:
    original = _sha(bench_file)
    crashed = _edit_and_save_killed(bench_file, monkeypatch, moment)
    after = CurationSession.open(bench_file, curator="bob")
    saves = _saves(bench_file)
    if _sha(bench_file) == original:
        # Not saved: the log claims no save, and the edits are offered again (nothing is lost).
        assert saves == []
        assert [r.action for r in after.unsaved_in_log()] == ["add_context", "replace_context"]
    else:
        # Saved: the log has the save, in the killed session's name, with the file's exact hash; nothing is
        # offered for re-applying (it would apply the edits twice).
        assert [(s.session, s.sha256, s.curator) for s in saves] == [(crashed.session_id, _sha(bench_file), "ada")]
        assert saves[0].backup == str(bench_file.with_name(bench_file.name + ".bak"))
        assert after.unsaved_in_log() == []
        assert after.benchmark.question(Q1).answer_context[1].context == ["a processor"]
    # Opening again confirms nothing twice.
    CurationSession.open(bench_file, curator="cy")
    assert len(_saves(bench_file)) == len(saves)


def test_a_file_changed_by_someone_else_after_the_kill_gets_no_save_line(bench_file: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _edit_and_save_killed(bench_file, monkeypatch, "between rename and log")
    bench_file.write_text(bench_file.read_text(encoding="utf-8").replace("because it is", "because"),
                          encoding="utf-8")
    CurationSession.open(bench_file, curator="bob")
    assert _saves(bench_file) == []


CHILD = textwrap.dedent("""
    import os, signal, sys
    from benchlab.annotations.fastbook.change_log import ChangeLog
    from benchlab.annotations.fastbook.context_edits import AddContext, Slot
    from benchlab.annotations.fastbook.curation import CurationSession

    real = ChangeLog.append
    def append(self, record):
        if record.action == "save":
            os.kill(os.getpid(), signal.SIGKILL)
        real(self, record)
    ChangeLog.append = append
    session = CurationSession.open(sys.argv[1], curator="ada")
    session.apply(AddContext((1, 1), Slot("answer", 1), 0, "a processor"))
    print(session.session_id, flush=True)
    session.save()
""")


def test_editor_killed_with_sigkill_between_rename_and_log_line(bench_file: Path) -> None:
    child = subprocess.run([sys.executable, "-c", CHILD, str(bench_file)], capture_output=True, text=True,
                           timeout=60)
    assert child.returncode == -9, child.stderr
    killed_session = child.stdout.strip()
    assert _saves(bench_file) == [] and _sha(bench_file) != hashlib.sha256(SMALL.encode()).hexdigest()
    CurationSession.open(bench_file, curator="bob")
    saves = _saves(bench_file)
    assert [(s.session, s.sha256) for s in saves] == [(killed_session, _sha(bench_file))]
    assert os.path.exists(saves[0].backup or "")
