"""Reading text files strictly as UTF-8, with errors that name the file and line of the bad bytes.

Every reader of a results file, trials file, plan, CSV or JSON document goes through here, so a stray byte
(a file saved as Latin-1, a copy cut by a full disk) is one clear ``file:line`` message instead of an internal
error from deep inside a parser, and so the fast columnar readers (pyarrow, the numpy byte scanner) accept
exactly what the careful readers accept. Decoding is strict: text is never silently changed with
replacement characters, because a changed answer or id would be scored as if it were real.
"""

from __future__ import annotations

import bz2
import codecs
import csv
import errno
import io
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from benchlab.data.errors import BenchlabError, read_bytes, read_error

#: The largest results file (a person's or a model's answers) a reader accepts: a full WorldSense test set
#: answered by a model is 3.8 MB, a SORT session's CSV with its excerpts under 20 MB. A bigger file is refused
#: before it is read (a 2 GB file of NUL bytes once took 6 GB of memory), so every reader stays under 500 MB.
MAX_RESULTS_BYTES = 64 * 1024 * 1024


def check_regular_file(path: str | Path, expected: str = "a file", max_bytes: int | None = None) -> int:
    """The file's size if ``path`` is a regular file a reader can take; else one error naming the path.

    A FIFO named like a results file would block a reader forever, a folder or a symlink loop named like one used to
    be skipped silently, and a file past ``max_bytes`` would be read whole into memory: each is refused here.
    """
    p = Path(path)
    try:
        info = os.stat(p)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BenchlabError(f"is a symbolic link that loops, expected {expected}", p) from None
        raise read_error(exc, p, expected) from None
    if stat.S_ISDIR(info.st_mode):
        raise BenchlabError(f"is a folder, expected {expected}", p)
    if not stat.S_ISREG(info.st_mode):
        raise BenchlabError(f"is not a regular file (a FIFO, socket or device), expected {expected}", p)
    if max_bytes is not None and info.st_size > max_bytes:
        raise BenchlabError(f"is {info.st_size / 1024**2:,.0f} MB, over the {max_bytes / 1024**2:,.0f} MB a results "
                            "file may have (is it really one?)", p)
    return info.st_size


def find_named_files(root: str | Path, matches: Callable[[str], bool], expected: str = "a results file",
                     max_bytes: int | None = MAX_RESULTS_BYTES) -> list[Path]:
    """Every entry under ``root`` (recursively) whose name ``matches``, each checked by :func:`check_regular_file`.

    Folders, FIFOs and symlink loops named like a results file are errors naming them, never skipped: a results
    file silently left out changes the scores.
    """
    found: list[Path] = []

    def _error(exc: OSError) -> None:
        raise BenchlabError(f"cannot list this folder ({exc.strerror or exc})", exc.filename)

    for dirpath, dirs, files in os.walk(root, onerror=_error):
        named: Iterable[str] = [*files, *dirs]
        for name in named:
            if matches(name):
                path = Path(dirpath) / name
                check_regular_file(path, expected, max_bytes)
                found.append(path)
    return sorted(found)


def utf8_error(raw: bytes, exc: UnicodeDecodeError, path: str | Path | None, first_line: int = 1) -> BenchlabError:
    """The one message for bytes that are not UTF-8: file, line and the byte's column on that line."""
    line = first_line + raw.count(b"\n", 0, exc.start)
    column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
    return BenchlabError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}); save the file as UTF-8",
                         path, line)


def decode_utf8(raw: bytes, path: str | Path | None, first_line: int = 1, *, strip_bom: bool = True) -> str:
    """``raw`` decoded strictly (a leading byte-order mark dropped unless told), else an error naming the line."""
    try:
        return raw.decode("utf-8-sig" if strip_bom else "utf-8")
    except UnicodeDecodeError as exc:
        raise utf8_error(raw, exc, path, first_line) from exc


def check_utf8(raw: bytes, path: str | Path | None) -> None:
    """Raise the ``file:line`` error if ``raw`` is not UTF-8 (for the fast paths that parse bytes themselves)."""
    if not raw.isascii():  # ASCII is valid UTF-8; this check costs ~1 ms per 100 MB
        decode_utf8(raw, path)


