"""The BookSORT record: the dataset card's 13 fields plus the two lengths that key a configuration.

One model serves every layout (parquet, three CSVs, JSONL) and the generator's output, so a trial made from a
lab's own text is indistinguishable from a published one downstream.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: Excerpt indices below this are the test split; the rest (100..109) are validation (prompt sweeps, practice).
N_TEST_EXCERPTS = 100
N_VALIDATION_EXCERPTS = 10

Split = Literal["test", "validation"]
#: ``excerpt``: the published BookSORT design (both segments inside one excerpt of ``excerpt_length`` words);
#: ``whole-book``: the paper's human LTM design (pairs from across the whole book; the "excerpt" is the book).
Design = Literal["excerpt", "whole-book"]
DESIGNS: tuple[Design, ...] = ("excerpt", "whole-book")

#: Column order of the hosted parquet files (the 13 card fields, then the two derived lengths).
PARQUET_COLUMNS = [
    "book_idx", "excerpt_idx", "segment_idx", "segment_1", "segment_2", "seg1_pos", "seg2_pos", "distance_bin",
    "present_seg1_first", "excerpt_pos", "excerpt_text", "book_title", "num_words", "segment_length",
    "excerpt_length",
]
#: Columns a file may add after the 15 (missing in every published file, so they default): ``design``.
OPTIONAL_COLUMNS = ["design"]
BOOK_COLUMNS = ["book_idx", "book_title", "num_words"]
EXCERPT_COLUMNS = ["book_idx", "excerpt_idx", "excerpt_pos", "excerpt_text"]
SEGMENT_COLUMNS = [
    "book_idx", "excerpt_idx", "segment_idx", "segment_1", "segment_2", "seg1_pos", "seg2_pos", "distance_bin",
    "present_seg1_first",
]


class BookSortRecord(BaseModel):
    """One SORT trial: an excerpt and two segments from it; which of the two came first?

    ``segment_1`` is always the earlier segment in the text; ``present_seg1_first`` says whether it is shown
    as option A (1) or as option B (0). ``distance_bin`` is the bin's right edge, not an index.

    In the ``whole-book`` design (:mod:`benchlab.data.sort.whole_book`) the excerpt is the whole book: its text
    is not repeated in every row (``excerpt_text`` is empty), ``excerpt_length`` is the book's length in words
    (without titles), ``excerpt_pos`` is 0, ``seg1_pos``/``seg2_pos`` are word offsets in the book, and
    ``distance_bin`` is the right edge of the *gap* bin (words between the end of the earlier segment and the start
    of the later one), as in the paper's human analysis.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    book_idx: int
    book_title: str
    num_words: int = Field(ge=0, description="book length in words, chapter titles included")
    excerpt_idx: int = Field(ge=0)
    excerpt_pos: float = Field(ge=0.0, le=1.0, description="excerpt start / book length without titles")
    excerpt_text: str
    segment_idx: int = 0
    segment_1: str
    segment_2: str
    seg1_pos: int = Field(ge=0)
    seg2_pos: int = Field(ge=0)
    distance_bin: int = Field(gt=0)
    present_seg1_first: Literal[0, 1]
    excerpt_length: int = Field(gt=0)
    segment_length: int = Field(gt=0)
    design: Design = "excerpt"

    @model_validator(mode="after")
    def _earlier_segment_first(self) -> BookSortRecord:
        if self.seg1_pos >= self.seg2_pos:
            raise ValueError(f"seg1_pos ({self.seg1_pos}) must be before seg2_pos ({self.seg2_pos})")
        return self

    @property
    def split(self) -> Split:
        return "test" if self.excerpt_idx < N_TEST_EXCERPTS else "validation"

    @property
    def distance(self) -> int:
        """Start-to-start distance of the two segments, in words."""
        return self.seg2_pos - self.seg1_pos

    @property
    def gap(self) -> int:
        """Words between the end of the earlier segment and the start of the later one (the whole-book bins)."""
        return self.distance - self.segment_length

    @property
    def config(self) -> tuple[int, int]:
        return (self.excerpt_length, self.segment_length)

    @property
    def trial_id(self) -> str:
        """Stable id of the trial across files and sessions: book, lengths, excerpt and bin."""
        return f"{self.book_idx}-e{self.excerpt_length}-s{self.segment_length}-x{self.excerpt_idx}-d{self.distance_bin}"

    def option_texts(self) -> tuple[str, str]:
        """(Segment A, Segment B) as shown to a participant or a model: A is segment_1 iff present_seg1_first."""
        if self.present_seg1_first == 1:
            return self.segment_1, self.segment_2
        return self.segment_2, self.segment_1

    @property
    def ground_truth(self) -> Literal["A", "B"]:
        """The correct answer to "which segment appeared first?"."""
        return "A" if self.present_seg1_first == 1 else "B"


def records_columns(records: Sequence[BookSortRecord]) -> dict[str, list[Any]]:
    """The 15 published columns (``design`` too for whole-book trials) as lists, in order: read column by column
    from the attributes (a dict per record, as ``model_dump`` makes, costs twice as much). Here, not with the
    writers, so that the spool (Arrow, no pandas) can use it."""
    whole_book = any(r.design != "excerpt" for r in records)
    names = [*PARQUET_COLUMNS, "design"] if whole_book else list(PARQUET_COLUMNS)
    return {name: [getattr(r, name) for r in records] for name in names}
