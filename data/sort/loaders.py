"""Reading BookSORT in the layouts labs actually have, with one selection interface.

Layouts: the hosted parquet files (``test_e250_s20.parquet``, ``validation_e250_s20.parquet``), the original
script's three CSVs per configuration (``books_/excerpts_/segments_250-s20-n110.csv``) and JSONL (one record per
line, all 15 fields). Files may add the optional ``design`` column (``excerpt`` when missing, as in every
published file; ``whole-book`` for the paper's human design, :mod:`benchlab.data.sort.whole_book`). ``path`` may
be one file or a folder holding any of these. Files are picked by the configuration in their names before
anything is read, so asking for e250 never opens a 300 MB e20000 file.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from benchlab.data.errors import BenchlabError, read_bytes
from benchlab.data.jsonl import describe_validation_error, iter_json_lines
from benchlab.data.sort.records import (
    BOOK_COLUMNS,
    EXCERPT_COLUMNS,
    N_TEST_EXCERPTS,
    OPTIONAL_COLUMNS,
    PARQUET_COLUMNS,
    SEGMENT_COLUMNS,
    BookSortRecord,
    Split,
)
from benchlab.data.text_io import check_utf8

PARQUET_RE = re.compile(r"^(?P<split>test|validation)_e(?P<le>\d+)_s(?P<ls>\d+)\.parquet$")
CSV_RE = re.compile(r"^(?P<kind>books|excerpts|segments)_(?P<le>\d+)-s(?P<ls>\d+)-n(?P<n>\d+)\.csv$")
JSONL_SPLIT_RE = re.compile(r"^(?P<split>test|validation)_")
CONFIG_RE = re.compile(r"e(?P<le>\d+)_s(?P<ls>\d+)")


@dataclass(frozen=True)
class Selection:
    """Which trials to keep; ``None`` keeps everything. ``book`` is a PG id or a case-insensitive title part."""

    excerpt_length: int | None = None
    segment_length: int | None = None
    book: int | str | None = None
    distance_bin: int | None = None
    split: Split | None = None
    design: str | None = None

    def wants_config(self, le: int | None, ls: int | None) -> bool:
        if le is not None and self.excerpt_length is not None and le != self.excerpt_length:
            return False
        return not (ls is not None and self.segment_length is not None and ls != self.segment_length)

    def wants_split(self, split: str | None) -> bool:
        return split is None or self.split is None or split == self.split


@dataclass(frozen=True)
class Source:
    """One readable unit: a parquet file, a JSONL file, or a CSV triple."""

    layout: str  # "parquet" | "csv" | "jsonl"
    path: Path  # the parquet/JSONL file, or the segments CSV of a triple
    excerpt_length: int | None
    segment_length: int | None
    split: str | None = None
    n_excerpts: int | None = None


def discover(path: str | Path) -> list[Source]:
    """Every BookSORT file under ``path`` (a file or a folder, searched one level deep and in ``data/``)."""
    p = Path(path)
    if not p.exists():
        raise BenchlabError("no such file or folder", p)
    files: list[Path]
    if p.is_dir():
        files = sorted(f for d in (p, p / "data") if d.is_dir() for f in d.iterdir() if f.is_file())
    else:
        files = [p]
    sources: list[Source] = []
    for f in files:
        name = f.name
        if m := PARQUET_RE.fullmatch(name):
            sources.append(Source("parquet", f, int(m["le"]), int(m["ls"]), m["split"]))
        elif f.suffix == ".parquet":
            sources.append(Source("parquet", f, None, None, None))
        elif m := CSV_RE.fullmatch(name):
            if m["kind"] == "segments":
                sources.append(Source("csv", f, int(m["le"]), int(m["ls"]), None, int(m["n"])))
            elif not (f.parent / f"segments_{m['le']}-s{m['ls']}-n{m['n']}.csv").exists():
                raise BenchlabError(f"the segments file of this configuration is missing "
                                    f"(expected segments_{m['le']}-s{m['ls']}-n{m['n']}.csv beside it)", f)
        elif name.endswith((".jsonl", ".jsonl.bz2")):
            cfg = CONFIG_RE.search(name)
            split = JSONL_SPLIT_RE.match(name)
            sources.append(Source("jsonl", f, int(cfg["le"]) if cfg else None, int(cfg["ls"]) if cfg else None,
                                  split["split"] if split else None))
    # A folder holding the same configuration in several layouts is read once (parquet, else CSV, else JSONL).
    rank = {"parquet": 0, "csv": 1, "jsonl": 2}
    best: dict[tuple[int, int], int] = {}
    for s in sources:
        if s.excerpt_length is not None and s.segment_length is not None:
            key = (s.excerpt_length, s.segment_length)
            best[key] = min(best.get(key, 9), rank[s.layout])
    sources = [s for s in sources if s.excerpt_length is None or s.segment_length is None
               or rank[s.layout] == best[(s.excerpt_length, s.segment_length)]]
    if not sources:
        if p.is_file():
            raise BenchlabError("not a BookSORT file: expected test_e250_s20.parquet-style parquet, "
                                "segments_250-s20-n110.csv-style CSV, or .jsonl", p)
        raise BenchlabError("no BookSORT files here (looked for *.parquet, books_/excerpts_/segments_*.csv, "
                            "*.jsonl)", p)
    return sources


def load_frame(path: str | Path, selection: Selection | None = None) -> pd.DataFrame:
    """All selected trials as a frame with the 15 parquet columns plus ``split``, validated row by row."""
    sel = selection or Selection()
    frames = []
    sources = discover(path)
    for src in sources:
        if not sel.wants_config(src.excerpt_length, src.segment_length) or not sel.wants_split(src.split):
            continue
        if src.layout == "parquet":
            frame = _read_parquet(src)
        elif src.layout == "csv":
            frame = _read_csv_triple(src)
        else:
            frame = _read_jsonl(src)
        frames.append(_apply(_with_design(frame), sel))
    if not frames:
        have = sorted({(s.excerpt_length, s.segment_length) for s in sources if s.excerpt_length is not None})
        listing = ", ".join(f"e{le}/s{ls}" for le, ls in have) or "none named in the file names"
        raise BenchlabError(f"no files for the requested configuration (available: {listing})", path)
    out = pd.concat(frames, ignore_index=True)
    if out.empty:
        raise BenchlabError(f"no trials match the selection ({_describe(sel)})", path)
    return out.sort_values(["excerpt_length", "segment_length", "book_idx", "distance_bin", "excerpt_idx"],
                           kind="stable").reset_index(drop=True)


def load_records(path: str | Path, selection: Selection | None = None) -> list[BookSortRecord]:
    """The selected trials as validated records (see :func:`load_frame`)."""
    frame = load_frame(path, selection)
    columns = [*PARQUET_COLUMNS, *OPTIONAL_COLUMNS]
    # The same excerpt appears once per distance bin: keep one copy of its text (20,000-word excerpts are large).
    texts: dict[tuple[int, int, int, int], str] = {}
    out = []
    for row in frame[columns].to_dict("records"):
        key = (row["book_idx"], row["excerpt_length"], row["segment_length"], row["excerpt_idx"])
        row["excerpt_text"] = texts.setdefault(key, row["excerpt_text"])
        out.append(BookSortRecord.model_validate(row))
    return out


def available_configs(path: str | Path) -> list[tuple[int, int]]:
    """(excerpt_length, segment_length) pairs present, read from file names where they say, else from data."""
    found: set[tuple[int, int]] = set()
    for src in discover(path):
        if src.excerpt_length is not None and src.segment_length is not None:
            found.add((src.excerpt_length, src.segment_length))
        else:
            frame = _read_parquet(src) if src.layout == "parquet" else _read_jsonl(src)
            found.update(zip(frame["excerpt_length"].astype(int), frame["segment_length"].astype(int), strict=True))
    return sorted(found)


def _with_design(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``design`` column, ``excerpt`` where a file has none (every published file)."""
    if "design" not in frame.columns:
        frame = frame.assign(design="excerpt")
    else:
        frame = frame.assign(design=frame["design"].replace("", "excerpt"))
    return frame


