"""The paper's whole-book SORT design: generated from a whole book, run in LTM, scored and compared by gap bin."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.sort.books import prepare
from benchlab.data.sort.compare import compare_sort
from benchlab.data.sort.generator import check_trials
from benchlab.data.sort.loaders import Selection, available_configs, load_records
from benchlab.data.sort.records import BookSortRecord
from benchlab.data.sort.whole_book import GAP_EDGES, gap_bin_label, generate_whole_book
from benchlab.data.sort.writers import records_frame
from benchlab.tui.cli import cli, main
from tests.conftest import full_data

WHOLE_BOOK = sample_path("booksort-whole-book")
PAPER_BINS = ["0-400", "400-1k", "1k-1.5k", "1.5k-4k", "4k-10k", "10k-16.5k", "16.5k-25k", "25k-40k"]
PROSE = ("The lamp was lit at dusk. Nobody came to the door; the rain kept everyone inside. Mr. Hale wrote letters "
         "until late! Did anyone read them? His sister said so, but she was often wrong. ")


def _story(tmp_path: Path, words: int) -> Path:
    """A Gutenberg-like text of about ``words`` words, each sentence numbered so every segment is unique."""
    sentences = [s.strip() + "." for s in PROSE.replace("!", ".").replace("?", ".").split(".") if s.strip()]
    body: list[str] = []
    n = 0
    i = 0
    while n < words:
        sentence = f"{sentences[i % len(sentences)][:-1]} {i}."
        body.append(sentence)
        n += len(sentence.split())
        i += 1
    path = tmp_path / "story.txt"
    path.write_text("*** START OF THE PROJECT GUTENBERG EBOOK A STORY ***\n\nCHAPTER 1\n\n" + " ".join(body)
                    + "\n\n*** END OF THE PROJECT GUTENBERG EBOOK A STORY ***\n", encoding="utf-8")
    return path


def _assert_whole_book_design(records: list[BookSortRecord], n_words: int) -> None:
    """8 gap bins x 110 pairs, 20-word segments at gaps inside their bins, A/B half and half, the whole book used."""
    assert Counter(gap_bin_label(r.distance_bin) for r in records) == {b: 110 for b in PAPER_BINS}
    for r in records:
        assert r.design == "whole-book" and r.excerpt_length == n_words and r.excerpt_text == ""
        assert len(r.segment_1.split()) == 20 and len(r.segment_2.split()) == 20
        low = GAP_EDGES[GAP_EDGES.index(r.distance_bin) - 1]
        assert low <= r.seg2_pos - r.seg1_pos - 20 < r.distance_bin
    for edge in GAP_EDGES[1:]:
        for split in ("test", "validation"):
            shown = [r.present_seg1_first for r in records if r.distance_bin == edge and r.split == split]
            assert len(shown) == (100 if split == "test" else 10) and sum(shown) * 2 == len(shown)
    # From across the whole book: every tenth of it holds segments, the pairs reach both ends.
    starts = [p for r in records for p in (r.seg1_pos, r.seg2_pos)]
    assert {p * 10 // n_words for p in starts} == set(range(10))
    assert min(starts) < 0.02 * n_words and max(starts) > 0.98 * n_words
    # The longest gaps are long: some pair in the last bin is more than 30,000 words apart.
    assert max(r.seg2_pos - r.seg1_pos for r in records if r.distance_bin == 40000) > 30000


@pytest.mark.fulldata
def test_whole_book_design_from_roger_ackroyd_is_the_papers_and_reproducible() -> None:
    book = prepare(full_data("booksort", "pg_full_text") / "69087-0.txt")
    records, report = generate_whole_book(book, 20)
    assert report.problems == [] and check_trials(records, book.words) == []
    _assert_whole_book_design(records, len(book.words))
    for r in records[:50]:  # segments verbatim in the book
        assert book.words[r.seg1_pos:r.seg1_pos + 20] == r.segment_1.split()
    again, _ = generate_whole_book(book, 20)
    other, _ = generate_whole_book(book, 20, seed=1)
    assert again == records and other != records
    # The bundled sample is exactly this output (default seed), row for row.
    sample = load_records(WHOLE_BOOK)
    key = ["distance_bin", "excerpt_idx"]
    pd.testing.assert_frame_equal(
        records_frame(sample).sort_values(key).reset_index(drop=True),
        records_frame(records).sort_values(key).reset_index(drop=True))


def test_bundled_whole_book_sample_passes_its_checks_and_old_loaders_read_it() -> None:
    records = load_records(WHOLE_BOOK)
    assert check_trials(records) == []
    _assert_whole_book_design(records, 69607)
    assert available_configs(WHOLE_BOOK) == [(69607, 20)]
    assert (WHOLE_BOOK / "LICENSE").is_file() and "69087" in (WHOLE_BOOK / "ATTRIBUTION.md").read_text()
    # The excerpt sample is untouched: no design column there, read as the excerpt design.
    assert {r.design for r in load_records(sample_path("booksort"), Selection(excerpt_length=250))} == {"excerpt"}
    with pytest.raises(BenchlabError, match="no trials match"):
        load_records(WHOLE_BOOK, Selection(design="excerpt"))


def test_make_whole_book_from_any_text_seeded_in_every_layout(tmp_path: Path) -> None:
    text = _story(tmp_path, 30_000)
    runner = CliRunner()
    outs = []
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        out = tmp_path / name
        result = runner.invoke(cli, ["booksort", "make", "--design", "whole-book", "--text", str(text), "--seed", seed,
                                     "--out", str(out), "--layout", "parquet", "--layout", "csv", "--layout",
                                     "jsonl"])
        assert result.exit_code == 0, result.output
        outs.append(out)
    # 30,000 words hold every bin, 25k-40k included.
    assert "8 gap bins x 110 pairs" in result.output and "checks passed" in result.output
    a, b, c = (load_records(o) for o in outs)
    assert a == b and a != c
    assert check_trials(a) == []
    for layout in ("booksort_e*_s20.jsonl", "segments_*-s20-n110.csv"):
        (file,) = outs[0].glob(layout)
        again = load_records(file if file.suffix == ".jsonl" else file.parent / file.name)
        assert sorted(again, key=lambda r: r.trial_id) == sorted(a, key=lambda r: r.trial_id)
    check = runner.invoke(cli, ["booksort", "check", str(outs[0]), "--text", str(text)])
    assert check.exit_code == 0 and "ok" in check.output, check.output
    # A shorter text: the bins it cannot hold are left out and said so.
    short = runner.invoke(cli, ["booksort", "make", "--design", "whole-book", "--text", str(_story(tmp_path, 3000)),
                                "--out", str(tmp_path / "short")])
    assert short.exit_code == 0, short.output
    assert "left out (text too short): 4k-10k, 10k-16.5k, 16.5k-25k, 25k-40k" in short.output


def test_check_catches_a_pair_outside_its_gap_bin() -> None:
    records = load_records(WHOLE_BOOK)
    r = records[0]
    moved = r.model_copy(update={"distance_bin": 40000 if r.distance_bin != 40000 else 400})
    assert any("outside" in p for p in check_trials([moved, *records[1:]]))


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``benchlab ARGS`` in-process, as a user runs it: (exit code, stdout, stderr)."""
    capsys.readouterr()
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_ltm_whole_book_oracle_run_is_scored_and_compared_by_gap_bin(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lab"
    code, stdout, stderr = _run(["run", "sort", "--participant", "SIM", "--condition", "ltm", "--design",
                                 "whole-book", "--simulate", "oracle", "--trials", "16", "--practice", "0",
                                 "--out", str(out)], capsys)
    assert code == 0, stdout + stderr
    (results,) = (out / "results").glob("*_results.csv")
    assert results.name == "69607-s20-human_SIM_results.csv"
    rows = pd.read_csv(results, index_col=0, keep_default_na=False)
    assert set(rows["design"]) == {"whole-book"} and set(rows["condition"]) == {"ltm"}
    assert Counter(rows["distance_bin"]) == {edge: 2 for edge in GAP_EDGES[1:]}
    # score sort: a table by gap bin, rows keyed by participant and condition
    code, stdout, stderr = _run(["score", "sort", str(out / "results"), "--format", "csv"], capsys)
    assert code == 0, stderr
    tables = pd.read_csv(io.StringIO(stdout))  # several tables: one CSV, the `table` column names each
    frame = tables[tables["table"].str.contains("by gap bin")].dropna(axis=1, how="all")
    assert list(frame["gap_bin"]) == PAPER_BINS
    assert set(frame["model"]) == {"human-SIM ltm (simulated oracle)"}
    assert (frame["accuracy"] == 1.0).all() and (frame["n"] == 2).all()
    assert "by distance bin" not in stdout  # no excerpt-design rows here
    # compare sort: one column per gap bin
    comp = compare_sort([out / "results"], n_boot=100)
    table = comp.accuracy_table().frame
    assert [c for c in table.columns if " gap " in str(c)] == [f"e69607-s20 gap {b}" for b in PAPER_BINS]
    (cell,) = [c for (_, condition), c in comp.cells.items() if condition == "e69607-s20 gap 25k-40k"]
    assert cell is not None and cell.value == 1.0 and cell.n_units == 2


def test_whole_book_design_is_ltm_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, stderr = _run(["run", "sort", "--participant", "P1", "--design", "whole-book", "--simulate", "oracle"],
                           capsys)
    assert code == 2
    assert "long-term memory design" in stderr and "--condition ltm" in stderr and "Traceback" not in stderr
