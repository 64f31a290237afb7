"""The benchmark's passages as a table (``benchlab fastbook chunks``): where each chunk starts and ends in
chapter_N.txt, by offset and line, which half of the chapter it is in, and how it begins and ends."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from benchlab.data.errors import BenchlabError
from benchlab.data.tables import Table

if TYPE_CHECKING:
    from benchlab.data.fastbook.chapters import Chapter


def chunk_table(bench_path: Path, chapters: dict[int, Chapter], only: Collection[int] = ()) -> Table:
    """Every chunk of ``chapters`` (or of the chapters in ``only``); an unknown chapter is an error naming the
    benchmark's chapters."""
    rows = []
    for number, chapter in chapters.items():
        if only and number not in only:
            continue
        for chunk in chapter.chunks:
            rows.append({
                "chapter": number, "chunk": chunk.index, "start": chunk.start, "end": chunk.end,
                "lines": f"{chapter.line_of(chunk.start)}-{chapter.line_of(chunk.end)}",
                "chars": chunk.end - chunk.start,
                "half": 1 if chunk.end <= chapter.halving_cut else 2,
                "begins": chunk.text[:40].replace("\n", "⏎"), "ends": chunk.text[-40:].replace("\n", "⏎"),
            })
    if not rows:
        raise BenchlabError(f"no such chapter; the benchmark has chapters {', '.join(map(str, chapters))}", bench_path)
    frame = pd.DataFrame(rows).set_index(["chapter", "chunk"]).astype(object)
    cuts = ", ".join(f"ch{n} at {c.halving_cut}" for n, c in chapters.items() if not only or n in only)
    return Table(f"fastbook-benchmark chunks (halving cut: {cuts})", frame)
