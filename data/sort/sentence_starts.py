"""What the BookSORT samplers share: where sentences start in a book, the published seed rule and the KS check.

Both designs draw segments that start at sentence starts: BookSORT's excerpt design
(:mod:`benchlab.data.sort.generator`) and the paper's whole-book design (:mod:`benchlab.data.sort.whole_book`).
Here, below both, so neither imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchlab.data.sort.books import PreparedBook

KS_THRESHOLD = 0.05
MAX_KS_ATTEMPTS = 100
_NOT_SENTENCE_ENDS = frozenset({"mr.", "mrs.", "dr."})
_SENTENCE_MARKS = frozenset(".?!;")


def ends_sentence(word: str) -> bool:
    """A word ends a sentence if it contains . ? ! or ; anywhere, except Mr. Mrs. Dr. (as published)."""
    return word.lower() not in _NOT_SENTENCE_ENDS and not _SENTENCE_MARKS.isdisjoint(word)


@dataclass
class BookIndex:
    """Per-book arrays computed once and reused for every configuration."""

    words: list[str]
    ends: np.ndarray  # ends[i]: word i ends a sentence
    prev_start: np.ndarray  # prev_start[i]: the nearest sentence start at or before i


def index_book(book: PreparedBook) -> BookIndex:
    """Which words end a sentence and the nearest sentence start before each word: what both samplers draw from."""
    words = book.words
    flags = {w: ends_sentence(w) for w in set(words)}  # a book has far fewer distinct words than words
    ends = np.fromiter(map(flags.__getitem__, words), dtype=bool, count=len(words))
    is_start = np.empty(len(words), dtype=bool)
    if len(words):
        is_start[0] = True
        is_start[1:] = ends[:-1]
    prev_start = np.maximum.accumulate(np.where(is_start, np.arange(len(words)), 0)) if len(words) else ends
    return BookIndex(words, ends, prev_start)


def default_seed(book_idx: int, excerpt_length: int, segment_length: int) -> int:
    """The published seed rule: book id + excerpt length + segment length."""
    return book_idx + excerpt_length + segment_length
