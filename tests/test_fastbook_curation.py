"""The curation session without the app: edits, undo/redo, dirty marker, change log, safe save, diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchlab.annotations.fastbook.change_log import ChangeLog, log_path_for
from benchlab.annotations.fastbook.context_edits import (
    AddContext,
    AddQuestionContext,
    DeleteContext,
    DeleteQuestionContext,
    EditMismatch,
    ReplaceContext,
    SetFlag,
    SetQuestionComponent,
    Slot,
    toggled,
)
from benchlab.annotations.fastbook.curation import CurationSession, SaveConflict
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import load_benchmark

# Written the way the real file is: 4-space indent, trailing space after "simple", (the @), a \u escape.
SMALL = """{
    "questions": [
        {
            "chapter": 1,
            "question_number": 1,
            "question_text": "\\"What is a GPU?\\"",
            "gold_standard_answer": "\\"A graphics processing unit \\u2013 a processor.\\"",
            "answer_context": [
                {
                    "answer_component": "\\"A graphics processing unit\\"",
                    "scoring_type": "simple",@
                    "context": [
                        "a graphics processing unit (GPU)"
                    ],
                    "explicit_context": "true",
                    "extraneous_answer": "false"
                },
                {
                    "answer_component": ["a", "processor"],
                    "scoring_type": "simple",@
                    "context": [],
                    "explicit_context": "false",
                    "extraneous_answer": "false"
                }
            ],
            "question_context": []
        },
        {
            "chapter": 1,
            "question_number": 3,
            "question_text": "\\"Why?\\"",
            "gold_standard_answer": "\\"Because.\\"",
            "answer_context": [
                {
                    "answer_component": "\\"Because.\\"",
                    "scoring_type": "simple",@
                    "context": [
                        "because it is"
                    ],
                    "explicit_context": "true",
                    "extraneous_answer": "false"
                }
            ],
            "question_context": [
                {
                    "question_component": "Why",
                    "context": [
                        "why not"
                    ]
                }
            ]
        }
    ]
}
""".replace("@\n", " \n")

Q1 = (1, 1)
Q3 = (1, 3)


@pytest.fixture
def bench_file(tmp_path: Path) -> Path:
    path = tmp_path / "fastbook-benchmark.json"
    path.write_text(SMALL, encoding="utf-8")
    return path


@pytest.fixture
def session(bench_file: Path) -> CurationSession:
    return CurationSession.open(bench_file, curator="ada")


def contexts(path: Path, qid: tuple[int, int], component: int) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    for q in data["questions"]:
        if (q["chapter"], q["question_number"]) == qid:
            return list(q["answer_context"][component]["context"])
    raise AssertionError(qid)


def test_every_edit_kind_applies_and_undoes_exactly(session: CurationSession) -> None:
    q1 = session.benchmark.question(Q1)
    q3 = session.benchmark.question(Q3)
    before = (q1.to_json(), q3.to_json())
    edits = [
        AddContext(Q1, Slot("answer", 1), 0, "processor"),
        ReplaceContext(Q1, Slot("answer", 0), 0, "a graphics processing unit (GPU)", "graphics processing unit"),
        SetFlag(Q1, 1, "explicit_context", "false", "true"),
        SetFlag(Q1, 0, "extraneous_answer", "false", "true"),
        DeleteContext(Q3, Slot("answer", 0), 0, "because it is"),
        AddContext(Q3, Slot("question", 0), 1, "why indeed"),
        SetQuestionComponent(Q3, 0, "Why", "Why is it"),
        AddQuestionContext(Q1, 0, "GPU", ("a graphics processing unit (GPU)",)),
        DeleteQuestionContext(Q3, 0, q3.question_context[0]),
    ]
    for edit in edits:
        session.apply(edit)
    assert q1.answer_context[1].context == ["processor"]
    assert q1.answer_context[0].context == ["graphics processing unit"]
    assert (q1.answer_context[1].explicit_context, q1.answer_context[0].extraneous_answer) == ("true", "true")
    assert q3.answer_context[0].context == []
    assert q3.question_context == []
    assert q1.question_context[0].question_component == "GPU"
    for _ in edits:
        assert session.undo() is not None
    assert session.undo() is None
    assert (q1.to_json(), q3.to_json()) == before
    assert not session.dirty
    for _ in edits:
        session.redo()
    assert q3.question_context == [] and q1.answer_context[1].context == ["processor"]


def test_a_new_edit_clears_redo_and_dirty_follows_the_saved_point(session: CurationSession) -> None:
    assert not session.dirty
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "x"))
    assert session.dirty
    session.save()
    assert not session.dirty
    session.undo()
    assert session.dirty and session.history.can_redo
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "y"))
    assert not session.history.can_redo
    assert session.dirty  # not the saved state, even though the stacks have the same depth


def test_a_stale_edit_is_refused_and_changes_nothing(session: CurationSession) -> None:
    q1 = session.benchmark.question(Q1)
    with pytest.raises(EditMismatch):
        session.apply(ReplaceContext(Q1, Slot("answer", 0), 0, "not what is there", "new"))
    with pytest.raises(EditMismatch):
        session.apply(AddContext(Q1, Slot("answer", 7), 0, "new"))
    assert q1.answer_context[0].context == ["a graphics processing unit (GPU)"]
    assert not session.history.can_undo
    assert session.log.read() == []


def test_toggled_keeps_the_string_booleans() -> None:
    assert toggled("true") == "false" and toggled("false") == "true"


def test_change_log_records_who_when_where_before_after_for_edits_undo_and_save(session: CurationSession) -> None:
    session.apply(ReplaceContext(Q1, Slot("answer", 0), 0, "a graphics processing unit (GPU)", "GPU"))
    session.undo()
    session.redo()
    result = session.save()
    records = ChangeLog(log_path_for(session.path)).read()
    assert [r.action for r in records] == ["replace_context", "undo", "redo", "save"]
    first = records[0]
    assert (first.curator, first.chapter, first.question_number, first.component) == ("ada", 1, 1, 0)
    assert first.field == "answer_context[0].context[0]"
    assert (first.before, first.after) == ("a graphics processing unit (GPU)", "GPU")
    assert (records[1].before, records[1].after, records[1].undoes) == ("GPU", "a graphics processing unit (GPU)",
                                                                        "replace_context")
    assert first.time.endswith("Z") and first.time[:4].isdigit()
    assert records[3].sha256 == result.sha256 and records[3].backup == str(result.backup)
    assert len({r.session for r in records}) == 1
    # Every line is on disk as its own JSON object, the file beside the benchmark.
    lines = log_path_for(session.path).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["before"] == "a graphics processing unit (GPU)"


def test_log_survives_a_torn_last_line_from_a_killed_editor(session: CurationSession) -> None:
    log = log_path_for(session.path)
    log.write_text('{"time": "2026-01-01T00:00:00.000Z", "curator": "x", "sess', encoding="utf-8")
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "x"))
    records = ChangeLog(log).read()
    assert [r.action for r in records] == ["add_context"]


def test_unwritable_log_takes_the_edit_back(session: CurationSession, tmp_path: Path) -> None:
    session.log.path = tmp_path / "a-folder"
    session.log.path.mkdir()
    with pytest.raises(BenchlabError):
        session.apply(AddContext(Q1, Slot("answer", 1), 0, "x"))
    assert session.benchmark.question(Q1).answer_context[1].context == []
    assert not session.dirty and not session.history.can_redo


def test_save_is_atomic_with_backup_and_keeps_untouched_questions_byte_for_byte(session: CurationSession) -> None:
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "a processor"))
    result = session.save()
    assert result.backup is not None and result.backup.read_text(encoding="utf-8") == SMALL
    text = session.path.read_text(encoding="utf-8")
    assert contexts(session.path, Q1, 1) == ["a processor"]
    # The untouched question keeps its trailing space after "simple", (the file's own formatting).
    q3_raw = SMALL[SMALL.index('{\n            "chapter": 1,\n            "question_number": 3'):]
    assert q3_raw.split("\n        }")[0] in text
    reloaded = load_benchmark(session.path)
    assert reloaded.question(Q1).answer_context[1].answer_component == ["a", "processor"]
    assert reloaded.question(Q1).answer_context[1].explicit_context == "false"
    assert not list(session.path.parent.glob("*.tmp"))


def test_unedited_save_round_trip_is_identical(session: CurationSession) -> None:
    session.save()
    assert session.path.read_text(encoding="utf-8") == SMALL


def test_save_refuses_to_overwrite_a_file_changed_on_disk_unless_forced(session: CurationSession) -> None:
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "mine"))
    theirs = SMALL.replace("because it is", "because it is, says Bob")
    session.path.write_text(theirs, encoding="utf-8")
    with pytest.raises(SaveConflict, match="changed by someone else"):
        session.save()
    assert session.path.read_text(encoding="utf-8") == theirs
    assert session.dirty
    result = session.save(force=True)
    assert contexts(session.path, Q1, 1) == ["mine"]
    assert result.backup is not None and "says Bob" in result.backup.read_text(encoding="utf-8")
    # After a save, the next save compares with what we wrote, so it is not a conflict.
    session.apply(AddContext(Q1, Slot("answer", 1), 1, "more"))
    session.save()


def test_save_refuses_when_the_file_was_deleted(session: CurationSession) -> None:
    session.path.unlink()
    with pytest.raises(SaveConflict, match="deleted or moved"):
        session.save()
    assert not session.path.exists()


def test_diff_shows_only_changed_questions_and_goes_empty_after_undo(session: CurationSession) -> None:
    assert session.diff() == ""
    session.apply(SetFlag(Q3, 0, "extraneous_answer", "false", "true"))
    session.apply(AddContext(Q1, Slot("answer", 1), 0, "a processor"))
    diff = session.diff()
    assert diff.index("chapter 1 question 1") < diff.index("chapter 1 question 3")  # file order
    assert '-                    "extraneous_answer": "false"' in diff
    assert '+                    "extraneous_answer": "true"' in diff
    assert '+                        "a processor"' in diff
    session.undo()
    session.undo()
    assert session.diff() == ""
    assert session.changed_ids() == []


def test_unsaved_edits_of_a_crashed_session_are_recovered_from_the_log(bench_file: Path) -> None:
    crashed = CurationSession.open(bench_file, curator="ada")
    crashed.apply(AddContext(Q1, Slot("answer", 1), 0, "a processor"))
    crashed.apply(SetFlag(Q1, 1, "explicit_context", "false", "true"))
    crashed.apply(AddQuestionContext(Q3, 1, "Because", ("because it is",)))
    crashed.apply(SetQuestionComponent(Q3, 0, "Why", "Why is it"))
    crashed.apply(DeleteContext(Q3, Slot("question", 0), 0, "why not"))
    crashed.undo()
    crashed.apply(ReplaceContext(Q1, Slot("answer", 0), 0, "a graphics processing unit (GPU)", "GPU"))
    expected = [crashed.benchmark.question(q).to_json() for q in (Q1, Q3)]
    # The editor dies here: nothing saved, the file is untouched.
    assert bench_file.read_text(encoding="utf-8") == SMALL

    session = CurationSession.open(bench_file, curator="bob")
    pending = session.unsaved_in_log()
    assert [r.action for r in pending] == ["add_context", "set_flag", "add_question_context",
                                           "set_question_component", "delete_context", "undo", "replace_context"]
    assert session.recover(pending) == 7
    assert [session.benchmark.question(q).to_json() for q in (Q1, Q3)] == expected
    assert session.dirty
    session.save()
    # Saved: a later session finds nothing to recover.
    assert CurationSession.open(bench_file).unsaved_in_log() == []


def test_only_edits_after_the_last_save_are_recovered(bench_file: Path) -> None:
    crashed = CurationSession.open(bench_file, curator="ada")
    crashed.apply(AddContext(Q1, Slot("answer", 1), 0, "saved one"))
    crashed.save()
    crashed.apply(AddContext(Q1, Slot("answer", 1), 1, "unsaved one"))
    session = CurationSession.open(bench_file)
    pending = session.unsaved_in_log()
    assert [r.after for r in pending] == ["unsaved one"]
    session.recover(pending)
    assert session.benchmark.question(Q1).answer_context[1].context == ["saved one", "unsaved one"]


def test_no_recovery_onto_a_file_that_changed_since(bench_file: Path) -> None:
    crashed = CurationSession.open(bench_file, curator="ada")
    crashed.apply(AddContext(Q1, Slot("answer", 1), 0, "x"))
    bench_file.write_text(SMALL.replace("because it is", "because"), encoding="utf-8")
    assert CurationSession.open(bench_file).unsaved_in_log() == []


def test_a_file_without_write_permission_is_read_only_with_the_fix_named(bench_file: Path) -> None:
    bench_file.chmod(0o444)  # what cp of the shared dataset gives; root could still write it
    session = CurationSession.open(bench_file)
    assert not session.writable and "chmod u+w" in (session.read_only_reason or "")
    with pytest.raises(BenchlabError, match="read-only"):
        session.apply(AddContext(Q1, Slot("answer", 1), 0, "x"))
    with pytest.raises(BenchlabError, match="read-only"):
        session.save()
    assert bench_file.read_text(encoding="utf-8") == SMALL and not log_path_for(bench_file).exists()
    bench_file.chmod(0o644)
    assert CurationSession.open(bench_file).writable


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["add", "replace", "delete", "flag", "qc", "undo", "redo"]),
                                st.integers(0, 3), st.sampled_from(["alpha", "beta", "gamma"])), max_size=25))
def test_random_edit_undo_redo_sequences_keep_history_and_log_faithful(tmp_path_factory: pytest.TempPathFactory,
                                                                       steps: list[tuple[str, int, str]]) -> None:
    """Any mix of edits, undos and redos: undoing everything restores the file's values, and replaying the
    change log onto a fresh copy gives exactly the edited state (the log is a complete record)."""
    folder = tmp_path_factory.mktemp("prop")
    path = folder / "fastbook-benchmark.json"
    path.write_text(SMALL, encoding="utf-8")
    session = CurationSession.open(path, curator="ada")
    original = [q.to_json() for q in session.benchmark]
    for kind, n, text in steps:
        q1 = session.benchmark.question(Q1)
        contexts = q1.answer_context[n % 2].context
        slot = Slot("answer", n % 2)
        if kind == "add":
            session.apply(AddContext(Q1, slot, n % (len(contexts) + 1), text))
        elif kind == "replace" and contexts:
            position = n % len(contexts)
            if contexts[position] != text:
                session.apply(ReplaceContext(Q1, slot, position, contexts[position], text))
        elif kind == "delete" and contexts:
            position = n % len(contexts)
            session.apply(DeleteContext(Q1, slot, position, contexts[position]))
        elif kind == "flag":
            component = q1.answer_context[n % 2]
            session.apply(SetFlag(Q1, n % 2, "extraneous_answer", component.extraneous_answer,
                                  toggled(component.extraneous_answer)))
        elif kind == "qc":
            session.apply(AddQuestionContext(Q3, n % 2, text, (text,)))
        elif kind == "undo":
            session.undo()
        elif kind == "redo":
            session.redo()
    final = [q.to_json() for q in session.benchmark]

    replay = CurationSession(load_benchmark(path), path, curator="replayer", log_path=folder / "replay.jsonl")
    records = session.log.read()
    assert replay.recover(records) == len(records)
    assert [q.to_json() for q in replay.benchmark] == final

    while session.undo() is not None:
        pass
    assert [q.to_json() for q in session.benchmark] == original
    assert not session.dirty and session.diff() == ""
