"""The benchmark file model: exact round trip, small diffs on edit, atomic save with backup, clear bad-input errors."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import (
    Component,
    QuestionId,
    file_fingerprint,
    load_benchmark,
    loads_benchmark,
    save_benchmark,
)
from tests.conftest import full_data


def _pairs(text: str) -> Any:
    """Parse keeping key order (lists of pairs), so equality also checks order."""
    return json.loads(text, object_pairs_hook=list)


def _question(chapter: int, number: int, **over: Any) -> dict[str, Any]:
    q: dict[str, Any] = {
        "chapter": chapter,
        "question_number": number,
        "question_text": f'"Question {number}?"',
        "gold_standard_answer": '"An answer."',
        "answer_context": [
            {
                "answer_component": "An answer.",
                "scoring_type": "simple",
                "context": ["some passage"],
                "explicit_context": "true",
                "extraneous_answer": "false",
            }
        ],
        "question_context": [],
    }
    q.update(over)
    return q


def _write(tmp_path: Path, questions: list[dict[str, Any]]) -> Path:
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"questions": questions}, indent=4), encoding="utf-8")
    return path


def test_real_file_loads_with_the_documented_shape() -> None:
    bench = load_benchmark(full_data("fastbook-benchmark", "fastbook-benchmark.json"))
    assert len(bench) == 191
    assert bench.chapters == [1, 2, 4, 8, 9, 10, 13]
    assert sum(len(q.answer_context) for q in bench) == 357
    assert sum(len(c.context) for q in bench for c in q.answer_context) == 389
    lists = [(q.chapter, q.question_number, i) for q in bench for i, c in enumerate(q.answer_context)
             if isinstance(c.answer_component, list)]
    assert lists == [(1, 14, 1), (1, 17, 2), (1, 20, 1), (1, 28, 0), (4, 7, 0), (13, 21, 0)]
    assert sum(c.explicit_context == "false" for q in bench for c in q.answer_context) == 41
    assert bench.question((1, 1)).display_text.startswith("Do you need these")


def test_unedited_round_trip_is_byte_identical_and_keeps_every_value(tmp_path: Path) -> None:
    source = full_data("fastbook-benchmark", "fastbook-benchmark.json")
    original = source.read_text(encoding="utf-8")
    copy = tmp_path / "fastbook-benchmark.json"
    copy.write_text(original, encoding="utf-8")
    bench = load_benchmark(copy)
    assert bench.edited_ids() == []
    save_benchmark(bench, copy)
    saved = copy.read_text(encoding="utf-8")
    assert _pairs(saved) == _pairs(original)  # every value, key order and question order
    assert saved == original  # and even the file's own formatting quirks


def test_an_edit_changes_only_that_question_and_saves_atomically_with_a_backup(tmp_path: Path) -> None:
    original = full_data("fastbook-benchmark", "fastbook-benchmark.json").read_text(encoding="utf-8")
    path = tmp_path / "fb.json"
    path.write_text(original, encoding="utf-8")
    bench = load_benchmark(path)
    q = bench.question((4, 16))
    q.answer_context[0].context.append("a new passage — with a dash")
    q.answer_context[0].explicit_context = "false"
    assert bench.edited_ids() == [QuestionId(4, 16)]
    backup = save_benchmark(bench, path)
    assert backup is not None and backup.read_text(encoding="utf-8") == original
    saved = path.read_text(encoding="utf-8")
    changed = [line for line in difflib.unified_diff(original.splitlines(), saved.splitlines(), lineterm="", n=0)
               if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert all('"chapter": 4' not in line for line in changed)
    assert "a new passage \\u2014 with a dash" in saved  # non-ASCII written as the file writes it
    reloaded = load_benchmark(path)
    assert reloaded.question((4, 16)).answer_context[0].context[-1] == "a new passage — with a dash"
    assert reloaded.question((4, 16)).answer_context[0].explicit_context == "false"
    others_before = [q.to_json() for q in load_benchmark(backup) if q.id != (4, 16)]
    assert [q.to_json() for q in reloaded if q.id != (4, 16)] == others_before
    assert reloaded.edited_ids() == []
    assert bench.source_fingerprint == file_fingerprint(path)  # the saved file is now the reference


def test_a_new_question_file_is_written_in_the_benchmarks_format(tmp_path: Path) -> None:
    bench = loads_benchmark(json.dumps({"questions": [_question(1, 1)]}, indent=4))
    bench.questions.append(bench.question((1, 1)).model_copy(update={"question_number": 2}, deep=True))
    path = tmp_path / "new.json"
    assert save_benchmark(bench, path) is None
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n    "questions": [\n        {\n            "chapter": 1,')
    assert [q.id for q in load_benchmark(path)] == [(1, 1), (1, 2)]


def test_string_flags_and_list_components_are_kept_not_normalised() -> None:
    q = _question(1, 1)
    q["answer_context"][0]["answer_component"] = ["a", "b"]
    bench = loads_benchmark(json.dumps({"questions": [q]}))
    comp = bench.question((1, 1)).answer_context[0]
    assert comp.answer_component == ["a", "b"] and comp.answer_text == "a\nb"
    assert bench.question((1, 1)).to_json()["answer_context"][0]["explicit_context"] == "true"
    with pytest.raises(ValidationError):
        comp.explicit_context = True  # type: ignore[assignment]
    with pytest.raises(ValidationError):
        Component.model_validate({**q["answer_context"][0], "extraneous_answer": "yes"})


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "questions": [\n    {"chapter": 1,,}\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(BenchlabError) as err:
        load_benchmark(path)
    assert err.value.path == path and err.value.line == 3
    assert "not valid JSON" in str(err.value)


def test_question_missing_a_field_names_the_question_and_its_line(tmp_path: Path) -> None:
    broken = _question(2, 7)
    del broken["gold_standard_answer"]
    path = _write(tmp_path, [_question(2, 6), broken])
    before = path.read_bytes()
    with pytest.raises(BenchlabError) as err:
        load_benchmark(path)
    message = str(err.value)
    assert "chapter 2 question 7" in message and "missing field 'gold_standard_answer'" in message
    assert err.value.line is not None and path.read_text().splitlines()[err.value.line - 1].strip() == "{"
    assert path.read_bytes() == before


def test_wrong_flag_value_and_duplicate_ids_are_reported(tmp_path: Path) -> None:
    bad = _question(1, 3)
    bad["answer_context"][0]["explicit_context"] = True
    with pytest.raises(BenchlabError, match=r"chapter 1 question 3: field 'answer_context.0.explicit_context'"):
        load_benchmark(_write(tmp_path, [bad]))
    with pytest.raises(BenchlabError, match="chapter 1 question 3 appears twice"):
        load_benchmark(_write(tmp_path, [_question(1, 3), _question(1, 3)]))
    with pytest.raises(BenchlabError, match='"questions" list'):
        loads_benchmark("[1, 2]", "x.json")


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BenchlabError, match="no such file"):
        load_benchmark(tmp_path / "nope.json")


def test_a_save_that_would_write_an_invalid_file_leaves_the_old_one(tmp_path: Path) -> None:
    path = _write(tmp_path, [_question(1, 1)])
    before = path.read_bytes()
    bench = load_benchmark(path)
    bench.questions.append(bench.question((1, 1)).model_copy(deep=True))  # duplicate id
    with pytest.raises(BenchlabError, match="appears twice"):
        save_benchmark(bench, path)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.bak"))


def test_windows_line_endings_and_a_bom_survive_load_edit_save(tmp_path: Path) -> None:
    text = json.dumps({"questions": [_question(1, 1), _question(1, 2)]}, indent=4).replace("\n", "\r\n")
    path = tmp_path / "crlf.json"
    path.write_bytes(("\ufeff" + text + "\r\n").encode("utf-8"))
    before = path.read_bytes()
    bench = load_benchmark(path)
    save_benchmark(bench, path)
    assert path.read_bytes() == before
    bench.question((1, 2)).answer_context[0].context.append("more")
    save_benchmark(bench, path)
    saved = path.read_bytes()
    assert saved.startswith("\ufeff".encode()) and b"\n" not in saved.replace(b"\r\n", b"")
    assert load_benchmark(path).question((1, 2)).answer_context[0].context == ["some passage", "more"]