def _describe(sel: Selection) -> str:
    parts = [f"{k}={v}" for k, v in vars(sel).items() if v is not None]
    return ", ".join(parts) or "everything"


def _apply(frame: pd.DataFrame, sel: Selection) -> pd.DataFrame:
    keep = pd.Series(True, index=frame.index)
    if sel.excerpt_length is not None:
        keep &= frame["excerpt_length"] == sel.excerpt_length
    if sel.segment_length is not None:
        keep &= frame["segment_length"] == sel.segment_length
    if sel.distance_bin is not None:
        keep &= frame["distance_bin"] == sel.distance_bin
    if sel.split is not None:
        keep &= frame["split"] == sel.split
    if sel.design is not None:
        keep &= frame["design"] == sel.design
    if sel.book is not None:
        book = sel.book
        if isinstance(book, int) or str(book).isdigit():
            keep &= frame["book_idx"] == int(book)
        else:
            keep &= frame["book_title"].str.contains(str(book), case=False, regex=False)
    return frame[keep]


def _check_columns(frame: pd.DataFrame, needed: Iterable[str], path: Path, header_line: int | None = None) -> None:
    """Every needed column is there (a CSV's error names its header line; a parquet file has none)."""
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise BenchlabError(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                            f"(is this a BookSORT file?)", path, header_line)


