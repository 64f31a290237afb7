"""The fastbook commands as a curator runs them: on the bundled sample, on the real data, and on bad input."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchlab.data.fastbook.audit import Reason, audit_benchmark
from benchlab.data.fastbook.benchmark import load_benchmark
from benchlab.data.fastbook.chapters import load_chapters
from benchlab.data.fastbook.locate import sample_benchmark_path
from benchlab.data.fastbook.runs import Run
from benchlab.data.fastbook.scoring import score_run
from benchlab.tui.cli import main
from tests.conftest import full_data

SAMPLE = sample_benchmark_path()


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main([*args])
        raise SystemExit(0)
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


def test_the_sample_is_in_the_benchmark_format_and_shows_every_problem_kind() -> None:
    bench = load_benchmark(SAMPLE)
    assert SAMPLE.read_text(encoding="utf-8") == bench.dumps()
    report = audit_benchmark(bench, load_chapters(SAMPLE.parent, bench.chapters))
    reasons = {f.status.reason for f in report.problems}
    assert reasons == {Reason.CROSSES_CHUNKS, Reason.CROSSES_HALVING, Reason.FENCED_CODE, Reason.ESCAPED,
                       Reason.LETTER_CASE}
    assert any(c.empty for c in report.components)
    assert (SAMPLE.parent / "LICENSE").is_file() and (SAMPLE.parent / "ATTRIBUTION.md").is_file()


def test_baseline_then_score_on_the_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fts.jsonl"
    code, text, err = run_cli(["fastbook", "baseline", "--benchmark", str(SAMPLE), "--out", str(out)], capsys)
    assert code == 0, err
    assert "fts5-keywords: Modified MRR@10" in text and f"wrote 9 questions to {out}" in err
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(x["chapter"], x["question_number"]) for x in lines][:3] == [(1, 1), (1, 2), (1, 3)]
    q_out = tmp_path / "question.jsonl"
    assert run_cli(["fastbook", "baseline", "--benchmark", str(SAMPLE), "--query", "question", "--out",
                    str(q_out)], capsys)[0] == 0
    code, text, err = run_cli(["score", "fastbook", str(out), str(q_out), "--benchmark", str(SAMPLE), "--format",
                               "json"], capsys)
    assert code == 0, err
    tables = json.loads(text)
    overall = {row["index"]: row["cells"] for row in tables[0]["rows"]}
    assert set(overall) == {"fts", "question"}
    assert 0 < overall["fts"]["MRR@10"] <= 1 and overall["fts"]["questions"] == 9
    assert [row["index"] for row in tables[1]["rows"]] == ["1", "2"]  # per chapter


def test_score_formats_and_missing_questions_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "partial.jsonl"
    run.write_text(json.dumps({"chapter": 1, "question_number": 2,
                               "passages": ["The marked text is called the *context* of an answer component."]})
                   + "\n", encoding="utf-8")
    code, text, err = run_cli(["score", "fastbook", str(run), "--benchmark", str(SAMPLE), "--format", "markdown",
                               "--per-question"], capsys)
    assert code == 0
    assert "| partial | 0.11111 | 0.11111 |" in text  # question 1.2 (one component) fully found, 8 others 0
    assert "| 1 / 2 | 1.0 | 1.0 |" in text
    assert "no passages for 8 question(s)" in err
    code, text, _ = run_cli(["score", "fastbook", str(run), "--benchmark", str(SAMPLE), "--k", "1", "--format",
                             "csv"], capsys)
    assert code == 0 and "MRR@1" in text


def test_run_naming_an_unknown_question_fails_naming_file_line_and_question(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "other.jsonl"
    run.write_text('{"chapter": 1, "question_number": 1, "passages": []}\n'
                   '{"chapter": 3, "question_number": 1, "passages": []}\n', encoding="utf-8")
    code, text, err = run_cli(["score", "fastbook", str(run), "--benchmark", str(SAMPLE)], capsys)
    assert code == 2 and text == ""
    assert err == f"benchlab: error: {run}:2: chapter 3 question 1 is not in the benchmark (is this run for another " \
                  "version of it?)\n"


def test_bad_benchmark_or_missing_chapter_overwrites_nothing(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.jsonl"
    out.write_text("previous run\n", encoding="utf-8")
    broken = tmp_path / "bench.json"
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    del data["questions"][3]["question_text"]
    broken.write_text(json.dumps(data, indent=4), encoding="utf-8")
    code, _, err = run_cli(["fastbook", "baseline", "--benchmark", str(broken), "--out", str(out)], capsys)
    assert code == 2 and "chapter 1 question 4: missing field 'question_text'" in err and f"{broken}:" in err
    no_chapters = tmp_path / "alone" / "fastbook-benchmark.json"
    no_chapters.parent.mkdir()
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["questions"][0]["question_text"] += " (reworded)"  # a copy of no known original: no chapters to fall back on
    no_chapters.write_text(json.dumps(data, indent=4), encoding="utf-8")
    code, _, err = run_cli(["fastbook", "baseline", "--benchmark", str(no_chapters), "--query", "question", "--out",
                            str(out)], capsys)
    assert code == 2 and "chapter 1 not found" in err
    code, _, err = run_cli(["fastbook", "audit", "--benchmark", str(no_chapters)], capsys)
    assert code == 2 and "chapter_1.txt" in err
    assert out.read_text(encoding="utf-8") == "previous run\n"


def test_audit_on_the_sample_lists_question_ids_and_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = run_cli(["fastbook", "audit", "--benchmark", str(SAMPLE), "--format", "csv"], capsys)
    assert code == 0
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)  # several tables: one tidy CSV
    rows = {tuple(r[c] for c in ("question", "part", "context", "status", "reason", "component scores"))
            for _, r in frame.iterrows() if r["question"]}
    assert ("1.4", "answer 0", "0", "not found", "fenced code or output (chunks contain neither)", "yes") in rows
    assert ("2.2", "answer 1", "1", "crosses a chunk", "crosses the halving cut", "yes") in rows
    assert ("1.5", "answer 2", "", "empty", "component has no context", "no") in rows
    escaped = frame[(frame["question"] == "1.7") & (frame["part"] == "answer 1")]
    assert list(escaped["reason"]) == ["escaped characters"]
    assert escaped["detail"].iloc[0].startswith("contains a literal \\u2014")


def test_audit_of_the_real_benchmark_prints_the_spec_summary(capsys: pytest.CaptureFixture[str]) -> None:
    path = full_data("fastbook-benchmark", "fastbook-benchmark.json")
    code, text, _ = run_cli(["fastbook", "audit", "--benchmark", str(path), "--summary", "--format", "json"], capsys)
    assert code == 0
    summary = {row["index"]: row["cells"] for row in json.loads(text)[0]["rows"]}
    assert {ch: (summary[ch]["not in text"], summary[ch]["text, no chunk"]) for ch in summary} == {
        "1": (1, 3), "2": (0, 3), "4": (5, 1), "8": (0, 2), "9": (0, 5), "10": (0, 1), "13": (2, 1), "all": (8, 16)}


def test_chapters_command_rebuilds_chapter_files_from_notebooks(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    notebooks = full_data("fastbook-benchmark", "notebooks")
    folder = tmp_path / "nbs"
    folder.mkdir()
    shutil.copy(notebooks / "08_collab.ipynb", folder)
    code, text, _ = run_cli(["fastbook", "chapters", str(folder), "--out", str(tmp_path / "out")], capsys)
    assert code == 0 and "chapter 8: 40,135 chars, 23 chunks" in text
    expected = full_data("fastbook-benchmark", "chapters", "chapter_8.txt").read_bytes()
    assert (tmp_path / "out" / "chapter_8.txt").read_bytes() == expected


def test_bench_prints_timings(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = run_cli(["bench", "fastbook", "--benchmark", str(SAMPLE), "--repeat", "1"], capsys)
    assert code == 0
    assert "score one run" in text and "audit all 20 contexts" in text and "speed-up" in text


def test_chunks_lists_spans_with_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = run_cli(["fastbook", "chunks", "--benchmark", str(SAMPLE), "--chapter", "2", "--format", "csv"],
                            capsys)
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "# fastbook-benchmark chunks (halving cut: ch2 at 872)"
    assert lines[2].startswith("2,0,0,872,1-") and lines[3].startswith("2,1,872,1744,")
    code, _, err = run_cli(["fastbook", "chunks", "--benchmark", str(SAMPLE), "--chapter", "5"], capsys)
    assert code == 2 and "chapters 1, 2" in err


def test_score_with_confidence_intervals_and_paired_tests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark(SAMPLE)
    chapters = load_chapters(SAMPLE.parent, bench.chapters)
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    with open(good, "w", encoding="utf-8") as g, open(bad, "w", encoding="utf-8") as b:
        for q in bench:
            chunks = [c.text for c in chapters[q.chapter].chunks]
            g.write(json.dumps({"chapter": q.chapter, "question_number": q.question_number, "passages": chunks}) + "\n")
            b.write(json.dumps({"chapter": q.chapter, "question_number": q.question_number, "passages": []}) + "\n")
    code, text, _ = run_cli(["score", "fastbook", str(good), str(bad), "--benchmark", str(SAMPLE), "--ci",
                             "--format", "json", "--seed", "1"], capsys)
    assert code == 0
    tables = {t["title"]: t for t in json.loads(text)}
    cis = next(t for title, t in tables.items() if title.startswith("Bootstrap 95% CIs"))
    bad_row = next(r for r in cis["rows"] if r["index"] == "bad")
    assert bad_row["cells"]["MRR@10"] == 0 and bad_row["cells"]["MRR 95% CI"] == "[0.0000, 0.0000]"
    diffs = next(t for title, t in tables.items() if title.startswith("Paired differences against good"))
    mrr = next(r for r in diffs["rows"] if r["index"] == "bad / MRR@10")
    assert mrr["cells"]["minus good"] < 0 and mrr["cells"]["questions"] == 9
    assert mrr["cells"]["test"].startswith("sign-flip permutation test (exact)")


def test_runs_differing_on_two_questions_are_not_called_significant(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """With 2 of 9 questions differing, the smallest possible two-sided p is 2/2**2 = .5 (a bootstrap said < .05)."""
    bench = load_benchmark(SAMPLE)
    chapters = load_chapters(SAMPLE.parent, bench.chapters)
    full = Run("full", {q.id: [c.text for c in chapters[q.chapter].chunks] for q in bench})
    hits = [q.id for q in score_run(bench, full).questions if q.mrr > 0][:2]
    assert len(hits) == 2
    dropped = {qid: ([] if qid in hits else passages) for qid, passages in full.results.items()}
    for path, run in ((tmp_path / "full.jsonl", full.results), (tmp_path / "dropped.jsonl", dropped)):
        path.write_text("".join(json.dumps({"chapter": qid.chapter, "question_number": qid.question_number,
                                            "passages": passages}) + "\n" for qid, passages in run.items()))
    code, text, _ = run_cli(["score", "fastbook", str(tmp_path / "full.jsonl"), str(tmp_path / "dropped.jsonl"),
                             "--benchmark", str(SAMPLE), "--ci", "--format", "json"], capsys)
    assert code == 0
    tables = {t["title"]: t for t in json.loads(text)}
    diffs = next(t for title, t in tables.items() if title.startswith("Paired differences against full"))
    mrr = next(r for r in diffs["rows"] if r["index"] == "dropped / MRR@10")
    assert mrr["cells"]["minus full"] < 0
    assert mrr["cells"]["p"] == "p=.500"


@pytest.mark.parametrize("command", [["fastbook", "audit"], ["fastbook", "oracle", "--out", "OUT"],
                                     ["score", "fastbook", "RUN"], ["curate", "fastbook"]])
def test_a_benchmark_without_questions_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              command: list[str]) -> None:
    empty = tmp_path / "e.json"
    empty.write_text('{"questions": []}\n', encoding="utf-8")
    run = tmp_path / "run.jsonl"
    run.write_text("", encoding="utf-8")
    out = tmp_path / "oracle.jsonl"
    args = [str(out) if a == "OUT" else str(run) if a == "RUN" else a for a in command]
    code, stdout, err = run_cli([*args, "--benchmark", str(empty)], capsys)
    assert code == 2 and err == f"benchlab: error: {empty}: the benchmark has no questions\n"
    assert "MRR" not in stdout and "DataFrame" not in stdout and not out.exists()


def test_import_run_of_a_missing_workbook_says_no_such_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "openpyxl", None)  # as without the [fastbook] extra: a typo still says so
    missing = tmp_path / "examples" / "results MANUAL VALIDATION.xlsx"
    code, _, err = run_cli(["fastbook", "import-run", str(missing), "--out-dir", str(tmp_path / "runs")], capsys)
    assert code == 2 and err.strip() == f"benchlab: error: {missing}: no such file"
    assert not (tmp_path / "runs").exists()
