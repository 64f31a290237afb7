"""What a lab day does to results files, through the CLI: duplicated, cut and column-less SORT files, bad bytes.

Each case is run as a user runs it (``benchlab ...`` through :func:`benchlab.tui.cli.main`): a file a user can fix
gives exit 2 and one line naming the file and line, never a traceback or an internal error (exit 70); a file a
killed writer or a copy left behind scores with a warning that says what was left out.
"""

from __future__ import annotations

import bz2
import contextlib
import csv
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.texts import read_text_file
from benchlab.annotations.sort.human_record import HumanSortRow, SortResultsLog
from benchlab.data.fastbook.locate import sample_benchmark_path
from benchlab.data.samples import sample_path
from benchlab.data.sort.loaders import Selection, load_records
from benchlab.data.sort.results import results_filename
from benchlab.data.sort.writers import write_layout
from benchlab.data.worldsense.results import read_results as read_worldsense_results
from benchlab.tui.cli import main

WS_SAMPLE = sample_path("worldsense")
SORT_SAMPLE = sample_path("booksort")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, where: str, message: str) -> None:
    """Exit 2 and exactly ``benchlab: error: <where>: <message>...``: one line, no traceback, no crash report."""
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    assert err.startswith(f"benchlab: error: {where}: {message}"), err


def bad_byte_on_line(path: Path, line: int) -> None:
    """Put a byte that is never UTF-8 (0xff) at the start of ``line`` (1-based) of a plain file."""
    lines = path.read_bytes().split(b"\n")
    lines[line - 1] = b"\xff" + lines[line - 1]
    path.write_bytes(b"\n".join(lines))


# --------------------------------------------------------------------------------------------- SORT files

def sort_human_file(folder: Path, n: int = 16, participant: str = "P1") -> Path:
    """A participant's results file as a session writes it: ``n`` scored trials, half of them right."""
    records = load_records(SORT_SAMPLE, Selection(excerpt_length=250, segment_length=20, split="test"))[:n]
    path = folder / results_filename(250, 20, f"human-{participant}")
    log = SortResultsLog(path)
    for i, rec in enumerate(records):
        answer = rec.ground_truth if i % 2 == 0 or i < 4 else ("B" if rec.ground_truth == "A" else "A")
        log.append(HumanSortRow.from_trial(rec, answer, model_name=f"human-{participant}", participant=participant,
                                           session="1", condition="stm", trial_index=i, block=1, practice=False,
                                           seed=5, rt_ms=1200.0 + i))
    return path


def overall(out: str) -> dict[str, object]:
    """The first row of the overall table of ``score sort --format json``."""
    table = json.loads(out)[0]
    cells: dict[str, object] = table["rows"][0]["cells"]
    return cells