def read_text(path: str | Path, expected: str = "a file", *, keep_newlines: bool = True,
              strip_bom: bool = True) -> str:
    """A whole text file, strictly UTF-8; every problem (missing, unreadable, bad bytes) is one clear error.

    ``keep_newlines=False`` turns ``\r\n`` and ``\r`` into ``\n`` (as Python's text mode does).
    """
    p = Path(path)
    check_regular_file(p, expected)
    text = decode_utf8(read_bytes(p, expected), p, strip_bom=strip_bom)
    if not keep_newlines and "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


@dataclass
class SplitText:
    """A file's text up to its last newline, and what came after it (a record cut mid-write, or nothing)."""

    text: str
    tail: str | None  # None: the file ends with a newline (or is empty)
    tail_line: int  # the line the tail starts on
    tail_undecodable: bool = False  # the tail was cut inside a UTF-8 sequence (so it is certainly torn)


def read_text_with_tail(path: str | Path, expected: str = "a file") -> SplitText:
    """Like :func:`read_text`, but bad bytes after the last newline (a write cut mid-character) are not an error.

    A writer killed mid-record leaves a last line without its newline, possibly ending inside a multi-byte
    character; the caller decides whether that tail is a torn record. Bad bytes anywhere else are an error.
    """
    p = Path(path)
    check_regular_file(p, expected)
    raw = read_bytes(p, expected)
    cut = raw.rfind(b"\n") + 1
    head = decode_utf8(raw[:cut], p)
    tail_line = raw.count(b"\n", 0, cut) + 1
    if cut == len(raw):
        return SplitText(head, None, tail_line)
    try:
        return SplitText(head, raw[cut:].decode("utf-8"), tail_line)
    except UnicodeDecodeError as exc:
        if exc.reason != "unexpected end of data":
            raise utf8_error(raw[cut:], exc, p, tail_line) from exc
        return SplitText(head, raw[cut:cut + exc.start].decode("utf-8"), tail_line, tail_undecodable=True)


def open_binary(path: str | Path) -> IO[bytes]:
    """A plain or ``.bz2`` file opened for reading bytes, with a clear error when it cannot be opened."""
    p = Path(path)
    check_regular_file(p)
    try:
        if p.suffix == ".bz2":
            return bz2.open(p, "rb")
        return open(p, "rb")
    except OSError as exc:
        raise read_error(exc, p) from exc


def iter_lines(path: str | Path, *, allow_torn_tail: bool = False) -> Iterator[tuple[int, str, bool]]:
    """``(line_number, text, complete)`` per line of a plain or ``.bz2`` text file, each line decoded strictly.

    ``complete`` is False only for a last line without its newline. With ``allow_torn_tail`` such a line that
    was cut inside a multi-byte character is yielded as ``""`` instead of raising (it is a torn record).
    """
    p = Path(path)
    with open_binary(p) as handle:
        lineno = 0
        try:
            for raw in handle:
                lineno += 1
                complete = raw.endswith(b"\n")
                try:
                    text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    if allow_torn_tail and not complete and exc.reason == "unexpected end of data":
                        yield lineno, "", False
                        return
                    raise utf8_error(raw, exc, p, lineno) from exc
                yield lineno, text, complete
        except EOFError as exc:
            raise BenchlabError(f"the compressed file is truncated after line {lineno} (download it again)",
                                p) from exc
        except OSError as exc:
            raise BenchlabError(f"cannot read after line {lineno}: {exc}", p, lineno + 1) from exc


class Utf8CheckedReader(io.RawIOBase):
    """A binary stream that checks, as it is read, that its bytes are UTF-8 (for readers that skip fields).

    pyarrow's JSON reader only decodes the fields it is asked for, so bad bytes in another field would pass
    unseen; this wrapper raises :class:`UnicodeError` on the first bad byte. ASCII chunks (almost all of a
    benchmark file) are checked with ``bytes.isascii``, so the cost is negligible.
    """

    def __init__(self, inner: IO[bytes]) -> None:
        super().__init__()
        self._inner = inner
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        chunk = self._inner.read(-1 if size is None else size)
        pending = self._decoder.getstate()[0]
        if pending or not chunk.isascii():
            self._decoder.decode(chunk, final=not chunk)
        return chunk

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


# --------------------------------------------------------------------------------------------- CSV


@dataclass
class CsvRecords:
    """A CSV file's header and rows, each with the line it starts on; ``torn_line``: where a cut last row began."""

    path: Path
    header: list[str]
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # the ``columns`` of each row
    columns: list[str] = field(default_factory=list)
    torn_line: int | None = None


