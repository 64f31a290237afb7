"""Results made with the benchmark's notebooks (positional lists, the results CSV/workbook) become run files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import load_benchmark
from benchlab.data.fastbook.chapters import load_chapters
from benchlab.data.fastbook.imports import (
    SEPARATOR,
    read_positional_json,
    read_results_table,
    repair_mac_roman,
    result_columns,
)
from benchlab.data.fastbook.locate import sample_benchmark_path
from benchlab.data.fastbook.scoring import Scorer
from benchlab.tui.cli import main

SAMPLE = sample_benchmark_path()


def _passages() -> list[list[str]]:
    """For each sample question, its chapter's chunks in order (a deterministic stand-in for a retriever)."""
    bench = load_benchmark(SAMPLE)
    chapters = load_chapters(SAMPLE.parent, bench.chapters)
    return [[c.text for c in chapters[q.chapter].chunks] for q in bench]


def test_mojibake_repair_only_touches_mojibake() -> None:
    original = "a dash – and “quotes” é"
    garbled = original.encode("utf-8").decode("mac_roman")
    assert garbled != original and repair_mac_roman(garbled) == original
    assert repair_mac_roman(original) == original
    assert repair_mac_roman("plain") == "plain"


def test_positional_json_is_keyed_by_question(tmp_path: Path) -> None:
    bench = load_benchmark(SAMPLE)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_passages()), encoding="utf-8")
    run = read_positional_json(path, bench)
    assert run.passages((2, 4)) == _passages()[-1]
    path.write_text(json.dumps(_passages()[:-1]), encoding="utf-8")
    with pytest.raises(BenchlabError, match="8 result lists for 9 questions"):
        read_positional_json(path, bench)


def test_results_workbook_with_mojibake_scores_like_the_original_passages(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl", reason="openpyxl not installed (pip install 'benchlab[fastbook]')")
    bench = load_benchmark(SAMPLE)
    passages = _passages()
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["chapter", "question_number", "question_text", "bm25_500", "bm25_500_mrr10"])
    for q, ps in zip(bench, passages, strict=True):
        sheet.append([q.chapter, q.question_number, q.question_text,
                      SEPARATOR.join(ps).encode("utf-8").decode("mac_roman"), 0])
    path = tmp_path / "results.xlsx"
    book.save(path)
    assert result_columns(path) == ["bm25_500"]
    run = read_results_table(path, bench, "bm25_500")
    scorer = Scorer(bench)
    expected = scorer.score(read_positional_json(_json(tmp_path, passages), bench))
    assert run.passages((1, 7)) == passages[5]  # the chunk with the em dashes came back intact
    assert scorer.score(run).questions == expected.questions


def _json(tmp_path: Path, passages: list[list[str]]) -> Path:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(passages), encoding="utf-8")
    return path


def test_results_csv_errors_name_file_line_and_question(tmp_path: Path) -> None:
    bench = load_benchmark(SAMPLE)
    path = tmp_path / "results.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["chapter", "question_number", "colbert"])
        writer.writerow([1, 1, "a" + SEPARATOR + "b"])
        writer.writerow([9, 9, "x"])
    with pytest.raises(BenchlabError) as err:
        read_results_table(path, bench, "colbert")
    assert err.value.line == 3 and "chapter 9 question 9 is not in the benchmark" in str(err.value)
    with pytest.raises(BenchlabError, match="missing column.*method columns here: colbert"):
        read_results_table(path, bench, "bm25")


def test_import_run_command_writes_one_run_per_method(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark(SAMPLE)
    path = tmp_path / "results.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["chapter", "question_number", "m1", "m1_recall10", "m2"])
        for q, ps in zip(bench, _passages(), strict=True):
            writer.writerow([q.chapter, q.question_number, SEPARATOR.join(ps), 1, SEPARATOR.join(ps[::-1])])
    main(["fastbook", "import-run", str(path), "--benchmark", str(SAMPLE), "--out-dir", str(tmp_path / "runs")])
    assert "m1: 9 questions" in capsys.readouterr().out
    lines = (tmp_path / "runs" / "m2.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["passages"] == _passages()[0][::-1]
