"""Building SORT trials from any text with the published BookSORT algorithm, and checking them.

The algorithm (spec section 3): draw 160 excerpts that start at a sentence start (KS-checked for uniform
positions), give every excerpt one segment pair per distance bin with both segments starting at sentence starts,
balance which segment is presented first with a permuted 80/80 answer vector per bin, drop 50 excerpts (the bad
ones first), and check the presented-first positions against all candidate sentence starts. The random calls are
made in the published order on numpy's legacy ``RandomState``, so with the default seed (book id + L_E + L_S) the
nine BookSORT books give exactly the published trials; any other text gets statistically equivalent ones.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from benchlab.data.errors import BenchlabError
from benchlab.data.sort.books import PreparedBook
from benchlab.data.sort.distance_bins import distance_bin_edges
from benchlab.data.sort.kolmogorov import two_sample_ks_pvalue, uniform_spread_passes
from benchlab.data.sort.native_draws import LegacyStream
from benchlab.data.sort.records import N_VALIDATION_EXCERPTS, BookSortRecord
from benchlab.data.sort.sentence_starts import (
    KS_THRESHOLD,
    MAX_KS_ATTEMPTS,
    BookIndex,
    default_seed,
    ends_sentence,
    index_book,
)
from benchlab.data.sort.whole_book import check_whole_book

N_EXCERPTS = 110
EXTRA_EXCERPTS = 50
MAX_PAIR_TRIES = 10_000

@dataclass
class GenerationReport:
    """What happened while generating one (book, configuration): for logs and the bench command."""

    book_idx: int
    excerpt_length: int
    segment_length: int
    seed: int
    excerpt_ks_attempts: int = 0
    bad_excerpts: int = 0
    segment_ks_p: float = float("nan")
    problems: list[str] = field(default_factory=list)


def check_length(book: PreparedBook, excerpt_length: int, segment_length: int) -> None:
    """Refuse requests the text cannot serve, before any sampling (clear message naming the numbers)."""
    if segment_length < 1 or excerpt_length < 1:
        raise BenchlabError("excerpt and segment lengths must be positive", book.source)
    edges = distance_bin_edges(excerpt_length, segment_length)
    if any(b <= a for a, b in itertools.pairwise(edges)):
        raise BenchlabError(f"segment length {segment_length} is too long for excerpts of {excerpt_length} words: "
                            f"the distance bins {edges} would be empty (need L_S < L_E/4)", book.source)
    n = len(book.words)
    if n <= excerpt_length:
        raise BenchlabError(f"text too short: {n:,} words after removing front matter, back matter and chapter "
                            f"titles, but an excerpt of {excerpt_length:,} words needs more than {excerpt_length:,}",
                            book.source)


_Bin = tuple[int, np.ndarray, np.ndarray]  # (right edge, answers, presented positions [n, 2])


def generate(book: PreparedBook, excerpt_length: int, segment_length: int, seed: int | None = None,
             *, n_excerpts: int = N_EXCERPTS, extra: int = EXTRA_EXCERPTS,
             _index_cache: BookIndex | None = None) -> tuple[list[BookSortRecord], GenerationReport]:
    """SORT trials for one book and configuration: ``n_excerpts`` excerpts x 4 distance bins, validated.

    The steps draw from one random stream in the published sampler's order, so the same seed gives the same
    trials; each step is a function below.
    """
    check_length(book, excerpt_length, segment_length)
    if (n_excerpts + extra) % 2:
        raise ValueError("n_excerpts + extra must be even so the answers can be balanced")
    seed = default_seed(book.book_idx, excerpt_length, segment_length) if seed is None else seed
    report = GenerationReport(book.book_idx, excerpt_length, segment_length, seed)
    idx = _index_cache or index_book(book)
    stream = LegacyStream(seed)
    rs = stream.random_state
    n_total = n_excerpts + extra
    starts = _draw_excerpts(stream, book, idx, excerpt_length, n_total, report)
    candidates = _segment_candidates(idx, starts, excerpt_length, segment_length)
    bins, bad, pooled_candidates = _draw_bins(stream, candidates, distance_bin_edges(excerpt_length, segment_length))
    kept = _keep_excerpts(rs, book, bad, n_excerpts, extra, segment_length, excerpt_length, report)
    _check_segment_spread(book, bins, kept, pooled_candidates, excerpt_length, segment_length, report)
    records = _records(book, bins, kept, starts, excerpt_length, segment_length)
    problems = check_trials(records, book.words)
    report.problems = problems
    if problems:
        raise BenchlabError("generated trials failed validation: " + "; ".join(problems[:3]), book.source)
    return records, report


def _draw_excerpts(stream: LegacyStream, book: PreparedBook, idx: BookIndex, excerpt_length: int, n_total: int,
                   report: GenerationReport) -> np.ndarray:
    """1. Excerpts: uniform start, moved back to a sentence start; redraw all if positions fail a KS test."""
    n_words = len(book.words)
    span = n_words - excerpt_length
    for attempt in range(1, MAX_KS_ATTEMPTS + 2):
        # The published `rs.permutation(span)[0]`, without shuffling the whole book for one number.
        starts = np.array([idx.prev_start[stream.permutation_head(span)] for _ in range(n_total)], dtype=np.int64)
        # scipy.stats.kstest against Uniform(0, span / n_words), as published (same bits, without scipy.stats)
        if uniform_spread_passes(starts / n_words, span / n_words, KS_THRESHOLD):
            report.excerpt_ks_attempts = attempt
            return starts
    raise BenchlabError(f"could not draw uniformly spread excerpts of {excerpt_length:,} words in "
                        f"{MAX_KS_ATTEMPTS + 1} attempts (text of {n_words:,} words is too short or repetitive)",
                        book.source)


def _segment_candidates(idx: BookIndex, starts: np.ndarray, excerpt_length: int,
                        segment_length: int) -> list[np.ndarray]:
    """Candidate segment starts per excerpt: sentence starts that leave room for a whole segment."""
    limit = excerpt_length - segment_length
    candidates = []
    for s in starts:
        ends = idx.ends[s:s + excerpt_length]
        rel = np.flatnonzero(ends) + 1
        cand = np.concatenate(([0], rel))
        candidates.append(cand[cand < limit])
    return candidates


def _draw_bins(stream: LegacyStream, candidates: list[np.ndarray],
               edges: Sequence[int]) -> tuple[list[_Bin], set[int], list[np.ndarray]]:
    """2-3. Per distance bin: which segment is shown first, and a segment pair per excerpt (bad excerpts: none)."""
    n_total = len(candidates)
    answers_base = np.tile([0, 1], n_total // 2)
    bins: list[_Bin] = []
    bad: set[int] = set()
    pooled_candidates: list[np.ndarray] = []
    for lower, upper in itertools.pairwise(edges):
        # 0 = the earlier segment is presented first, 1 = the later one; exactly half each.
        answers = stream.random_state.permutation(answers_base)
        shown = np.zeros((n_total, 2), dtype=np.int64)
        for i, pair in enumerate(_draw_pairs(stream, candidates, lower, upper)):
            if pair is None:
                bad.add(i)
                continue
            pooled_candidates.append(candidates[i])
            first, second = pair
            if (answers[i] == 0) == (second < first):
                first, second = second, first
            shown[i] = (first, second)
        bins.append((upper, answers, shown))
    return bins, bad, pooled_candidates


def _keep_excerpts(rs: np.random.RandomState, book: PreparedBook, bad: set[int], n_excerpts: int, extra: int,
                   segment_length: int, excerpt_length: int, report: GenerationReport) -> list[int]:
    """4. Drop ``extra`` excerpts, the bad ones first, the same ones in every bin."""
    n_total = n_excerpts + extra
    report.bad_excerpts = len(bad)
    if len(bad) > extra:
        raise BenchlabError(f"only {n_total - len(bad)} of {n_total} excerpts have a segment pair in every distance "
                            f"bin (need {n_excerpts}); the text has too few sentence boundaries for "
                            f"{segment_length}-word segments in {excerpt_length}-word excerpts", book.source)
    if bad:
        remaining = list(bad ^ set(range(n_total)))
        drop = bad | {int(x) for x in rs.choice(remaining, extra - len(bad), replace=False)}
    else:
        drop = {int(x) for x in rs.choice(list(range(n_total)), extra, replace=False)}
    return [i for i in range(n_total) if i not in drop]


def _check_segment_spread(book: PreparedBook, bins: list[_Bin], kept: list[int],
                          pooled_candidates: list[np.ndarray], excerpt_length: int, segment_length: int,
                          report: GenerationReport) -> None:
    """5. The presented-first positions must look like a draw from all candidate starts."""
    shown_first = np.concatenate([shown[kept, 0] for _, _, shown in bins])
    report.segment_ks_p = two_sample_ks_pvalue(shown_first, np.concatenate(pooled_candidates))  # scipy's kstest
    if report.segment_ks_p <= KS_THRESHOLD:
        raise BenchlabError(f"segment positions failed the uniformity check (KS p={report.segment_ks_p:.3f}) for "
                            f"e{excerpt_length}/s{segment_length}; try another --seed", book.source)


def _records(book: PreparedBook, bins: list[_Bin], kept: list[int], starts: np.ndarray, excerpt_length: int,
             segment_length: int) -> list[BookSortRecord]:
    """6. Relabel: segment_1 is the earlier segment; present_seg1_first says whether it is option A."""
    n_words = len(book.words)
    # One list of words and one joined text per excerpt, shared by its records in every bin.
    excerpts = {i: book.words[int(starts[i]):int(starts[i]) + excerpt_length] for i in kept}
    texts = {i: " ".join(words) for i, words in excerpts.items()}
    records = []
    for upper, answers, shown in bins:
        for new_idx, i in enumerate(kept):
            start = int(starts[i])
            words = excerpts[i]
            a, b = int(shown[i, 0]), int(shown[i, 1])
            early, late = (a, b) if a < b else (b, a)
            records.append(BookSortRecord(
                book_idx=book.book_idx, book_title=book.title, num_words=book.num_words,
                excerpt_idx=new_idx, excerpt_pos=start / n_words, excerpt_text=texts[i], segment_idx=0,
                segment_1=" ".join(words[early:early + segment_length]),
                segment_2=" ".join(words[late:late + segment_length]),
                seg1_pos=early, seg2_pos=late, distance_bin=upper, present_seg1_first=1 - int(answers[i]),
                excerpt_length=excerpt_length, segment_length=segment_length,
            ))
    return records


def _draw_pairs(stream: LegacyStream, candidates: list[np.ndarray], lower: int,
                upper: int) -> list[tuple[int, int] | None]:
    """Per excerpt, two sentence starts at distance in (lower, upper), or None (a "bad sample"), as the published
    sampler draws them, excerpt after excerpt.

    The draws mirror the published sampler call for call (first start, then an offset among the allowed ones,
    up to 10,001 tries; nothing for an excerpt without candidates), in compiled code when it is available
    (:mod:`benchlab.data.sort.native_draws`; one call for all excerpts).
    """
    if stream.native:
        picks = stream.pairs(candidates, lower, upper, MAX_PAIR_TRIES + 1)
    else:
        picks = [_pick_pair(stream.random_state, cand, lower, upper) if len(cand) else None for cand in candidates]
    pairs: list[tuple[int, int] | None] = []
    for cand, picked in zip(candidates, picks, strict=True):
        if picked is None:
            pairs.append(None)
            continue
        first, second = int(cand[picked[0]]), int(cand[picked[1]])
        # the published sampler rejects a distance equal to the upper edge
        pairs.append((first, second) if abs(second - first) < upper else None)
    return pairs


def _pick_pair(rs: np.random.RandomState, cand: np.ndarray, lower: int, upper: int) -> tuple[int, int] | None:
    """numpy's own calls for :func:`_draw_pairs`: (first, partner) indices of ``cand`` or None.

    ``cand`` is sorted, so the allowed partners of each start are two runs of it (before and after the start),
    found for every start at once by binary search. The published sampler picks among the allowed offsets in
    the candidates' order: earlier ones first.
    """
    n = len(cand)
    before_lo = np.searchsorted(cand, cand - upper, side="left")  # partners at offsets -upper .. -lower-1
    n_before = np.searchsorted(cand, cand - lower, side="left") - before_lo
    after_lo = np.searchsorted(cand, cand + lower, side="right")  # partners at offsets lower+1 .. upper
    count = n_before + np.searchsorted(cand, cand + upper, side="right") - after_lo
    for _ in range(MAX_PAIR_TRIES + 1):  # every try's draws are spent even when no start has a partner
        k = rs.permutation(n)[0]
        if count[k]:
            r = int(rs.randint(0, count[k]))
            return int(k), int(before_lo[k] + r if r < n_before[k] else after_lo[k] + (r - n_before[k]))
    return None


def check_trials(records: Sequence[BookSortRecord], book_words: Sequence[str] | None = None) -> list[str]:
    """Problems with a set of trials of one book and configuration (empty list when all is well).

    Whole-book trials are checked by :func:`benchlab.data.sort.whole_book.check_whole_book`. Checks: lengths,
    segments verbatim at their positions and starting at sentence starts, distances strictly
    inside their bins, the same excerpts in every bin, the test/validation split, balance of present_seg1_first,
    and (given the book's words) every excerpt verbatim at its recorded position.
    """
    problems: list[str] = []
    if not records:
        return ["no trials"]
    if any(r.design != "excerpt" for r in records):
        return check_whole_book(records, book_words)
    by_bin: dict[int, list[BookSortRecord]] = {}
    # An excerpt recurs in every bin: split it and look it up in the book once; each configuration's bins once.
    excerpt_words: dict[str, list[str]] = {}
    found_in_book: set[tuple[int, str]] = set()
    lower_edges: dict[tuple[int, int], tuple[list[int], dict[int, int]]] = {}
    sentence_end: dict[str, bool] = {}
    for r in records:
        by_bin.setdefault(r.distance_bin, []).append(r)
        words = excerpt_words.get(r.excerpt_text)
        if words is None:
            words = excerpt_words[r.excerpt_text] = r.excerpt_text.split()
        if len(words) != r.excerpt_length:
            problems.append(f"{_where(r)}: excerpt has {len(words)} words, not {r.excerpt_length}")
            continue
        n = r.segment_length
        for name, pos, text in (("segment_1", r.seg1_pos, r.segment_1), ("segment_2", r.seg2_pos, r.segment_2)):
            part = words[pos:pos + n]
            # the words hold no spaces, so this is "the text is these n words" (text.split() == part)
            if len(part) != n or " ".join(part) != text:
                problems.append(f"{_where(r)}: {name} is not the {n} words at position {pos}")
            if pos > 0:
                before = words[pos - 1]
                ends = sentence_end.get(before)
                if ends is None:
                    ends = sentence_end[before] = ends_sentence(before)
                if not ends:
                    problems.append(f"{_where(r)}: {name} does not start at a sentence start")
        config = (r.excerpt_length, n)
        if config not in lower_edges:
            edges = distance_bin_edges(*config)
            lower_of: dict[int, int] = {}
            for lower, upper in itertools.pairwise(edges):
                lower_of.setdefault(upper, lower)  # the first bin with this right edge, as edges.index finds it
            lower_edges[config] = (edges, lower_of)
        edges, lower_of = lower_edges[config]
        if r.distance_bin not in lower_of:
            problems.append(f"{_where(r)}: distance_bin {r.distance_bin} is not one of {edges[1:]}")
        elif not lower_of[r.distance_bin] < r.distance < r.distance_bin:
            problems.append(f"{_where(r)}: distance {r.distance} outside ({lower_of[r.distance_bin]}, "
                            f"{r.distance_bin})")
        if book_words is not None:
            start = round(r.excerpt_pos * len(book_words))
            if (start, r.excerpt_text) in found_in_book:
                continue
            if " ".join(book_words[start:start + r.excerpt_length]) != r.excerpt_text:
                problems.append(f"{_where(r)}: excerpt not found in the book at position {start}")
            else:
                found_in_book.add((start, r.excerpt_text))
    excerpt_sets = {b: sorted(r.excerpt_idx for r in rs) for b, rs in by_bin.items()}
    first = next(iter(excerpt_sets.values()))
    if any(v != first for v in excerpt_sets.values()):
        problems.append("bins do not share the same excerpts")
    if first != list(range(len(first))):
        problems.append("excerpt_idx is not 0..n-1")
    if len(first) > N_VALIDATION_EXCERPTS * 2:
        for b, rs_ in by_bin.items():
            share = sum(r.present_seg1_first for r in rs_) / len(rs_)
            if not 0.4 <= share <= 0.6:
                problems.append(f"bin {b}: present_seg1_first share {share:.2f} is not balanced")
    return problems


def _where(r: BookSortRecord) -> str:
    return f"excerpt {r.excerpt_idx}, bin {r.distance_bin}"


def excerpts_in_text(records: Sequence[BookSortRecord], book_words: Sequence[str]) -> tuple[int, int]:
    """(found, total): how many of the distinct excerpts of ``records`` occur verbatim anywhere in the book.

    Finds which text a data set was made from (ids may differ when a title or ``--book-id`` was given), and says
    how much of it is missing when it is the wrong book.
    """
    joined = " ".join(book_words)
    excerpts = {(r.excerpt_length, r.segment_length, r.excerpt_idx): r.excerpt_text for r in records}
    found = {text: text in joined for text in set(excerpts.values())}
    return sum(found[text] for text in excerpts.values()), len(excerpts)


def generate_many(book: PreparedBook, configs: Sequence[tuple[int, int]], seed: int | None = None,
                  ) -> tuple[list[BookSortRecord], list[GenerationReport], list[str]]:
    """Trials for several configurations of one book; configurations longer than the book are skipped (reported)."""
    idx = index_book(book)
    out: list[BookSortRecord] = []
    reports: list[GenerationReport] = []
    skipped: list[str] = []
    for le, ls in configs:
        if len(book.words) <= le:
            skipped.append(f"{book.title} ({len(book.words):,} words after cleaning) is too short for e{le} "
                           f"(needs more than {le:,})")
            continue
        recs, rep = generate(book, le, ls, seed, _index_cache=idx)
        out.extend(recs)
        reports.append(rep)
    return out, reports, skipped
