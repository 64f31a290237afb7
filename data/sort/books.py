"""Turning a plain-text book into the word sequence SORT samples from.

Two paths. The nine BookSORT books use the published preprocessing (per-book chapter delimiter, slice of pieces
that drops front and back matter, chapter-title lists, end markers) so that their word counts and sampled trials
match the dataset. Any other text goes through a generic cleaner: Project Gutenberg header and licence removed,
chapter headings (and a title line right after them) removed, table of contents and "THE END" cut. Chapters are
joined with no marker, as in BookSORT, so excerpts may run across chapter breaks.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from benchlab.data.errors import BenchlabError, read_bytes


@dataclass(frozen=True)
class BookLayout:
    """How one Gutenberg file splits into chapters (the published per-book metadata, restated)."""

    delimiter: str
    first: int  # index of the first kept piece after splitting on ``delimiter``
    stop: int  # one past the last kept piece
    n_chapters: int
    end_marker: str | None = None  # regular expression; the last chapter is cut at its first match
    chapter_titles: tuple[str, ...] | None = None
    title_rule: str = "titles"  # "titles" | "numbered" (numbers or roman sections) | "book_title"


_T = tuple
KNOWN_BOOKS: dict[int, BookLayout] = {
    69087: BookLayout("CHAPTER", 2, 30, 27, "THE END", _T([
        "Dr. Sheppard at the Breakfast Table", "Who’s Who in King’s Abbot", "The Man Who Grew Vegetable Marrows",
        "Dinner at Fernly", "Murder", "The Tunisian Dagger", "I Learn My Neighbour’s Profession",
        "Inspector Raglan is Confident", "The Goldfish Pond", "The Parlormaid", "Poirot Pays a Call",
        "Round the Table", "The Goose Quill", "Mrs. Ackroyd", "Geoffrey Raymond", "An Evening at Mah Jong",
        "Parker", "Charles Kent", "Flora Ackroyd", "Miss Russell", "The Paragraph in the Paper", "Ursula’s Story",
        "Poirot’s Little Reunion", "Ralph Paton’s Story", "The Whole Truth", "And Nothing But The Truth",
        "Apologia"])),
    72578: BookLayout("\n\n\n\n", 5, 30, 25, "THE END", _T([
        "I BLASTING FIRE", "II NED DISAPPEARS", "III SUSPICIONS", "IV A STRANGE MESSAGE",
        "V ON A MYSTERIOUS TRAIL", "VI TOO LATE", "VII A WILD CHASE", "VIII TWO CAPTIVES", "IX ON THE ISLAND",
        "X THE ESCAPE", "XI RESCUED", "XII GREENBAUM THREATENS", "XIII MR DAMON DANCES", "XIV KOKU IS DRUGGED",
        "XV A SINISTER WARNING", "XVI A STARTLING DISCOVERY", "XVII USELESS PLEADINGS",
        "XVIII AN ANONYMOUS ADVERTISEMENT", "XIX THE MEETING", "XX MASKED MEN", "XXI A TEMPTING OFFER",
        "XXII FLASHING LIGHTS", "XXIII TOM ACCEPTS", "XXIV A FINAL TEST", "XXV A BRIGHT FUTURE"])),
    72600: BookLayout("\n\n\n", 13, 31, 18, None, _T([
        "The Broken Note", "I The Man Who Wouldn’t Sell His Pumpkin", "II Krakow", "III The Alchemist",
        "IV The Good Jan Kanty", "V In the Street of the Pigeons", "VI The Tower of the Trumpeter",
        "VII In the Alchemist’s Loft", "VIII Peter of the Button Face", "IX Button-Face Peter Attacks",
        "X The Evil One Takes a Hand", "XI The Attack on the Church", "XII Elzbietka Misses the Broken Note",
        "XIII The Great Tarnov Crystal", "XIV A Great Fire Rages", "XV King Kazimir Jagiello",
        "XVI The Last of the Great Tarnov Crystal", "Epilogue The Broken Note"])),
    72869: BookLayout("\n\n\n\n", 2, 22, 20, "The End", _T([
        "I The Pill Box", "II The Naturalist", "III A Little Melodrama", "IV A Social Evening",
        "V Aunt Agatha is Upset", "VI The Kindness of the Tiger", "VII The Fun Continues", "VIII The Saint is Dense",
        "IX Patricia Perseveres", "X The Old House", "XI Carn Listens In", "XII Tea with Lapping", "XIII The Brand",
        "XIV Captain Patricia", "XV Spurs for Algy", "XVI In the Swim", "XVII Piracy", "XVIII The Saint Returns",
        "XIX The Tiger", "XX The Last Laugh"])),
    72958: BookLayout("\n\n\n\n", 5, 29, 24, "THE END", _T([
        "I IN THE STORM", "II A CALL FOR HELP", "III JADBURY WILSON", "IV A TALE OF THE WEST",
        "V CON RILEY UNDER FIRE", "VI A MESSAGE FROM MONTANA", "VII IN THE WINDY CITY", "VIII THE SECOND STRANGER",
        "IX THE ESCAPE", "X ON GUARD", "XI FENTON HARDY'S STORY", "XII THE CAVE-IN", "XIII IN THE DEPTHS OF THE EARTH",
        "XIV ATTACKED BY THE OUTLAWS", "XV THE TRAP", "XVI INFORMATION", "XVII THE OUTLAW'S NOTEBOOK",
        "XVIII THE BLIZZARD", "XIX THE LONE TREE", "XX DOWN THE SHAFT", "XXI UNDERGROUND", "XXII BLACK PEPPER",
        "XXIII THE CAPTURE", "XXIV BART DAWSON EXPLAINS"])),
    72963: BookLayout("\n\n\n\n\n", 4, 22, 16, None, _T([
        "The Downfall of Classical Physics", "Relativity", "Time", "The Running-Down of the Universe", "“Becoming”",
        "Gravitation—the Law", "Gravitation—the Explanation", "Man’s Place in the Universe", "The Quantum Theory",
        "The New Quantum Theory", "World Building", "Pointer Readings", "Reality", "Causation",
        "Science and Mysticism", "Conclusion"])),
    72972: BookLayout("\n\n\n\n", 3, 18, 15, "THE END", None, "numbered"),
    73017: BookLayout("\n\n\n\n", 5, 6, 1, r"\*       \*       \*       \*       \*", None, "book_title"),
    73042: BookLayout("CHAPTER ", 1, 57, 56, "THE END", None, "numbered"),
}

_ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV"]
_PG_TITLE = re.compile(r"EBOOK(?P<title>.*)\*\*\*")
_PG_START = re.compile(r"^\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG.*$", re.MULTILINE | re.IGNORECASE)
_PG_END = re.compile(r"^\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG.*$", re.MULTILINE | re.IGNORECASE)


@dataclass
class PreparedBook:
    """A book ready for sampling: ``words`` are the body without chapter titles, front or back matter."""

    book_idx: int
    title: str  # as written in the data (Title Case for Gutenberg titles)
    num_words: int  # word count with chapter titles, as the card reports it
    words: list[str] = field(repr=False)
    source: Path | None = None
    method: str = "generic"


def read_text(path: str | Path) -> str:
    """Read a book file (UTF-8, BOM and Windows line ends tolerated) with a clear error."""
    p = Path(path)
    raw = read_bytes(p, "a plain-text book")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # old Gutenberg "-8" files; every byte decodes
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    problem = not_plain_text(text)
    if problem:
        raise BenchlabError(f"not a plain-text book: {problem}; give a UTF-8 or Latin-1 .txt file of prose", p)
    return text


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_NOT_LETTER = re.compile(r"[^\w\s]|[\d_]|[^\S \n\t\f\v\xa0]")  # visible non-letters (and rare spaces)
_SENTENCE_END = re.compile(r"[.!?][\"'’”)\]]*(?:\s|$)")


def not_plain_text(text: str) -> str | None:
    """Why ``text`` cannot be a book (binary data, no letters, no sentences), or None.

    The Latin-1 fallback decodes any bytes, so without this a binary file or an archive would be cut into
    "words" and sampled as if it were prose.
    """
    if "\x00" in text:
        return "it contains NUL bytes, like a binary file"
    visible = len(text) - sum(text.count(c) for c in " \n\t\f\v\xa0")
    if not visible:
        return "it is empty"
    controls = len(_CONTROL.findall(text))
    if controls > 0.01 * len(text):
        return f"{controls:,} control characters, like a binary file"
    letters = visible - len(_NOT_LETTER.findall(text))
    if letters < 0.5 * visible:
        return f"only {100 * letters / visible:.0f}% of its characters are letters"
    if _SENTENCE_END.search(text) is None:
        return "no sentence ends (., ! or ?)"
    return None


def gutenberg_title(text: str) -> str | None:
    """The title in a Project Gutenberg START line (upper case as written there), or None."""
    m = _PG_TITLE.search(text)
    return m["title"].strip() if m else None


def known_book_id(path: str | Path, text: str) -> int | None:
    """The PG id of one of the nine BookSORT books, from the file name (``69087-0.txt``) or the title line."""
    m = re.match(r"^(\d+)(?:-\d)?\.txt$", Path(path).name)
    if m and int(m[1]) in KNOWN_BOOKS:
        return int(m[1])
    return None


def prepare(path: str | Path, *, title: str | None = None, book_idx: int | None = None,
            generic: bool = False) -> PreparedBook:
    """Read and clean a book; the nine BookSORT books get their published preprocessing unless ``generic``."""
    p = Path(path)
    text = read_text(p)
    known = None if generic else known_book_id(p, text)
    if known is not None and (book_idx is None or book_idx == known):
        book = prepare_known(text, known)
        if title:
            book.title = title
        book.source = p
        return book
    pg_title = gutenberg_title(text)
    final_title = title or (pg_title.title() if pg_title else None)
    if not final_title:
        raise BenchlabError("no title given and none found in a Project Gutenberg header (pass --title)", p)
    words, num_words = clean_generic(text, final_title)
    idx = book_idx if book_idx is not None else stable_book_id(final_title)
    return PreparedBook(idx, final_title, num_words, words, p, "generic")


def stable_book_id(title: str) -> int:
    """A reproducible numeric id for a text without one (six digits, from the title)."""
    return 100_000 + zlib.crc32(title.strip().lower().encode("utf-8")) % 900_000


def prepare_known(text: str, book_id: int) -> PreparedBook:
    """The published preprocessing for one of the nine books (reproduces the card's word counts)."""
    layout = KNOWN_BOOKS[book_id]
    pg_title = gutenberg_title(text)
    if pg_title is None:
        raise BenchlabError(f"book {book_id}: no Project Gutenberg START line with the title")
    chapters = split_chapters(text, layout, book_id)
    chapter_words = [ch.split() for ch in chapters]
    num_words = sum(len(w) for w in chapter_words)
    if layout.title_rule == "book_title":
        words = [w for ch in chapter_words for w in ch][len(pg_title.split()):]
    else:
        words = []
        for i, ch in enumerate(chapter_words):
            words.extend(_strip_title(ch, layout, i, book_id))
    return PreparedBook(book_id, pg_title.title(), num_words, words, None, "booksort")


def split_chapters(text: str, layout: BookLayout, book_id: int) -> list[str]:
    """Chapters of a known book: split, keep the slice, re-merge pieces that are not chapter starts, cut the end."""
    pieces = [p.strip() for p in text.split(layout.delimiter)[layout.first:layout.stop]]
    titles = layout.chapter_titles
    if titles and len(pieces) > layout.n_chapters:
        if book_id == 72963:
            pieces = _repair_72963(pieces)
        merged: list[str] = []
        j = 0
        for title in titles:
            current = pieces[j]
            pattern = title
            while re.search(pattern, pieces[j], re.IGNORECASE) is None:
                # Not the expected chapter start: this piece belongs to the previous chapter (joined as is).
                if not merged or j + 1 >= len(pieces):
                    raise BenchlabError(f"book {book_id}: chapter title {title!r} not found")
                j += 1
                pattern = title + "\n"
                merged[-1] += current
                current = pieces[j]
            merged.append(current)
            j += 1
        pieces = merged
    if layout.end_marker:
        m = re.search(layout.end_marker, pieces[-1])
        if m is None:
            raise BenchlabError(f"book {book_id}: end marker {layout.end_marker!r} not found in the last chapter")
        pieces[-1] = pieces[-1][: m.start()].strip()
    if len(pieces) != layout.n_chapters:
        raise BenchlabError(f"book {book_id}: found {len(pieces)} chapters, expected {layout.n_chapters} "
                            "(is this the same Gutenberg edition?)")
    return pieces


def _repair_72963(pieces: list[str]) -> list[str]:
    """The first piece of 72963 holds chapters I and II with an irregular break: split it as published."""
    parts = pieces[0].split("\n\n\n")
    first = parts[0] + "\n" + parts[1]
    second = parts[2][1:] + "\n" + parts[3] + parts[4] + parts[5]
    return [first, second, *pieces[1:]]


def _strip_title(words: list[str], layout: BookLayout, index: int, book_id: int) -> list[str]:
    if layout.chapter_titles:
        last = layout.chapter_titles[index].split()[-1].lower()
        window = words[: len(layout.chapter_titles[index].split()) + 5]
        hits = [i for i, w in enumerate(window) if w.lower() == last]
        if not hits:
            raise BenchlabError(f"book {book_id}: chapter {index + 1} does not start with its title")
        return words[hits[-1] + 1:]
    numeric = [i for i, w in enumerate(words[:5]) if w.isnumeric()]
    if numeric:
        return words[numeric[-1] + 1:]
    # "CHAPTER I" then sections numbered I, II, III...: drop the heading, then the first occurrence of each
    # numeral in turn (a substring deletion, as published).
    joined = " ".join(words[2:])
    for numeral in _ROMAN:
        at = joined.find(numeral)
        if at < 0:
            break
        joined = joined[:at] + joined[at + len(numeral):]
    return joined.split()


# ---------------------------------------------------------------------------------------------------------------
# Generic cleaning for any plain text.

_HEADING = re.compile(
    r"^\s*(?:(?:CHAPTER|Chapter|BOOK|Book|PART|Part|SECTION|Section|VOLUME|Volume|ACT|Act)\s+"
    r"(?:[IVXLCDM]+|\d+|[A-Z][A-Za-z-]+)\b[.:]?.{0,70}"
    r"|[IVXLCDM]+\.?|\d{1,3}\.?|(?:PROLOGUE|Prologue|EPILOGUE|Epilogue|PREFACE|Preface|INTRODUCTION|Introduction))\s*$"
)
_END_LINE = re.compile(r"^\s*(THE END|The End|FINIS|Finis)\.?\s*$", re.MULTILINE)
_CONTENTS = re.compile(r"^\s*(CONTENTS|Contents|TABLE OF CONTENTS|Table of Contents)\.?\s*$", re.MULTILINE)


def _is_title_line(line: str) -> bool:
    """A short line without sentence punctuation right after a heading: the chapter's own title."""
    s = line.strip()
    return 0 < len(s.split()) <= 12 and not re.search(r"[.?!;,]\s*$", s[:-1] if s.endswith(".") else s) \
        and (s.isupper() or s.istitle() or s.endswith("."))


def clean_generic(text: str, title: str) -> tuple[list[str], int]:
    """Body words of any text (and its word count with headings) after removing Gutenberg and chapter matter."""
    if m := _PG_START.search(text):
        text = text[m.end():]
    if m := _PG_END.search(text):
        text = text[: m.start()]
    lines = text.split("\n")
    headings = [i for i, line in enumerate(lines) if line.strip() and _HEADING.match(line)]
    start = 0
    if headings:
        # Front matter (title page, contents) ends at the first heading followed by real prose.
        for k, i in enumerate(headings):
            nxt = headings[k + 1] if k + 1 < len(headings) else len(lines)
            if sum(len(line.split()) for line in lines[i + 1:nxt]) >= 150:
                start = i
                break
    elif m := _CONTENTS.search(text):
        start = text[: m.start()].count("\n")
    body = lines[start:]
    end_hits = [m for m in _END_LINE.finditer("\n".join(body))]
    joined = "\n".join(body)
    if end_hits and end_hits[-1].start() > 0.8 * len(joined):
        joined = joined[: end_hits[-1].start()]
    body = joined.split("\n")
    num_words = len(joined.split())
    kept: list[str] = []
    i = 0
    while i < len(body):
        line = body[i]
        if line.strip() and _HEADING.match(line):
            i += 1
            # Skip blank lines, then one title line if it looks like one.
            j = i
            while j < len(body) and not body[j].strip():
                j += 1
            if j < len(body) and _is_title_line(body[j]) and (j + 1 >= len(body) or not body[j + 1].strip()):
                i = j + 1
            continue
        kept.append(line)
        i += 1
    words = "\n".join(kept).split()
    return words, num_words
