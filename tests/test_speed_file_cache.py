"""Results files are validated once per content (``data/file_cache.py``): a comparison run again gets the same SORT
rows and warnings, and the same WorldSense answers, without validating the files again; a changed file is read
again."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchlab.data.sort import items
from benchlab.data.sort.items import read_rows
from benchlab.data.worldsense import compare as ws_compare
from benchlab.data.worldsense.results import parse_results_filename
from tests.compare_fixtures import write_results, wrong
from tests.test_compare_sort import write_csv


def _lab(tmp_path: Path) -> Path:
    res = tmp_path / "results"
    write_csv(res / "250-s20-hf_Llama3_results.csv", "Llama3", [i % 2 == 0 for i in range(8)])
    person = write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [True] * 8, "p1", [900.0] * 8)
    # the same trial answered twice: the reader keeps the first answer and warns
    lines = person.read_text().splitlines()
    person.write_text("\n".join([*lines, lines[-1]]) + "\n")
    return res


def _read(res: Path) -> tuple[pd.DataFrame, list[str]]:
    warnings: list[str] = []
    return read_rows([res], warnings.append), warnings


def test_a_second_read_gives_the_same_rows_and_warnings_without_validating_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    res = _lab(tmp_path)
    first, warned = _read(res)
    assert warned and "p1" in " ".join(warned)
    validated: list[Path] = []
    original = items.read_results
    monkeypatch.setattr(items, "read_results",
                        lambda path, on_warning=None: (validated.append(Path(path)), original(path, on_warning))[1])
    second, warned_again = _read(res)
    assert validated == []
    pd.testing.assert_frame_equal(first, second)
    assert warned_again == warned


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    res = _lab(tmp_path)
    before, _ = _read(res)
    write_csv(res / "250-s20-human-p1_results.csv", "human-p1", [False] * 8, "p1", [900.0] * 8)
    after, warned = _read(res)
    people = after[after["who"] == "p1"]
    assert not people["correct"].any() and before[before["who"] == "p1"]["correct"].all()
    assert warned == []


def test_a_worldsense_person_file_is_parsed_once_until_it_changes(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_results(tmp_path / "basic___human-p1___results.jsonl", lambda p, s, t, i, g: g,
                         rt=lambda p, s, t, i: 1000.0 + t, extra={"simulated": "oracle"})
    file = parse_results_filename(path)
    first = ws_compare._read_human(file)
    assert first.participant == "p1" and first.simulated == "oracle" and len(first.keys) > 0
    parsed: list[Path] = []
    original = ws_compare.result_answers
    monkeypatch.setattr(ws_compare, "result_answers",
                        lambda p, **kw: (parsed.append(Path(p)), original(p, **kw))[1])
    again = ws_compare._read_human(file)
    assert parsed == []
    assert again.participant == "p1" and again.resps == first.resps
    assert (again.keys == first.keys).all() and (again.rts_ms == first.rts_ms).all()
    write_results(path, lambda p, s, t, i, g: wrong(g), rt=lambda p, s, t, i: 500.0)
    changed = ws_compare._read_human(file)
    assert parsed == [path] and changed.resps != first.resps and (changed.rts_ms == 500.0).all()
