"""Validating a BookSORT data set (``benchlab booksort check``): every book/configuration group checked, excerpts
found verbatim in the books given as text, and texts that are none of the data's books reported, never skipped."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from benchlab.data.errors import BenchlabError
from benchlab.data.sort.books import PreparedBook, prepare
from benchlab.data.sort.generator import check_trials, excerpts_in_text
from benchlab.data.sort.records import BookSortRecord

Groups = dict[tuple[int, int, int], list[BookSortRecord]]


def group_records(records: Sequence[BookSortRecord]) -> Groups:
    """Records by (book, L_E, L_S)."""
    groups: Groups = {}
    for r in records:
        groups.setdefault((r.book_idx, r.excerpt_length, r.segment_length), []).append(r)
    return groups


def report_groups(groups: Groups, books: dict[int, PreparedBook], texts_given: bool,
                  emit: Callable[[str], None]) -> int:
    """One line per book/configuration; returns how many failed."""
    failed = 0
    for (book, le, ls), recs in sorted(groups.items()):
        words = books[book].words if book in books else None
        problems = check_trials(recs, words)
        status = "ok" if not problems else f"{len(problems)} problems: " + "; ".join(problems[:3])
        failed += bool(problems)
        where = " (excerpts checked in text)" if words else " (no --text for this book)" if texts_given else ""
        emit(f"{book} e{le}/s{ls}: {len(recs)} trials{where}: {status}")
    return failed


def _prepare_any(text: Path) -> PreparedBook:
    """The book of ``text``; a text without a Gutenberg header is titled by its file name (matched by content)."""
    try:
        return prepare(text)
    except BenchlabError as exc:
        if "no title given" not in exc.message:
            raise
        return prepare(text, title=text.stem)


def books_for_check(texts: Sequence[Path], groups: Groups) -> tuple[dict[int, PreparedBook], list[tuple[Path, str]]]:
    """The data's books each --text stands for, and (text, why) for texts that are none of them.

    A text is matched by book id first; a text whose id the data lacks (made with --title or --book-id) is
    matched by content to the data book with the most of its excerpts. Silently skipping a text that matches
    nothing would print "ok" for a check that never happened.
    """
    by_book: dict[int, list[BookSortRecord]] = {}
    titles: dict[int, str] = {}
    for (book, _, _), recs in groups.items():
        by_book.setdefault(book, []).extend(recs)
        titles[book] = recs[0].book_title
    books: dict[int, PreparedBook] = {}
    pending: list[tuple[Path, PreparedBook]] = []
    for text in texts:
        prepared = _prepare_any(text)
        if prepared.book_idx in by_book:
            books[prepared.book_idx] = prepared
        else:
            pending.append((text, prepared))
    mismatches: list[tuple[Path, str]] = []
    for text, prepared in pending:
        candidates = [b for b in sorted(by_book) if b not in books]
        counts = {b: excerpts_in_text(by_book[b], prepared.words) for b in candidates}
        best = max(counts, key=lambda b: counts[b][0], default=None)
        if best is not None and counts[best][0] > 0:
            books[best] = prepared
            continue
        data_books = ", ".join(f"{b} ({titles[b]!r})" for b in sorted(by_book))
        if best is None:
            why = f"book {prepared.book_idx} ({prepared.title!r}) is not in this data set (its books: {data_books})"
        else:
            missing = ", ".join(f"{counts[b][1]} of {counts[b][1]} excerpts of book {b}" for b in candidates)
            why = (f"{missing} not found in this text (book {prepared.book_idx}, {prepared.title!r}): the data was "
                   f"made from another book (its books: {data_books})")
        mismatches.append((text, why))
    return books, mismatches