def test_sort_rows_appended_again_count_once_with_a_warning(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    clean = sort_human_file(tmp_path / "clean")
    code, out, err = run(["score", "sort", str(clean), "--format", "json"], capsys)
    assert code == 0 and err == ""
    expected = overall(out)
    assert expected["n"] == 16
    doubled = sort_human_file(tmp_path / "doubled")
    lines = doubled.read_bytes().splitlines(keepends=True)
    doubled.write_bytes(b"".join(lines) + b"".join(lines[1:4]))  # three rows appended again (lines 18-20)
    code, out, err = run(["score", "sort", str(doubled), "--format", "json"], capsys)
    assert code == 0
    got = overall(out)
    assert got["n"] == 16 and got["accuracy"] == expected["accuracy"]  # not n=19 with the repeats counted
    assert err == (f"benchlab: warning: {doubled}: 3 repeated answer(s) to the same trial (e.g. "
                   f"{_item(doubled, 2)} again on line 18); the first answer of each is scored\n")
    code, out, err = run(["compare", "sort", str(doubled), "--format", "json"], capsys)
    assert code == 0 and "Traceback" not in err
    assert "scoring warning:" in out and "3 repeated answer(s) to the same trial" in out


def _item(path: Path, line: int) -> str:
    """The trial of a row of a (one-line-per-row) results file, as the warning names it."""
    import csv

    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    row = dict(zip(rows[0], rows[line - 1], strict=True))
    return (f"e{row['excerpt_length']}-s{row['segment_length']}/{row['book_idx']}/{row['excerpt_idx']}/"
            f"{row['distance_bin']}")


def _drop_columns(path: Path, *names: str) -> None:
    import csv

    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    keep = [i for i, c in enumerate(rows[0]) if c not in names]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows([[r[i] for i in keep] for r in rows])


@pytest.mark.parametrize("command", ["score", "compare"])
def test_sort_file_without_distance_bin_or_positions_is_an_error_naming_column_and_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    path = sort_human_file(tmp_path)
    _drop_columns(path, "distance_bin", "seg1_pos", "seg2_pos")
    code, _out, err = run([command, "sort", str(path)], capsys)
    assert_one_line_error(code, err, f"{path}:1", "missing column 'distance_bin'")  # the header's line


def test_sort_distance_bin_is_derived_from_the_segment_positions(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Spec 3.2/8: the bin is the right edge of the interval strictly holding seg2_pos - seg1_pos."""
    clean = sort_human_file(tmp_path / "clean")
    code, expected, _ = run(["score", "sort", str(clean), "--format", "csv"], capsys)
    assert code == 0
    derived = sort_human_file(tmp_path / "derived")
    _drop_columns(derived, "distance_bin")
    code, out, err = run(["score", "sort", str(derived), "--format", "csv"], capsys)
    assert code == 0 and out == expected  # every bin the same as written (62/83/125/200), not a bogus bin 0
    assert err == (f"benchlab: warning: {derived}: no 'distance_bin' column; derived from seg2_pos - seg1_pos with "
                   "the published bin edges\n")


def test_sort_file_without_book_idx_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sort_human_file(tmp_path)
    _drop_columns(path, "book_idx")
    code, _out, err = run(["score", "sort", str(path)], capsys)
    assert_one_line_error(code, err, f"{path}:1", "missing column 'book_idx'")


@pytest.mark.parametrize("cut", ["in_quoted_text", "in_a_character", "in_last_field"])
def test_sort_file_cut_mid_row_scores_the_rows_before_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: str) -> None:
    before = sort_human_file(tmp_path / "before", n=15)
    code, expected, _ = run(["score", "sort", str(before), "--format", "csv"], capsys)
    path = sort_human_file(tmp_path / "cut", n=16)
    raw = path.read_bytes()
    last = raw.rstrip(b"\n").rfind(b"\n") + 1  # line 17, the 16th row
    if cut == "in_quoted_text":
        end = raw.index(b'"', raw.index(b'"', last) + 1) - 5  # inside the excerpt text, quote still open
    elif cut == "in_a_character":
        raw = raw[:last] + raw[last:].replace(b",stm,", "\u2019,stm,".encode(), 1)
        end = raw.index("\u2019".encode(), last) + 1  # the first byte of a 3-byte character
    else:
        end = len(raw) - 3  # the last value cut short: as wide as the header, but without its newline
    path.write_bytes(raw[:end])
    for command in ("score", "compare"):
        code, out, err = run([command, "sort", str(path), "--format", "csv"], capsys)
        assert code == 0, err
        warning = f"{path}:17: the last row is incomplete (the writer was stopped mid-row?); ignored"
        if command == "score":
            assert err == f"benchlab: warning: {warning}\n"
            assert out == expected.replace(str(before), str(path))  # scored on the 15 rows before
        else:
            assert warning in out


def test_sort_malformed_row_in_the_middle_is_an_error_naming_its_line(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = sort_human_file(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[5] = lines[5].rsplit(b",", 3)[0]  # line 6 lost its last three fields
    path.write_bytes(b"\n".join(lines))
    for command in ("score", "compare"):
        code, _out, err = run([command, "sort", str(path)], capsys)
        assert_one_line_error(code, err, f"{path}:6", "expected ")
    lines[5] = lines[5] + b',"a"b,c,d'  # a closed quote followed by text: not CSV
    path.write_bytes(b"\n".join(lines))
    code, _out, err = run(["score", "sort", str(path)], capsys)
    assert_one_line_error(code, err, f"{path}:6", "malformed CSV row")


def test_an_answer_score_refuses_is_refused_by_export_too_naming_its_line(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """An export used to carry `zz\x01` as a response with exit 0 while `score sort` refused the same file."""
    path = sort_human_file(tmp_path)
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        rows, starts = [], []
        while True:
            starts.append(reader.line_num + 1)
            try:
                rows.append(next(reader))
            except StopIteration:
                break
    answer = rows[0].index("answer")
    assert rows[4][answer] in ("A", "B")
    rows[4][answer] = "zz"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    line = starts[4]
    for command in (["score", "sort", str(path)], ["export", "trials", "sort", str(path)]):
        code, out, err = run(command, capsys)
        assert_one_line_error(code, err, f"{path}:{line}", "field 'answer': 'zz' is not A, B or X")
        assert out == ""


# --------------------------------------------------------------------------------------------- bad bytes

def _ws_results(tmp: Path, text: bytes) -> list[str]:
    folder = tmp / "results"
    folder.mkdir()
    shutil.copy(WS_SAMPLE / "results" / "basic___GPT4___results.jsonl", folder)
    (folder / "basic___human-P1___results.jsonl").write_bytes(text)
    return ["-t", str(WS_SAMPLE), "--results", str(folder)]


def _ws_first_lines(n: int) -> bytes:
    return b"".join((WS_SAMPLE / "results" / "basic___GPT4___results.jsonl").read_bytes().splitlines(True)[:n])


def _ws_trials(tmp: Path, compressed: bool) -> tuple[list[str], Path]:
    folder = tmp / "testset"
    folder.mkdir()
    text = bz2.decompress((WS_SAMPLE / "trials.jsonl.bz2").read_bytes())
    lines = text.split(b"\n")
    lines[9] = lines[9].replace(b"There are", b"There \xffare", 1) if b"There are" in lines[9] else \
        lines[9].replace(b'"text": "', b'"text": "\xff', 1)
    assert b"\xff" in lines[9]  # inside the question text: a field the fast reader does not decode
    data = b"\n".join(lines)
    path = folder / ("trials.jsonl.bz2" if compressed else "trials.jsonl")
    path.write_bytes(bz2.compress(data) if compressed else data)
    shutil.copytree(WS_SAMPLE / "results", folder / "results")
    return ["-t", str(folder)], path


def _sort_results(tmp: Path) -> tuple[list[str], Path]:
    path = sort_human_file(tmp)
    bad_byte_on_line(path, 7)
    return [str(path)], path


def _booksort_csv(tmp: Path) -> tuple[list[str], Path]:
    records = load_records(SORT_SAMPLE, Selection(excerpt_length=250, segment_length=20))
    written = write_layout(records, tmp / "csv", "csv")
    excerpts = next(p for p in written if p.name.startswith("excerpts_"))
    bad_byte_on_line(excerpts, 3)
    return [str(tmp / "csv")], excerpts


def _booksort_jsonl(tmp: Path) -> tuple[list[str], Path]:
    records = load_records(SORT_SAMPLE, Selection(excerpt_length=250, segment_length=20))
    (path,) = write_layout(records, tmp / "jsonl", "jsonl")
    bad_byte_on_line(path, 4)
    return [str(path)], path


def _fastbook_benchmark(tmp: Path) -> tuple[list[str], Path]:
    path = tmp / "fastbook-benchmark.json"
    shutil.copy(sample_benchmark_path(), path)
    bad_byte_on_line(path, 5)
    run_file = tmp / "run.jsonl"
    run_file.write_text("")
    return ["--benchmark", str(path), str(run_file)], path


def _fastbook_run(tmp: Path) -> tuple[list[str], Path]:
    path = tmp / "run.jsonl"
    path.write_bytes(b'{"chapter": 1, "question_number": 1, "passages": ["a"]}\n'
                     b'{"chapter": 1, "question_number": 2, "passages": ["\xe9t\xe9"]}\n')
    return ["--benchmark", str(sample_benchmark_path()), str(path)], path


def _fastbook_chapter(tmp: Path) -> tuple[list[str], Path]:
    chapters = tmp / "chapters"
    shutil.copytree(sample_benchmark_path().parent / "chapters", chapters)
    path = chapters / "chapter_1.txt"
    bad_byte_on_line(path, 5)
    return ["--benchmark", str(sample_benchmark_path()), "--chapters", str(chapters)], path


CASES: dict[str, tuple[list[str], Callable[[Path], tuple[list[str], Path]], int]] = {
    # name: (command, make(tmp) -> (arguments, file at fault), line of the bad byte)
    "score worldsense: results, published form": (
        ["score", "worldsense"], lambda t: (_ws_results(t, b'{"Key":1,"resp":"\xff"}\n'),
                                            t / "results" / "basic___human-P1___results.jsonl"), 1),
    "score worldsense: results, spaced": (
        ["score", "worldsense"], lambda t: (_ws_results(t, _ws_first_lines(2) + b'{"Key": 1, "resp": "\xff"}\n'),
                                            t / "results" / "basic___human-P1___results.jsonl"), 3),
    "compare worldsense: results": (
        ["compare", "worldsense"], lambda t: (_ws_results(t, b'{"Key": 1, "resp": "\xff"}\n'),
                                              t / "results" / "basic___human-P1___results.jsonl"), 1),
    "score worldsense: trials.jsonl": (["score", "worldsense"], lambda t: _ws_trials(t, False), 10),
    "score worldsense: trials.jsonl.bz2": (["score", "worldsense"], lambda t: _ws_trials(t, True), 10),
    "compare worldsense: trials.jsonl.bz2": (["compare", "worldsense", "--no-published"],
                                             lambda t: _ws_trials(t, True), 10),
    "score sort": (["score", "sort"], _sort_results, 7),
    "compare sort": (["compare", "sort"], _sort_results, 7),
    "export trials sort": (["export", "trials", "sort"], _sort_results, 7),
    "booksort info: CSV triple": (["booksort", "info"], _booksort_csv, 3),
    "booksort check: JSONL": (["booksort", "check"], _booksort_jsonl, 4),
    "score fastbook: benchmark JSON": (["score", "fastbook"], _fastbook_benchmark, 5),
    "score fastbook: run JSONL": (["score", "fastbook"], _fastbook_run, 2),
    "fastbook audit: chapter text": (["fastbook", "audit"], _fastbook_chapter, 5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_invalid_utf8_is_one_line_naming_file_and_line(name: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    command, make, line = CASES[name]
    args, at_fault = make(tmp_path)
    code, _out, err = run([*command, *args], capsys)
    assert_one_line_error(code, err, f"{at_fault}:{line}", "not valid UTF-8 (byte 0x")


def test_score_worldsense_ignores_a_last_line_cut_inside_a_character(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A writer killed mid-character leaves half a UTF-8 sequence: that is a torn line, not a bad file."""
    args = _ws_results(tmp_path, _ws_first_lines(3) + '{"Key": 1, "resp": "\u2019'.encode()[:-1])
    code, _out, err = run(["score", "worldsense", *args], capsys)
    assert code == 0 and "line 4 is incomplete" in err and "Traceback" not in err


def test_library_readers_name_file_and_line_of_bad_bytes(tmp_path: Path) -> None:
    """Plans, consent/instruction texts, results logs and a resumed participant's CSV: the same strict rule."""
    from benchlab.data.errors import BenchlabError

    plan = tmp_path / "plan.json"
    plan.write_bytes(b'{\n  "participant": "P\xe91"\n}\n')
    with pytest.raises(BenchlabError, match=r"plan.json:2: not valid UTF-8 \(byte 0xe9 at column 20\)"):
        SessionPlan.load(plan)
    consent = tmp_path / "consent.txt"
    consent.write_bytes(b"I agree.\nCaf\xe9\n")
    with pytest.raises(BenchlabError, match=r"consent.txt:2: not valid UTF-8"):
        read_text_file(consent, "consent")
    results = tmp_path / "basic___human-P1___results.jsonl"
    results.write_bytes(_ws_first_lines(2) + b'{"Key": 1, "resp": "\xff"}\n')
    with pytest.raises(BenchlabError, match=r"results.jsonl:3: not valid UTF-8"):
        read_worldsense_results(results)
    sort_file = sort_human_file(tmp_path / "sort")
    bad_byte_on_line(sort_file, 4)
    with pytest.raises(BenchlabError, match=r"_results.csv:4: not valid UTF-8"):
        SortResultsLog(sort_file).peek()


def test_sort_quote_never_closed_in_the_middle_is_an_error_not_a_cut(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """An opening quote that swallows the rest of the file must not pass for a torn last row (rows lost silently)."""
    path = sort_human_file(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[4] = lines[4] + b',"never closed'  # line 5: a quote opens a field that runs to the end of the file
    path.write_bytes(b"\n".join(lines)[:-1])
    code, _out, err = run(["score", "sort", str(path)], capsys)
    assert_one_line_error(code, err, f"{path}:5", "malformed CSV row")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.integers(min_value=0, max_value=10_000), junk=st.binary(min_size=1, max_size=4),
       cut=st.booleans())
def test_fast_readers_only_ever_accept_or_name_the_problem(tmp_path: Path, position: int, junk: bytes,
                                                          cut: bool) -> None:
    """Any bytes spliced into a results or trials file (and the file perhaps cut there): read, or one
    BenchlabError; never an internal error from the fast paths (pyarrow, the byte scanner, the cache)."""
    from benchlab.data.errors import BenchlabError
    from benchlab.data.worldsense.columns import read_trial_columns
    from benchlab.data.worldsense.result_columns import read_result_columns

    results = _ws_first_lines(40)
    trials = bz2.decompress((WS_SAMPLE / "trials.jsonl.bz2").read_bytes())[:20_000]
    trials = trials[: trials.rfind(b"\n") + 1]
    for name, data, read in (
        ("basic___x___results.jsonl", results, lambda p: read_result_columns(p, "basic", "x")),
        ("trials.jsonl", trials, read_trial_columns),
    ):
        at = position % len(data)
        spliced = data[:at] + junk + (b"" if cut else data[at:])
        path = tmp_path / name
        path.write_bytes(spliced)
        with contextlib.suppress(BenchlabError):  # a named problem is fine; anything else fails the test
            read(path)


def test_sort_file_cut_in_its_header_is_left_out_of_a_folder_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The first write (header and first row) cut short: nothing was recorded; the folder's other files score."""
    good = sort_human_file(tmp_path / "results", participant="P1")
    code, expected, _ = run(["score", "sort", str(good), "--format", "csv"], capsys)
    cut = sort_human_file(tmp_path / "results", participant="P2")
    cut.write_bytes(cut.read_bytes()[:40])
    code, out, err = run(["score", "sort", str(tmp_path / "results"), "--format", "csv"], capsys)
    assert code == 0, err
    assert err == (f"benchlab: warning: {cut}:1: the last row is incomplete (the writer was stopped mid-row?); "
                   "ignored\n")
    assert out == expected


def test_sort_whole_book_gap_bin_is_derived_from_the_segment_positions(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Whole-book trials: the gap bin [lo, hi) holding seg2_pos - seg1_pos - segment_length, as the design made it."""
    import pandas as pd

    records = load_records(sample_path("booksort-whole-book"), Selection(split="test"))[::20]  # every gap bin
    frame = pd.DataFrame([r.model_dump() for r in records]).drop(columns=["segment_1", "segment_2"])
    frame["model_name"] = "llama"
    frame["answer"] = ["A" if i % 3 else "B" for i in range(len(frame))]
    frame["ground_truth"] = ["A" if p else "B" for p in frame["present_seg1_first"]]
    le = records[0].excerpt_length
    written = tmp_path / "written" / f"{le}-s20-hf_llama_results.csv"
    written.parent.mkdir()
    frame.to_csv(written)
    code, expected, _ = run(["score", "sort", str(written), "--format", "csv"], capsys)
    assert code == 0 and "gap" in expected
    derived = tmp_path / "derived" / written.name
    derived.parent.mkdir()
    frame.drop(columns=["distance_bin"]).to_csv(derived)
    code, out, err = run(["score", "sort", str(derived), "--format", "csv"], capsys)
    assert code == 0 and out == expected.replace(str(written), str(derived))
    assert "no 'distance_bin' column; derived" in err
