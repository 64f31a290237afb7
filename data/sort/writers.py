"""Writing BookSORT trials in the three layouts the loaders read (parquet, three CSVs, JSONL), atomically.

File names follow the published conventions so a generated set drops into any tool that reads BookSORT:
``test_e{L_E}_s{L_S}.parquet`` / ``validation_...`` and ``books_/excerpts_/segments_{L_E}-s{L_S}-n{N}.csv``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from benchlab.data.atomic import atomic_write_bytes, atomic_write_text
from benchlab.data.sort.records import (
    BOOK_COLUMNS,
    EXCERPT_COLUMNS,
    N_TEST_EXCERPTS,
    SEGMENT_COLUMNS,
    BookSortRecord,
    records_columns,
)


def records_frame(records: Sequence[BookSortRecord]) -> pd.DataFrame:
    """The 15 published columns; ``design`` is added only for whole-book trials, so excerpt files stay as published."""
    columns = records_columns(records)
    return pd.DataFrame(columns, columns=list(columns))


def write_layout(records: Sequence[BookSortRecord], out: str | Path, layout: str) -> list[Path]:
    """Write all records (any mix of configurations and books) to ``out``; returns the files written."""
    folder = Path(out)
    frame = records_frame(records)
    written: list[Path] = []
    for (le, ls), group in frame.groupby(["excerpt_length", "segment_length"], sort=True):
        group = group.sort_values(["book_idx", "distance_bin", "excerpt_idx"], kind="stable").reset_index(drop=True)
        if layout == "parquet":
            for split, part in (("test", group[group["excerpt_idx"] < N_TEST_EXCERPTS]),
                                ("validation", group[group["excerpt_idx"] >= N_TEST_EXCERPTS])):
                buf = io.BytesIO()
                part.reset_index(drop=True).to_parquet(buf, index=False)
                path = folder / f"{split}_e{le}_s{ls}.parquet"
                atomic_write_bytes(path, buf.getvalue())
                written.append(path)
        elif layout == "csv":
            n = int(group["excerpt_idx"].max()) + 1
            books = group[BOOK_COLUMNS].drop_duplicates("book_idx").reset_index(drop=True)
            excerpts = group[EXCERPT_COLUMNS].drop_duplicates(["book_idx", "excerpt_idx"])
            excerpts = excerpts.sort_values(["book_idx", "excerpt_idx"]).reset_index(drop=True)
            segment_columns = [*SEGMENT_COLUMNS, *(["design"] if "design" in group.columns else [])]
            for name, part in (("books", books), ("excerpts", excerpts), ("segments", group[segment_columns])):
                path = folder / f"{name}_{le}-s{ls}-n{n}.csv"
                atomic_write_text(path, part.to_csv())
                written.append(path)
        elif layout == "jsonl":
            path = folder / f"booksort_e{le}_s{ls}.jsonl"
            lines = [json.dumps(row, ensure_ascii=False) for row in group.to_dict("records")]
            atomic_write_text(path, "\n".join(lines) + "\n")
            written.append(path)
        else:
            raise ValueError(f"unknown layout {layout!r}")
    return written