def read_csv_header(path: str | Path, expected: str = "a CSV file") -> list[str]:
    """The column names on a CSV file's first line (strict UTF-8), to decide how to read it before reading it."""
    p = Path(path)
    check_regular_file(p, expected)
    try:
        with open(p, "rb") as handle:
            first = handle.readline(1 << 20)
    except OSError as exc:
        raise read_error(exc, p, expected) from exc
    try:
        return next(csv.reader([decode_utf8(first, p).rstrip("\r\n")], strict=True), [])
    except csv.Error as exc:
        raise BenchlabError(f"malformed CSV header ({exc})", p, 1) from exc


def read_csv_records(path: str | Path, *, rows_end_with_newline: bool | Callable[[list[str]], bool] = False,
                     expected: str = "a CSV file", keep: Callable[[str], bool] | None = None,
                     max_bytes: int | None = MAX_RESULTS_BYTES) -> CsvRecords:
    """Parse a CSV file strictly (UTF-8, quotes closed, every row as wide as the header), naming file and line.

    A last row that is incomplete (cut inside a quoted field or a character, or with fewer fields than the
    header) is what a power cut or a full disk leaves: it is left out and ``torn_line`` says where it started.
    With ``rows_end_with_newline`` (files whose writer ends every row with a newline) a last row without its
    newline is left out even when it looks complete (a callable decides from the header). Anything malformed
    before the last row is an error naming its line. ``keep`` chooses the columns the rows hold (``header``
    still lists all), so long texts a reader does not need (a 20,000-word excerpt per row) are dropped as they
    are parsed. The file is streamed line by line, never held whole; a file past ``max_bytes`` is refused before
    it is read (a line of a file without newlines would otherwise be held whole).
    """
    p = Path(path)
    check_regular_file(p, expected, max_bytes)
    state = {"unterminated": False, "undecodable": False}

    def lines(handle: IO[bytes]) -> Iterator[str]:
        for lineno, raw in enumerate(handle, start=1):
            complete = raw.endswith(b"\n")
            state["unterminated"] = not complete
            try:
                yield raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                if complete or exc.reason != "unexpected end of data":
                    raise utf8_error(raw, exc, p, lineno) from exc
                state["undecodable"] = True  # cut inside a character: certainly a torn last row
                yield raw[: exc.start].decode("utf-8")

    try:
        with open(p, "rb") as handle:
            return _parse_csv(p, lines(handle), state, rows_end_with_newline, keep)
    except OSError as exc:
        raise read_error(exc, p, expected) from exc


def _parse_csv(p: Path, lines: Iterator[str], state: dict[str, bool],
               rows_end_with_newline: bool | Callable[[list[str]], bool],
               keep: Callable[[str], bool] | None) -> CsvRecords:
    reader = csv.reader(lines, strict=True)
    records = CsvRecords(p, [])
    kept: list[int] | None = None

    def newline_ended(header: list[str]) -> bool:
        return rows_end_with_newline(header) if callable(rows_end_with_newline) else rows_end_with_newline

    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            # A quoted field still open at the end of a file cut mid-line is a cut last row; one opened earlier
            # and never closed (the rest of the file swallowed into it) is an error, never a silent cut.
            one_line = reader.line_num == start
            if ("unexpected end of data" in str(exc) and state["unterminated"]
                    and (one_line or not newline_ended(records.header))):
                records.torn_line = start
                break
            raise BenchlabError(f"malformed CSV row ({exc})", p, start) from exc
        end = reader.line_num
        # The last row, without its newline (nothing is read after it): complete, or cut by a killed writer?
        if state["unterminated"] and (state["undecodable"] or newline_ended(records.header)
                                      or (records.header and len(row) != len(records.header))):
            records.torn_line = start
            break
        if not records.header and start == 1:
            if state["unterminated"]:  # a header without its newline has no rows after it: cut while written
                records.torn_line = 1
                break
            if not row:
                raise BenchlabError("the CSV file has an empty first line (expected a header)", p, 1)
            records.header = row
            if keep is not None:
                kept = [i for i, name in enumerate(row) if keep(name)]
                records.columns = [row[i] for i in kept]
            else:
                records.columns = row
        elif row:  # blank lines are skipped, as pandas does
            if len(row) != len(records.header):
                raise BenchlabError(f"expected {len(records.header)} fields (as the header), found {len(row)}", p,
                                    start)
            records.rows.append((start, row if kept is None else [row[i] for i in kept]))
        start = end + 1
    if not records.header and records.torn_line is None:
        raise BenchlabError("the CSV file is empty (expected a header line)", p)
    return records
