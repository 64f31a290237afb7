"""``benchlab score worldsense`` as a user runs it: tables in every format, and bad input as one clear line."""

from __future__ import annotations

import bz2
import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from benchlab.data.samples import sample_path
from benchlab.tui.cli import main

SAMPLE = sample_path("worldsense")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_score_sample_prints_the_three_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["score", "worldsense", "--sample"], capsys)
    assert code == 0 and err == ""
    assert out.index("AVERAGE ACCURACY ACROSS ALL PROBLEMS") < out.index("ACCURACY for each") < out.index("BIAS for")
    assert "GPT4           72.2 (8.1)" in out


def test_formats_csv_json_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["score", "worldsense", "-t", str(SAMPLE), "--format", "json"], capsys)
    assert code == 0
    payload = json.loads(out)
    assert [t["title"].split(" (")[0] for t in payload] == [
        "AVERAGE ACCURACY ACROSS ALL PROBLEMS", "ACCURACY for each of the problems ", "BIAS for each of the problems"]
    gpt4 = next(r for r in payload[1]["rows"] if r["index"] == "basic / GPT4")
    assert gpt4["cells"]["Compl.trivial"] == "100.0 (0.0)"
    code, out, _ = run(["score", "worldsense", "-t", str(SAMPLE), "--format", "csv"], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))  # three tables: one tidy CSV, a `table` column naming each
    first = [r for r in rows if r["table"].startswith("AVERAGE ACCURACY ACROSS ALL PROBLEMS")]
    assert any(r["modelname"] == "GPT4" and r["basic"] == "72.2 (8.1)" for r in first)
    assert len({r["table"] for r in rows}) == 3
    code, out, _ = run(["score", "worldsense", "-t", str(SAMPLE), "--format", "markdown"], capsys)
    assert "| basic / GPT4 | 88.9 (15.0) |" in out


def test_tuples_out_writes_per_tuple_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "tuples.csv"
    code, _, err = run(["score", "worldsense", "--sample", "--tuples-out", str(target)], capsys)
    assert code == 0 and "216 tuple scores" in err
    rows = list(csv.DictReader(target.open()))
    assert len(rows) == 4 * 54 and {r["modelname"] for r in rows} == {"GPT3.5", "GPT4", "Llama2-chat", "Llama2-FT+1M"}
    assert {float(r["acc"]) for r in rows} <= {0.0, 0.25, 0.5, 0.75, 1.0}


def test_tuples_out_under_a_file_fails_before_printing_tables(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    code, out, err = run(["score", "worldsense", "--sample", "--tuples-out", str(a_file / "t.csv")], capsys)
    assert code == 2 and out == "" and "--tuples-out" in err and "notes.txt" in err


def test_warnings_go_to_stderr_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "ts"
    shutil.copytree(SAMPLE, folder)
    results = folder / "results" / "basic___GPT4___results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[1:]))
    code, out, err = run(["score", "worldsense", "-t", str(folder)], capsys)
    assert code == 0 and "GPT4" in out
    # The first trial belongs to a 3-trial Compl tuple: its two other answers are left out, and said so.
    assert err.splitlines() == [
        f"benchlab: warning: {results}: 1 tuple(s) incomplete (2 answers), not scored: every trial of a tuple "
        "needs an answer"
    ]


# ---------------------------------------------------------------------------------------------- bad input


def _bad_testset(tmp_path: Path) -> Path:
    folder = tmp_path / "bad"
    shutil.copytree(SAMPLE, folder)
    return folder


def _plain_trials(folder: Path) -> Path:
    """Replace the .bz2 trials by a plain .jsonl copy (easier to damage), returning its path."""
    plain = folder / "trials.jsonl"
    plain.write_bytes(bz2.decompress((folder / "trials.jsonl.bz2").read_bytes()))
    (folder / "trials.jsonl.bz2").unlink()
    return plain


def _expect_one_error(capsys: pytest.CaptureFixture[str], argv: list[str], *needles: str) -> str:
    code, out, err = run(argv, capsys)
    assert code == 2, (out, err)
    assert "Traceback" not in err and out == ""
    lines = [line for line in err.splitlines() if line.startswith("benchlab: error:")]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_truncated_bz2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _bad_testset(tmp_path)
    trials = folder / "trials.jsonl.bz2"
    trials.write_bytes(trials.read_bytes()[:3000])
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], str(trials), "truncated")


