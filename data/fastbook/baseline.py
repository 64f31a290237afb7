"""A full-text-search baseline: SQLite FTS5 (built-in bm25 rank) over the benchmark's chunks, no model needed.

It reproduces the repository's "bm25_500" run (spec §6-7): one FTS5 table ``(chapter, text)`` holding every
chapter's chunks (so bm25 statistics span all chapters), a query that ORs the quoted keywords of
``fts_keywords.csv`` (or the words of the question), restricted to the question's chapter, top ``k`` by rank.
SQLite ships with Python, so a curator can produce and score a run on any machine.
"""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Benchmark, QuestionId, read_text, strip_outer_quotes
from benchlab.data.fastbook.chapters import Chapter
from benchlab.data.fastbook.runs import Run
from benchlab.data.jsonl import validate

QueryKind = Literal["keywords", "question"]
_WORD = re.compile(r"\w+")


class KeywordRow(BaseModel):
    """One row of ``fts_keywords.csv`` (``question_text`` is informative only; the query uses ``keywords``)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    chapter: int
    question_number: int
    question_text: str = ""
    keywords: str = ""
    line: int = 0

    @property
    def id(self) -> QuestionId:
        return QuestionId(self.chapter, self.question_number)


def read_keywords(path: str | Path, benchmark: Benchmark | None = None) -> dict[QuestionId, KeywordRow]:
    """Read ``fts_keywords.csv`` (chapter, question_number, question_text, keywords); errors name file and line."""
    p = Path(path)
    text = read_text(p)
    known = set(benchmark.ids()) if benchmark is not None else None
    rows: dict[QuestionId, KeywordRow] = {}
    with io.StringIO(text, newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"chapter", "question_number", "keywords"} - set(reader.fieldnames or [])
        if missing:
            raise BenchlabError(f"missing column(s) {', '.join(sorted(missing))}", p, 1)
        for row in reader:
            line = reader.line_num
            record = validate(KeywordRow, {**{k: v for k, v in row.items() if k is not None}, "line": line}, p, line)
            qid = record.id
            if known is not None and qid not in known:
                raise BenchlabError(f"{qid} is not in the benchmark", p, line)
            if qid in rows:
                raise BenchlabError(f"{qid} appears twice", p, line)
            rows[qid] = record
    return rows


def keywords_query(keywords: str) -> str:
    """The reference FTS5 query: every keyword (quotes removed, edge commas stripped) quoted and ORed."""
    words = [w.strip(",") for w in keywords.replace('"', "").split()]
    return " OR ".join(f'"{w}"' for w in words if w)


def question_query(question_text: str) -> str:
    """An FTS5 query from the question alone: each word quoted and ORed (no hand-written keywords needed)."""
    words = _WORD.findall(strip_outer_quotes(question_text.strip()))
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


class FtsIndex:
    """An in-memory FTS5 index of all chunks of the given chapters."""

    def __init__(self, chapters: Mapping[int, Chapter]) -> None:
        try:
            self.conn = sqlite3.connect(":memory:")
            self.conn.execute("CREATE VIRTUAL TABLE fastbook_text USING FTS5(chapter, text)")
        except sqlite3.OperationalError as exc:  # pragma: no cover - FTS5 is in every CPython build we know of
            raise BenchlabError(f"this Python's SQLite has no FTS5 ({exc})") from exc
        rows = [(str(n), chunk.text) for n, chapter in chapters.items() for chunk in chapter.chunks]
        self.conn.executemany("INSERT INTO fastbook_text(chapter, text) VALUES (?, ?)", rows)
        self.conn.commit()

    def search(self, chapter: int, match: str, k: int = 10) -> list[str]:
        if not match:
            return []
        sql = "SELECT text FROM fastbook_text WHERE fastbook_text MATCH ? AND chapter = ? ORDER BY rank LIMIT ?"
        return [row[0] for row in self.conn.execute(sql, (match, str(chapter), k))]

    def close(self) -> None:
        self.conn.close()


def fts_run(
    benchmark: Benchmark,
    chapters: Mapping[int, Chapter],
    *,
    query: QueryKind = "keywords",
    keywords: Mapping[QuestionId, KeywordRow] | None = None,
    k: int = 10,
    name: str | None = None,
    keywords_path: str | Path | None = None,
) -> Run:
    """Retrieve the top ``k`` chunks of its chapter for every question; returns a run in benchmark order."""
    if query == "keywords" and keywords is None:
        raise BenchlabError("the keywords query needs fts_keywords.csv (--keywords FILE) or use --query question")
    index = FtsIndex(chapters)
    run = Run(name or f"fts5-{query}")
    try:
        for q in benchmark:
            if query == "keywords":
                assert keywords is not None
                row = keywords.get(q.id)
                if row is None:
                    raise BenchlabError(f"no keywords for {q.id}", keywords_path)
                match = keywords_query(row.keywords)
            else:
                match = question_query(q.question_text)
            run.results[q.id] = index.search(q.chapter, match, k)
    finally:
        index.close()
    return run
