"""The paper's human SORT design: pairs of segments from across the whole book, binned by the gap between them.

BookSORT's published trials keep both segments inside one excerpt of at most 20,000 words. The paper's human study
(spec sections 8-9: 155 people, *The Murder of Roger Ackroyd*, 20-word segments, long-term memory) instead drew
pairs from across the whole book and analysed them by the *gap*, the words between the end of the earlier segment
and the start of the later one, in bins 0-400, 400-1k, 1k-1.5k, 1.5k-4k, 4k-10k, 10k-16.5k, 16.5k-25k and 25k-40k.
This module makes that design from any prepared book, with the published sampler's rules where they apply:

* segments start at sentence starts (the published rule, :func:`~benchlab.data.sort.sentence_starts.ends_sentence`) and
  are exactly ``segment_length`` words; the two segments of a pair never overlap;
* per gap bin, an anchor segment is drawn uniformly from all sentence starts of the book and its partner uniformly
  from the starts on *either* side at a gap inside the bin (as the published sampler draws its first segment and
  then an offset of either sign), so the pairs cover the whole book, not only its start; a pair is never repeated
  within a bin; the anchors are KS-checked against all starts, and the whole design is redrawn if they fail;
* which segment is shown as A is balanced exactly inside every bin and split (a permuted half/half vector);
* 110 pairs per bin: indices 0-99 are the test split, 100-109 validation (practice), as BookSORT's excerpts.

Rows use the BookSORT record (:class:`~benchlab.data.sort.records.BookSortRecord`) with ``design="whole-book"``:
the excerpt is the book (``excerpt_length`` = its words without titles, ``excerpt_pos`` 0, ``excerpt_text`` left
empty rather than repeated in every row), positions are word offsets in the book, and ``distance_bin`` is the gap
bin's right edge. Bins a short text cannot hold (lower edge + two segments longer than the text) are left out and
reported. Seeded (default: book id + book words + L_S, the published rule with the book as the excerpt) and
reproducible: the same seed gives the same trials.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from benchlab.data.errors import BenchlabError
from benchlab.data.sort.books import PreparedBook
from benchlab.data.sort.records import N_TEST_EXCERPTS, N_VALIDATION_EXCERPTS, BookSortRecord
from benchlab.data.sort.sentence_starts import KS_THRESHOLD, MAX_KS_ATTEMPTS, default_seed, ends_sentence, index_book

WHOLE_BOOK = "whole-book"
#: Gap bin edges (words between the segments) of the paper's human analysis; bin k holds gaps in [edge k, edge k+1).
GAP_EDGES: tuple[int, ...] = (0, 400, 1000, 1500, 4000, 10000, 16500, 25000, 40000)
PAIRS_PER_BIN = N_TEST_EXCERPTS + N_VALIDATION_EXCERPTS
MAX_PAIR_TRIES = 10_000
#: The self-check wants a segment in every tenth of the book (pairs "from across the whole book").
COVERAGE_PARTS = 10


@dataclass
class WholeBookReport:
    """What happened while generating one book's whole-book design (for ``booksort make`` and the bench)."""

    book_idx: int
    n_words: int
    segment_length: int
    seed: int
    bins: list[int] = field(default_factory=list)  # right edges made
    left_out: list[int] = field(default_factory=list)  # right edges the text is too short for
    attempts: int = 0
    anchor_ks_p: float = float("nan")
    problems: list[str] = field(default_factory=list)


def gap_bin_label(edge: int) -> str:
    """``"16.5k-25k"`` for the bin whose right edge is 25000 (the paper's labels)."""
    return f"{_short(lower_edge(edge))}-{_short(edge)}"


def lower_edge(edge: int) -> int:
    if edge not in GAP_EDGES[1:]:
        raise ValueError(f"{edge} is not a whole-book gap bin edge {GAP_EDGES[1:]}")
    return GAP_EDGES[GAP_EDGES.index(edge) - 1]


def _short(words: int) -> str:
    if words < 1000:
        return str(words)
    return f"{words / 1000:g}k"


def feasible_bins(n_words: int, segment_length: int) -> tuple[list[tuple[int, int]], list[int]]:
    """(bins as (lower, upper) a text of ``n_words`` can hold, right edges it cannot)."""
    bins: list[tuple[int, int]] = []
    left_out: list[int] = []
    for lo, hi in itertools.pairwise(GAP_EDGES):
        if lo + 2 * segment_length < n_words:
            bins.append((lo, hi))
        else:
            left_out.append(hi)
    return bins, left_out