def test_malformed_json_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _bad_testset(tmp_path)
    plain = _plain_trials(folder)
    lines = plain.read_text().splitlines(keepends=True)
    lines[6] = lines[6][:40] + "\n"
    plain.write_text("".join(lines))
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], f"{plain}:7:", "not valid JSON")


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [("problemsize", None, "missing field 'problemsize'"), ("Key", "123", "field 'Key'"),
     ("expectedresp", "TRUE", "field 'expectedresp'")],
)
def test_missing_or_mistyped_trial_field(tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str,
                                         value: object, needle: str) -> None:
    folder = _bad_testset(tmp_path)
    plain = _plain_trials(folder)
    lines = plain.read_text().splitlines(keepends=True)
    record = json.loads(lines[10])
    if value is None:
        del record[field]
    else:
        record[field] = value
    lines[10] = json.dumps(record) + "\n"
    plain.write_text("".join(lines))
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], f"{plain}:11:", needle)


def test_mistyped_results_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _bad_testset(tmp_path)
    results = folder / "results" / "basic___GPT4___results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"resp":', '"answer":')
    results.write_text("".join(lines))
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], f"{results}:3:", "missing field 'resp'")


def test_results_for_another_test_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _bad_testset(tmp_path)
    other = folder / "results" / "basic___other___results.jsonl"
    other.write_text('{"Key":1,"resp":"TRUE"}\n{"Key":2,"resp":"FALSE"}\n')
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], str(other), "another test set")


def test_unreadable_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope"
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(missing)], str(missing), "no such")
    folder = _bad_testset(tmp_path)
    (folder / "trials.jsonl.bz2").unlink()
    (folder / "trials.jsonl.bz2").mkdir()  # a folder where the file should be
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], str(folder / "trials.jsonl.bz2"),
                      "is a folder, expected a trials file")
    missing_results = tmp_path / "no-results"
    _expect_one_error(capsys, ["score", "worldsense", "--sample", "--results", str(missing_results)],
                      str(missing_results), "no such results folder")


def test_empty_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(empty)], str(empty), "no trials file")
    folder = _bad_testset(tmp_path)
    shutil.rmtree(folder / "results")
    (folder / "results").mkdir()
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], str(folder / "results"), "no results files")


def test_empty_trials_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _bad_testset(tmp_path)
    plain = _plain_trials(folder)
    plain.write_text("")
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], str(plain), "empty")


@pytest.mark.slow
def test_bench_compares_with_an_original_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`benchlab bench worldsense --original DIR` runs DIR/analyse_results.py and compares its printed cells.

    The stand-in prints what the real script printed for the bundled sample (tests/data/worldsense).
    """
    golden = Path(__file__).parent / "data" / "worldsense" / "sample_original_output.txt"
    original = tmp_path / "original"
    original.mkdir()
    (original / "analyse_results.py").write_text(
        f"import sys\nsys.stdout.write(open({str(golden)!r}).read())\n")
    code, out, err = run(["bench", "worldsense", "--original", str(original), "--repeat", "1"], capsys)
    assert code == 0, err
    assert "printed tables identical to the original's, cell for cell: yes" in out
    for name in ("benchlab, first run (no cache)", "benchlab, second run (cached)", "original analyse_results.py"):
        assert name in out
    assert "x the memory" in out and "peak RSS" in out
    # A differing cell is caught.
    (original / "analyse_results.py").write_text(
        f"import sys\nsys.stdout.write(open({str(golden)!r}).read().replace('72.2 (8.1)', '72.3 (8.1)'))\n")
    code, out, err = run(["bench", "worldsense", "--original", str(original), "--repeat", "1"], capsys)
    assert code == 2 and "cell for cell: NO" in out and "differ" in err


def test_score_sample_demo_text() -> None:
    from benchlab.annotations.worldsense.commands import score_sample_demo

    text = score_sample_demo()
    assert text.startswith("WorldSense sample (") and "54 tuples, 4 models" in text
    assert "AVERAGE ACCURACY ACROSS ALL PROBLEMS" in text and "Llama2-FT+1M   74.1 (7.9)" in text


def test_permission_denied_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """(Tests run as root in CI, where chmod cannot make a file unreadable: simulate the OS refusing.)"""
    folder = _bad_testset(tmp_path)
    trials = folder / "trials.jsonl.bz2"
    real_read_bytes = Path.read_bytes

    def refuse(self: Path) -> bytes:
        if self == trials:
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    _expect_one_error(capsys, ["score", "worldsense", "-t", str(folder)], str(trials), "permission denied")
