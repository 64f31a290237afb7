"""``booksort make`` streams its trials through a spool: the files are the ones ``write_layout`` writes for all the
records at once (same rows, order, CSV numbering and names), and nothing is left behind."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchlab.data.samples import sample_path
from benchlab.data.sort import stream_writer
from benchlab.data.sort.arrow_tables import pandas_metadata_known
from benchlab.data.sort.loaders import Selection, load_records
from benchlab.data.sort.records import BookSortRecord
from benchlab.data.sort.stream_writer import StreamingLayouts
from benchlab.data.sort.writers import write_layout

SAMPLE = sample_path("booksort")


def _two_books() -> list[list[BookSortRecord]]:
    """The sample's two configurations as two "books" added out of book order (ids 69087 and 5), one in two parts."""
    first = load_records(SAMPLE, Selection(excerpt_length=250, segment_length=20))
    second = load_records(SAMPLE, Selection(excerpt_length=1000, segment_length=20))
    other = [r.model_copy(update={"book_idx": 5, "book_title": "Another Book"}) for r in first]
    return [first[:200], second, other, first[200:]]


@pytest.mark.parametrize("layout", ["csv", "jsonl", "parquet"])
def test_the_streamed_files_are_the_files_written_at_once(tmp_path: Path, layout: str) -> None:
    batches = _two_books()
    at_once = write_layout([r for batch in batches for r in batch], tmp_path / "at_once", layout)
    with StreamingLayouts(tmp_path / "streamed", [layout]) as spool:
        for batch in batches:
            spool.add(batch)
        streamed = spool.finish()
        assert spool.count == sum(len(b) for b in batches)
    assert [p.name for p in streamed] == [p.name for p in at_once]
    for a, b in zip(at_once, streamed, strict=True):
        if layout == "parquet":
            pd.testing.assert_frame_equal(pd.read_parquet(a), pd.read_parquet(b))
        else:
            assert a.read_bytes() == b.read_bytes(), a.name
    assert sorted(p.name for p in (tmp_path / "streamed").iterdir()) == sorted(p.name for p in streamed)


def test_an_interrupted_make_leaves_no_spool_and_no_partial_file(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), StreamingLayouts(tmp_path, ["jsonl", "csv"]) as spool:
        spool.add(_two_books()[0])
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError), StreamingLayouts(tmp_path / "new", ["jsonl"]) as spool:
        spool.add(_two_books()[0])
        raise RuntimeError("interrupted")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("design", ["excerpt", "whole-book"])
def test_parquet_written_without_pandas_is_byte_identical_to_parquet_written_through_pandas(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, design: str) -> None:
    """The default layout skips pandas (schema metadata written as pandas writes it): same bytes, file for file."""
    assert pandas_metadata_known()  # the installed pandas is the one whose metadata is written here
    books = _two_books()
    first = books[0]
    edges = [
        [r.model_copy(update={"segment_1": r.segment_1 + " again"}) for r in first[:50]],  # ties in the sort keys
        [r.model_copy(update={"book_idx": 7}) for r in first if r.excerpt_idx >= 100],  # a book with no test rows
        [r.model_copy(update={"book_idx": 8}) for r in first if r.excerpt_idx < 100],  # nor validation rows
    ]
    assert all(edges)
    batches = [[r.model_copy(update={"design": design}) for r in batch] for batch in [*books, *edges]]

    def make(folder: Path) -> list[Path]:
        with StreamingLayouts(folder, ["parquet"]) as spool:
            for batch in batches:
                spool.add(batch)
            return spool.finish()

    direct = make(tmp_path / "direct")
    monkeypatch.setattr(stream_writer, "pandas_metadata_known", lambda: False)
    through_pandas = make(tmp_path / "pandas")
    assert [p.name for p in direct] == [p.name for p in through_pandas] and len(direct) == 4
    for a, b in zip(direct, through_pandas, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