def generate_whole_book(book: PreparedBook, segment_length: int = 20,
                        seed: int | None = None) -> tuple[list[BookSortRecord], WholeBookReport]:
    """The whole-book design for one book: 110 pairs (test 0-99, validation 100-109) in every gap bin the text
    holds, validated. The count is fixed so that every layout's split rule (excerpt_idx < 100) holds."""
    n_words = len(book.words)
    pairs_per_bin = PAIRS_PER_BIN
    if segment_length < 1:
        raise BenchlabError("the segment length must be positive", book.source)
    seed = default_seed(book.book_idx, n_words, segment_length) if seed is None else seed
    report = WholeBookReport(book.book_idx, n_words, segment_length, seed)
    bins, report.left_out = feasible_bins(n_words, segment_length)
    if not bins:
        raise BenchlabError(f"text too short for the whole-book design: {n_words:,} words cannot hold two "
                            f"{segment_length}-word segments", book.source)
    report.bins = [hi for _, hi in bins]
    idx = index_book(book)
    starts = np.flatnonzero(np.concatenate(([True], idx.ends[:-1]))) if n_words else np.zeros(0, dtype=np.int64)
    candidates = starts[starts <= n_words - segment_length]
    # deferred: the KS code (and its compiled helper) loads only when a book is drawn, not with the bin labels
    # `compare sort` reads
    from benchlab.data.sort.kolmogorov import two_sample_ks_pvalue

    rs = np.random.RandomState(seed)
    for attempt in range(1, MAX_KS_ATTEMPTS + 2):
        drawn = [_draw_bin(rs, candidates, lo, hi, segment_length, pairs_per_bin, book) for lo, hi in bins]
        anchors = np.concatenate([a for _, a in drawn])
        report.anchor_ks_p = two_sample_ks_pvalue(anchors, candidates)  # scipy's kstest, same bits
        if report.anchor_ks_p > KS_THRESHOLD:
            report.attempts = attempt
            break
    else:
        raise BenchlabError(f"could not draw segment pairs spread over the whole book in {MAX_KS_ATTEMPTS + 1} "
                            "attempts (text too short or repetitive)", book.source)
    records = []
    for (_, hi), (pairs, _) in zip(bins, drawn, strict=True):
        answers = _balanced_answers(rs, pairs_per_bin)
        for i, (early, late) in enumerate(pairs):
            records.append(BookSortRecord(
                book_idx=book.book_idx, book_title=book.title, num_words=book.num_words, excerpt_idx=i,
                excerpt_pos=0.0, excerpt_text="", segment_idx=0,
                segment_1=" ".join(book.words[early:early + segment_length]),
                segment_2=" ".join(book.words[late:late + segment_length]),
                seg1_pos=early, seg2_pos=late, distance_bin=hi, present_seg1_first=int(answers[i]),
                excerpt_length=n_words, segment_length=segment_length, design=WHOLE_BOOK,
            ))
    report.problems = check_whole_book(records, book.words)
    if report.problems:
        raise BenchlabError("generated trials failed validation: " + "; ".join(report.problems[:3]), book.source)
    return records, report


def _draw_bin(rs: np.random.RandomState, cand: np.ndarray, lo: int, hi: int, ls: int, n: int,
              book: PreparedBook) -> tuple[list[tuple[int, int]], np.ndarray]:
    """``n`` distinct pairs (earlier start, later start) with gap in [lo, hi), and the anchors drawn."""
    pairs: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    anchors: list[int] = []
    tries = 0
    while len(pairs) < n:
        tries += 1
        if tries > MAX_PAIR_TRIES * n:
            raise BenchlabError(f"could not draw {n} distinct segment pairs with a gap of {lo:,}-{hi:,} words "
                                f"({len(pairs)} found); the text is too short or has too few sentence starts",
                                book.source)
        a = int(cand[rs.randint(len(cand))])
        # Partners after the anchor: a + ls + lo <= t < a + ls + hi; before it: a - ls - hi < t <= a - ls - lo.
        after = (np.searchsorted(cand, a + ls + lo, "left"), np.searchsorted(cand, a + ls + hi, "left"))
        before = (np.searchsorted(cand, a - ls - hi, "right"), np.searchsorted(cand, a - ls - lo, "right"))
        n_after, n_before = after[1] - after[0], before[1] - before[0]
        if n_after + n_before == 0:
            continue
        j = rs.randint(n_after + n_before)
        t = int(cand[after[0] + j] if j < n_after else cand[before[0] + j - n_after])
        pair = (min(a, t), max(a, t))
        if pair in seen:
            continue
        seen.add(pair)
        pairs.append(pair)
        anchors.append(a)
    return pairs, np.array(anchors, dtype=np.int64)


