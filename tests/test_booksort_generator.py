"""The BookSORT generator: published preprocessing, exact reproduction, self-validation, refusals."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.sort.books import prepare
from benchlab.data.sort.generator import check_trials, ends_sentence, generate
from benchlab.data.sort.loaders import Selection, load_frame, load_records
from benchlab.data.sort.records import PARQUET_COLUMNS
from benchlab.data.sort.writers import records_frame
from benchlab.tui.cli import cli
from tests.conftest import full_data

# Word counts from the dataset card (with chapter titles) and after title removal (spec section 2).
CARD = {
    69087: (69720, 69607), 72578: (43853, 43742), 72600: (59081, 58970), 72869: (79946, 79849),
    72958: (42354, 42236), 72963: (104530, 104461), 72972: (82331, 82250), 73017: (9273, 9267),
    73042: (163217, 163105),
}

PROSE = (
    "The lamp was lit at dusk. Nobody came to the door; the rain kept everyone inside. Mr. Hale wrote letters "
    "until late! Did anyone read them? His sister said so, but she was often wrong. "
)


def _text_file(tmp_path: Path, words: int, name: str = "story.txt") -> Path:
    per = len(PROSE.split())
    body = []
    for chapter in range(1, 6):
        body.append(f"CHAPTER {chapter}\n\nA TITLE LINE\n\n")
        body.append((PROSE * (words // per // 5 + 1)) + "\n\n")
    path = tmp_path / name
    path.write_text("*** START OF THE PROJECT GUTENBERG EBOOK A STORY ***\n\n" + "".join(body)
                    + "\nTHE END\n\n*** END OF THE PROJECT GUTENBERG EBOOK A STORY ***\nLicence text here.\n")
    return path


def test_sentence_ends_follow_the_published_rule() -> None:
    assert ends_sentence("dusk.") and ends_sentence("inside;") and ends_sentence("them?") and ends_sentence("St.")
    assert ends_sentence("“Yes.”") and ends_sentence("a.m.,")
    assert not ends_sentence("Mr.") and not ends_sentence("MRS.") and not ends_sentence("Dr.")
    assert not ends_sentence("said,")


@pytest.mark.fulldata
@pytest.mark.slow
def test_preprocessing_reproduces_the_card_word_counts_for_all_nine_books() -> None:
    folder = full_data("booksort", "pg_full_text")
    for book_id, (num_words, without_titles) in CARD.items():
        book = prepare(folder / f"{book_id}-0.txt")
        assert (book.book_idx, book.num_words, len(book.words)) == (book_id, num_words, without_titles)
    assert prepare(folder / "69087-0.txt").title == "The Murder Of Roger Ackroyd"
    # Pomona is sampled from its own text (the published script's bug used Money for Nothing's).
    assert prepare(folder / "73017-0.txt").words[:3] != prepare(folder / "72972-0.txt").words[:3]


@pytest.mark.fulldata
@pytest.mark.slow
def test_generator_reproduces_the_published_trials_and_validates_on_all_nine_books() -> None:
    books = full_data("booksort", "pg_full_text")
    published = load_frame(full_data("booksort", "regenerated"), Selection(excerpt_length=250, segment_length=20))
    key = ["book_idx", "distance_bin", "excerpt_idx"]
    for book_id in CARD:
        book = prepare(books / f"{book_id}-0.txt")
        records, report = generate(book, 250, 20)
        assert report.problems == [] and check_trials(records, book.words) == []
        assert len(records) == 440 and sum(r.split == "test" for r in records) == 400
        ours = records_frame(records).sort_values(key).reset_index(drop=True)
        theirs = published[published["book_idx"] == book_id][PARQUET_COLUMNS].sort_values(key)
        pd.testing.assert_frame_equal(ours, theirs.reset_index(drop=True), check_dtype=False)


def test_bundled_sample_is_what_the_generator_makes() -> None:
    # The sample was made from 69087 with the published rule; its own checks pass on it.
    recs = load_records(sample_path("booksort"), Selection(excerpt_length=1000, segment_length=20))
    assert check_trials(recs) == []


def test_generic_text_gets_valid_balanced_trials(tmp_path: Path) -> None:
    book = prepare(_text_file(tmp_path, 6000), title="A Story", book_idx=7)
    assert "CHAPTER" not in book.words and "TITLE" not in book.words and "Licence" not in book.words
    assert book.words[:3] == ["The", "lamp", "was"] and book.words[-1] == "wrong."
    records, report = generate(book, 250, 20, seed=3)
    assert report.problems == []
    assert len(records) == 440
    assert {r.distance_bin for r in records} == {62, 83, 125, 200}
    for r in records:
        words = r.excerpt_text.split()
        assert words[r.seg1_pos:r.seg1_pos + 20] == r.segment_1.split()
        assert " ".join(book.words).find(r.excerpt_text) >= 0
    # Same seed, same trials; another seed, other trials.
    again, _ = generate(book, 250, 20, seed=3)
    other, _ = generate(book, 250, 20, seed=4)
    assert again == records and other != records


def test_check_trials_catches_tampering() -> None:
    recs = load_records(sample_path("booksort"), Selection(excerpt_length=250, segment_length=20))
    r = recs[0]
    moved = r.model_copy(update={"seg1_pos": r.seg1_pos + 1})
    problems = check_trials([moved, *recs[1:]])
    assert any("segment_1 is not the 20 words at position" in p for p in problems)
    far = r.model_copy(update={"distance_bin": 200})
    assert any("outside (125, 200)" in p for p in check_trials([far, *recs[1:]]))


def test_too_short_text_is_refused_with_the_numbers(tmp_path: Path) -> None:
    book = prepare(_text_file(tmp_path, 200), title="Tiny")
    with pytest.raises(BenchlabError, match=r"text too short: \d+ words .* needs more than 1,000"):
        generate(book, 1000, 20)
    with pytest.raises(BenchlabError, match="distance bins .* would be empty"):
        generate(book, 100, 50)


def test_make_command_writes_layouts_and_refuses_short_texts(tmp_path: Path) -> None:
    text = _text_file(tmp_path, 3000)
    out = tmp_path / "out"
    runner = CliRunner()
    result = runner.invoke(cli, ["booksort", "make", "--text", str(text), "--title", "My Story", "-e", "250",
                                 "-s", "20", "--seed", "1", "--out", str(out), "--layout", "parquet",
                                 "--layout", "csv"])
    assert result.exit_code == 0, result.output
    assert "checks passed" in result.output
    assert {p.name for p in out.iterdir()} >= {"test_e250_s20.parquet", "validation_e250_s20.parquet",
                                                "segments_250-s20-n110.csv"}
    frame = load_frame(out)
    assert set(frame["book_title"]) == {"My Story"} and len(frame) == 440
    check = runner.invoke(cli, ["booksort", "check", str(out), "--text", str(text)])
    assert check.exit_code == 0 and "ok" in check.output


def test_make_command_error_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from benchlab.tui.cli import main

    text = _text_file(tmp_path, 100)
    with pytest.raises(SystemExit) as exc:
        main(["booksort", "make", "--text", str(text), "--title", "T", "-e", "1000"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchlab: error: {text}: text too short") and "needs more than 1,000" in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.fulldata
def test_generic_cleaner_on_the_nine_books_is_close_to_the_published_preprocessing() -> None:
    # The generic path knows nothing about these books; it still removes the Gutenberg header and licence, the
    # contents and the chapter headings, within a few percent of the hand-written per-book metadata.
    folder = full_data("booksort", "pg_full_text")
    exact = 0
    for book_id, (_, without_titles) in CARD.items():
        book = prepare(folder / f"{book_id}-0.txt", generic=True)
        text = " ".join(book.words)
        assert "Gutenberg" not in text and "CHAPTER" not in book.words
        assert abs(len(book.words) / without_titles - 1) < 0.06, book_id
        exact += len(book.words) == without_titles
    assert exact >= 3


OTHER_PROSE = (
    "Snow fell over the harbour all week. The ferry stopped running, so the island ate tinned peaches! Who "
    "would have guessed the mayor could cook? Old Ruth kept the lighthouse burning anyway. "
)


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from benchlab.tui.cli import main

    with pytest.raises(SystemExit) as info:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


def test_check_against_the_wrong_book_fails_naming_the_missing_excerpts(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    made_from = _text_file(tmp_path, 3000)
    other = tmp_path / "other.txt"
    other.write_text("*** START OF THE PROJECT GUTENBERG EBOOK ANOTHER ***\n\n" + OTHER_PROSE * 200
                     + "\n*** END OF THE PROJECT GUTENBERG EBOOK ANOTHER ***\n", encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = _main(["booksort", "make", "--text", str(made_from), "--out", str(out), "--layout", "jsonl"],
                         capsys)
    assert code == 0, err
    code, stdout, err = _main(["booksort", "check", str(out), "--text", str(other)], capsys)
    assert code == 2 and "(no --text for this book)" in stdout
    assert f"benchlab: error: {other}: 110 of 110 excerpts of book" in err and "not found in this text" in err
    code, stdout, _ = _main(["booksort", "check", str(out), "--text", str(made_from)], capsys)
    assert code == 0 and "(excerpts checked in text): ok" in stdout


def test_check_matches_a_text_by_content_when_made_with_another_title(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # make --title changes the book id; check --text without it must still check the excerpts, not skip them.
    text = _text_file(tmp_path, 3000)
    out = tmp_path / "out"
    code, _, _ = _main(["booksort", "make", "--text", str(text), "--title", "Renamed", "--out", str(out),
                        "--layout", "jsonl"], capsys)
    assert code == 0
    code, stdout, _ = _main(["booksort", "check", str(out), "--text", str(text)], capsys)
    assert code == 0 and "(excerpts checked in text): ok" in stdout


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (bytes(range(256)) * 80, "NUL bytes"),
        (bytes(b % 255 + 1 for b in range(20_000)), "control characters"),
        (("1234 5678 ---- 0x1f. " * 2000).encode(), "letters"),
        (("word " * 5000).encode(), "no sentence ends"),
    ],
)
def test_make_refuses_a_file_that_is_not_plain_text(tmp_path: Path, content: bytes, reason: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "bin.txt"
    binary.write_bytes(content)
    code, _, err = _main(["booksort", "make", "--text", str(binary), "--title", "X", "--out", str(tmp_path / "o")],
                         capsys)
    assert code == 2
    assert err.startswith(f"benchlab: error: {binary}: not a plain-text book") and reason in err
    assert err.count("\n") == 1 and not (tmp_path / "o").exists()


def test_latin1_prose_is_still_a_book(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes(("Café society met at noon. " * 400).encode("latin-1"))
    book = prepare(path, title="Old")
    assert "Café" in book.words
