"""BookSORT loaders: the three layouts, selection, and messages for bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.sort.distance_bins import distance_bin_edges
from benchlab.data.sort.loaders import Selection, available_configs, load_frame, load_records
from benchlab.data.sort.records import PARQUET_COLUMNS, BookSortRecord
from benchlab.data.sort.writers import write_layout
from tests.conftest import full_data

SAMPLE = sample_path("booksort")


def test_bundled_sample_has_both_splits_and_balanced_trials() -> None:
    frame = load_frame(SAMPLE, Selection(excerpt_length=250, segment_length=20))
    assert frame.groupby("split").size().to_dict() == {"test": 400, "validation": 40}
    assert sorted(frame["distance_bin"].unique()) == [62, 83, 125, 200]
    assert set(frame["book_title"]) == {"The Murder Of Roger Ackroyd"}
    assert 0.45 <= frame["present_seg1_first"].mean() <= 0.55
    assert available_configs(SAMPLE) == [(250, 20), (1000, 20)]


def test_selection_by_book_bin_split_and_title() -> None:
    recs = load_records(SAMPLE, Selection(excerpt_length=1000, segment_length=20, book="ackroyd",
                                          distance_bin=333, split="validation"))
    assert len(recs) == 10
    assert {r.excerpt_idx for r in recs} == set(range(100, 110))
    assert all(250 < r.distance < 333 for r in recs)
    assert load_records(SAMPLE, Selection(excerpt_length=1000, segment_length=20, book=69087, split="test"))
    with pytest.raises(BenchlabError, match="no trials match"):
        load_records(SAMPLE, Selection(excerpt_length=250, segment_length=20, book=12345))
    with pytest.raises(BenchlabError, match="available: e250/s20, e1000/s20"):
        load_records(SAMPLE, Selection(excerpt_length=2500))


@pytest.mark.parametrize("layout", ["csv", "jsonl", "parquet"])
def test_every_layout_reads_back_the_same_trials(tmp_path: Path, layout: str) -> None:
    recs = load_records(SAMPLE, Selection(excerpt_length=250, segment_length=20))
    written = write_layout(recs, tmp_path, layout)
    names = sorted(p.name for p in written)
    if layout == "csv":
        assert names == ["books_250-s20-n110.csv", "excerpts_250-s20-n110.csv", "segments_250-s20-n110.csv"]
        # The original's CSVs start with pandas' unnamed index column.
        assert (tmp_path / "segments_250-s20-n110.csv").read_text().startswith(",book_idx,excerpt_idx")
    back = load_frame(tmp_path, Selection(excerpt_length=250, segment_length=20))
    orig = load_frame(SAMPLE, Selection(excerpt_length=250, segment_length=20))
    pd.testing.assert_frame_equal(back[[*PARQUET_COLUMNS, "split"]], orig[[*PARQUET_COLUMNS, "split"]],
                                  check_dtype=False)


def test_the_hosted_parquet_files_load() -> None:
    folder = full_data("booksort", "regenerated")
    frame = load_frame(folder, Selection(excerpt_length=1000, segment_length=50))
    assert frame.groupby("split").size().to_dict() == {"test": 3600, "validation": 360}
    assert frame["book_idx"].nunique() == 9
    assert available_configs(folder) == [(250, 20), (250, 50), (1000, 20), (1000, 50)]


def test_record_presents_segment_1_as_a_exactly_when_present_seg1_first() -> None:
    rec = load_records(SAMPLE, Selection(excerpt_length=250, segment_length=20))[0]
    first = rec.model_copy(update={"present_seg1_first": 1})
    second = rec.model_copy(update={"present_seg1_first": 0})
    assert first.option_texts() == (rec.segment_1, rec.segment_2) and first.ground_truth == "A"
    assert second.option_texts() == (rec.segment_2, rec.segment_1) and second.ground_truth == "B"


def test_bin_edges_follow_the_code_not_the_card_typo() -> None:
    assert distance_bin_edges(250, 20) == [20, 62, 83, 125, 200]
    assert distance_bin_edges(20000, 50) == [50, 1000, 5000, 10000, 16000]


# -- bad input --------------------------------------------------------------------------------------------------


def _sample_records() -> list[BookSortRecord]:
    return load_records(SAMPLE, Selection(excerpt_length=250, segment_length=20, distance_bin=62))


def test_jsonl_bad_record_names_file_and_line(tmp_path: Path) -> None:
    recs = _sample_records()[:3]
    lines = [r.model_dump_json() for r in recs]
    bad = json.loads(lines[1])
    bad["seg1_pos"], bad["seg2_pos"] = 50, 10
    lines[1] = json.dumps(bad)
    path = tmp_path / "test_e250_s20.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BenchlabError) as err:
        load_records(path)
    assert err.value.path == path and err.value.line == 2
    assert "seg1_pos" in err.value.message


def test_csv_missing_excerpt_and_missing_column(tmp_path: Path) -> None:
    write_layout(_sample_records(), tmp_path, "csv")
    excerpts = tmp_path / "excerpts_250-s20-n110.csv"
    lines = excerpts.read_text().splitlines()
    excerpts.write_text("\n".join(lines[:1] + lines[2:]) + "\n")  # drop excerpt 0
    with pytest.raises(BenchlabError, match="excerpt 0 has no row in excerpts_250-s20-n110.csv") as err:
        load_frame(tmp_path)
    assert err.value.line == 2
    segments = tmp_path / "segments_250-s20-n110.csv"
    segments.write_text(segments.read_text().replace("present_seg1_first", "presented"))
    with pytest.raises(BenchlabError, match="missing column present_seg1_first"):
        load_frame(tmp_path)


def test_csv_triple_without_segments_and_non_numbers(tmp_path: Path) -> None:
    write_layout(_sample_records(), tmp_path, "csv")
    seg = tmp_path / "segments_250-s20-n110.csv"
    text = seg.read_text().splitlines()
    parts = text[3].split(",")
    parts[2] = "seven"
    text[3] = ",".join(parts)
    seg.write_text("\n".join(text) + "\n")
    with pytest.raises(BenchlabError, match="'excerpt_idx': not a number: 'seven'") as err:
        load_frame(tmp_path)
    assert err.value.line == 4
    seg.unlink()
    with pytest.raises(BenchlabError, match="segments file of this configuration is missing"):
        load_frame(tmp_path)


def test_not_booksort_files(tmp_path: Path) -> None:
    with pytest.raises(BenchlabError, match="no such file"):
        load_frame(tmp_path / "nope")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(BenchlabError, match="no BookSORT files here"):
        load_frame(tmp_path)
    broken = tmp_path / "test_e250_s20.parquet"
    broken.write_bytes(b"PAR1 not really")
    with pytest.raises(BenchlabError, match="cannot read this parquet file"):
        load_frame(broken)
    other = tmp_path / "x" / "test_e250_s20.parquet"
    other.parent.mkdir()
    pd.DataFrame({"a": [1]}).to_parquet(other)
    with pytest.raises(BenchlabError, match="missing columns book_idx"):
        load_frame(other)


def test_parquet_shards_with_other_names_are_read_by_their_columns(tmp_path: Path) -> None:
    # e.g. a Hugging Face download: test-00000-of-00001.parquet holding several configurations.
    frame = load_frame(SAMPLE)
    shard = tmp_path / "test-00000-of-00001.parquet"
    frame[PARQUET_COLUMNS].to_parquet(shard)
    assert available_configs(tmp_path) == [(250, 20), (1000, 20)]
    picked = load_frame(tmp_path, Selection(excerpt_length=1000, segment_length=20, split="validation"))
    assert len(picked) == 40 and set(picked["excerpt_idx"]) == set(range(100, 110))