def _balanced_answers(rs: np.random.RandomState, n: int) -> np.ndarray:
    """present_seg1_first per pair: half 1 and half 0 inside the test part and inside the validation part."""
    parts = []
    for size in (min(n, N_TEST_EXCERPTS), max(0, n - N_TEST_EXCERPTS)):
        base = np.array([1, 0] * (size // 2) + ([int(rs.randint(2))] if size % 2 else []), dtype=np.int64)
        parts.append(rs.permutation(base))
    return np.concatenate(parts)


def check_whole_book(records: Sequence[BookSortRecord], book_words: Sequence[str] | None = None) -> list[str]:
    """Problems with one book's whole-book trials (empty when all is well).

    Checks: segment lengths and no overlap, gaps inside their bins, the same pair indices 0..n-1 in every bin, no
    pair twice in a bin, A/B balanced in every bin and split, segments spread over every tenth of the book; given
    the book's words, every segment verbatim at its position and at a sentence start, and the book's length.
    """
    if not records:
        return ["no trials"]
    problems: list[str] = []
    first = records[0]
    by_bin: dict[int, list[BookSortRecord]] = {}
    for r in records:
        where = f"pair {r.excerpt_idx}, gap bin {r.distance_bin}"
        if r.design != WHOLE_BOOK or (r.book_idx, r.excerpt_length, r.segment_length) != (
                first.book_idx, first.excerpt_length, first.segment_length):
            problems.append(f"{where}: not a whole-book trial of book {first.book_idx} (e{first.excerpt_length}/"
                            f"s{first.segment_length})")
            continue
        by_bin.setdefault(r.distance_bin, []).append(r)
        for name, text in (("segment_1", r.segment_1), ("segment_2", r.segment_2)):
            if len(text.split()) != r.segment_length:
                problems.append(f"{where}: {name} has {len(text.split())} words, not {r.segment_length}")
        if r.gap < 0:
            problems.append(f"{where}: the segments overlap")
        if r.distance_bin not in GAP_EDGES[1:]:
            problems.append(f"{where}: distance_bin {r.distance_bin} is not a gap bin edge {GAP_EDGES[1:]}")
        elif not lower_edge(r.distance_bin) <= r.gap < r.distance_bin:
            problems.append(f"{where}: gap {r.gap} outside [{lower_edge(r.distance_bin)}, {r.distance_bin})")
        if r.seg2_pos + r.segment_length > r.excerpt_length:
            problems.append(f"{where}: segment_2 runs past the end of the book ({r.excerpt_length} words)")
        if book_words is not None:
            for name, pos, text in (("segment_1", r.seg1_pos, r.segment_1), ("segment_2", r.seg2_pos, r.segment_2)):
                if " ".join(book_words[pos:pos + r.segment_length]) != text:
                    problems.append(f"{where}: {name} is not the {r.segment_length} words at position {pos}")
                if pos > 0 and not ends_sentence(book_words[pos - 1]):
                    problems.append(f"{where}: {name} does not start at a sentence start")
    if book_words is not None and len(book_words) != first.excerpt_length:
        problems.append(f"the book has {len(book_words):,} words, the trials say {first.excerpt_length:,}")
    problems.extend(_check_bins(by_bin))
    problems.extend(_check_coverage(records))
    return problems


def _check_bins(by_bin: dict[int, list[BookSortRecord]]) -> list[str]:
    problems: list[str] = []
    indices = {b: sorted(r.excerpt_idx for r in rs) for b, rs in by_bin.items()}
    if indices and any(v != list(range(len(v))) for v in indices.values()):
        problems.append("pair indices are not 0..n-1 in every bin")
    if len({len(v) for v in indices.values()}) > 1:
        problems.append("the bins hold different numbers of pairs")
    for b, rs in sorted(by_bin.items()):
        if len({(r.seg1_pos, r.seg2_pos) for r in rs}) != len(rs):
            problems.append(f"gap bin {b}: a pair is repeated")
        for split in ("test", "validation"):
            part = [r.present_seg1_first for r in rs if r.split == split]
            if abs(2 * sum(part) - len(part)) > 1:
                problems.append(f"gap bin {b} ({split}): {sum(part)} of {len(part)} show the earlier segment as A, "
                                "not half")
    return problems


def _check_coverage(records: Sequence[BookSortRecord]) -> list[str]:
    """Every tenth of the book holds a segment start (with enough pairs that chance alone would not miss one)."""
    n_words = records[0].excerpt_length
    if len(records) < 10 * COVERAGE_PARTS or n_words < COVERAGE_PARTS * records[0].segment_length * 4:
        return []
    parts = {min(COVERAGE_PARTS - 1, pos * COVERAGE_PARTS // n_words)
             for r in records for pos in (r.seg1_pos, r.seg2_pos)}
    missing = sorted(set(range(COVERAGE_PARTS)) - parts)
    if missing:
        return [f"no segment in tenth(s) {', '.join(str(m + 1) for m in missing)} of the book: the pairs do not "
                "cover the whole book"]
    return []