def _validate_rows(frame: pd.DataFrame, path: Path, first_line: int) -> pd.DataFrame:
    """Validate every row with the record model; the error names the file line (CSV) or row (parquet)."""
    columns = [*PARQUET_COLUMNS, *(c for c in OPTIONAL_COLUMNS if c in frame.columns)]
    for i, row in enumerate(frame[columns].to_dict("records")):
        try:
            BookSortRecord.model_validate(row)
        except ValidationError as exc:
            raise BenchlabError(describe_validation_error(exc), path, first_line + i) from exc
    return frame


def _split_column(frame: pd.DataFrame, split: str | None, n_test: int = N_TEST_EXCERPTS) -> pd.Series:
    if split is not None:
        return pd.Series(split, index=frame.index)
    return frame["excerpt_idx"].map(lambda i: "test" if i < n_test else "validation")


def _read_parquet(src: Source) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(src.path)
    except (OSError, ValueError) as exc:
        raise BenchlabError(f"cannot read this parquet file ({exc})", src.path) from exc
    _check_columns(frame, PARQUET_COLUMNS, src.path)
    frame = frame[[*PARQUET_COLUMNS, *(c for c in OPTIONAL_COLUMNS if c in frame.columns)]].reset_index(drop=True)
    _validate_rows(frame, src.path, 1)
    frame["split"] = _split_column(frame, src.split)
    return frame


def _read_csv(path: Path, needed: list[str]) -> pd.DataFrame:
    raw = read_bytes(path, "a BookSORT CSV file")
    check_utf8(raw, path)  # bad bytes name their line (pandas would say neither, or decode them wrongly)
    try:
        frame = pd.read_csv(io.BytesIO(raw), keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        found = re.search(r"\bline (\d+)", str(exc))  # pandas names the row it stopped at, in its own words
        raise BenchlabError(f"cannot read this CSV ({str(exc).strip()})", path,
                            int(found.group(1)) if found else None) from exc
    frame = frame.drop(columns=[c for c in frame.columns if c.startswith("Unnamed:")])
    _check_columns(frame, needed, path, 1)
    for col in needed:
        if col in ("book_title", "excerpt_text", "segment_1", "segment_2"):
            continue
        numeric = pd.to_numeric(frame[col], errors="coerce")
        bad = numeric.isna()
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise BenchlabError(f"field '{col}': not a number: {frame[col].iloc[i]!r}", path, i + 2)
        frame[col] = numeric.astype(float if col == "excerpt_pos" else int)
    return frame


def _read_csv_triple(src: Source) -> pd.DataFrame:
    seg_path = src.path
    stem = seg_path.name[len("segments_"):]
    books = _read_csv(seg_path.with_name("books_" + stem), BOOK_COLUMNS)
    excerpts = _read_csv(seg_path.with_name("excerpts_" + stem), EXCERPT_COLUMNS)
    segments = _read_csv(seg_path, SEGMENT_COLUMNS)
    segments = segments.reset_index(names="_line")
    merged = segments.merge(excerpts[EXCERPT_COLUMNS], on=["book_idx", "excerpt_idx"], how="left")
    merged = merged.merge(books[BOOK_COLUMNS], on="book_idx", how="left")
    for col, other in (("excerpt_text", "excerpts_"), ("book_title", "books_")):
        orphan = merged[col].isna()
        if orphan.any():
            row = merged[orphan].iloc[0]
            raise BenchlabError(f"book {row['book_idx']} excerpt {row['excerpt_idx']} has no row in {other}{stem}",
                                seg_path, int(row["_line"]) + 2)
    merged["segment_length"] = [len(str(t).split()) for t in merged["segment_1"]]
    words_per_excerpt = [len(str(t).split()) for t in merged["excerpt_text"]]
    merged["excerpt_length"] = src.excerpt_length if src.excerpt_length else words_per_excerpt
    merged = merged.sort_values("_line").reset_index(drop=True)
    _validate_rows(merged, seg_path, 2)
    n_test = (src.n_excerpts or 110) - 10
    merged["split"] = _split_column(merged, None, n_test)
    return merged[[*PARQUET_COLUMNS, *(c for c in OPTIONAL_COLUMNS if c in merged.columns), "split"]]


def _read_jsonl(src: Source) -> pd.DataFrame:
    rows = []
    for lineno, obj in iter_json_lines(src.path):
        try:
            rec = BookSortRecord.model_validate(obj)
        except ValidationError as exc:
            raise BenchlabError(describe_validation_error(exc), src.path, lineno) from exc
        rows.append(rec.model_dump())
    if not rows:
        raise BenchlabError("no records in this file", src.path)
    frame = pd.DataFrame(rows)[[*PARQUET_COLUMNS, *OPTIONAL_COLUMNS]]
    frame["split"] = _split_column(frame, src.split)
    return frame
