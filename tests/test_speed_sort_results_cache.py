"""SORT results files are validated once per content (``data/sort/results_cache.py``): a comparison run again gets
the same rows and the same warnings without reading the CSV with pandas again, and a changed file is read again."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchlab.data.sort import results_cache
from benchlab.data.sort.items import read_rows
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
    original = results_cache.read_results
    monkeypatch.setattr(results_cache, "read_results",
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
