"""Chapter texts and the benchmark's passages (chunks), as character spans of the chapter text.

The benchmark's contexts are only scorable against the exact chunks its authors made (spec §4): the notebook
flattened to text, cut in two halves of ``int(len/2)`` characters, each half split by llama-index's
``SentenceSplitter(chunk_size=500, chunk_overlap=64)`` with the cl100k tokenizer. Every chunk is a verbatim
substring of the chapter, so a chunk is stored as ``(start, end)``: the editor can draw boundaries on the text.

Chunking needs ``llama-index-core`` (the ``fastbook`` extra). To stay fast and work without it, the spans of
texts chunked before are kept in ``chunk_spans.json`` keyed by the text's sha256 (spans only, no book text):
a known chapter is never re-chunked, an unknown or edited one needs the extra or gets a clear message.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from benchlab.data.errors import BenchlabError
from benchlab.data.text_io import read_text

CHUNK_SIZE = 500
CHUNK_OVERLAP = 64
SPANS_FILE = Path(__file__).resolve().parent / "chunk_spans.json"
EXTRA_HINT = "pip install 'benchlab[fastbook]'"
NOTEBOOK_NAMES = {
    1: "01_intro.ipynb",
    2: "02_production.ipynb",
    4: "04_mnist_basics.ipynb",
    8: "08_collab.ipynb",
    9: "09_tabular.ipynb",
    10: "10_nlp.ipynb",
    13: "13_convolutions.ipynb",
}


@dataclass(frozen=True)
class Chunk:
    """One retrieval passage: ``text == chapter.text[start:end]``."""

    chapter: int
    index: int
    start: int
    end: int
    text: str


@dataclass
class Chapter:
    """A chapter's text, where it came from, and its chunks (computed on first use)."""

    number: int
    text: str
    path: Path | None = None
    _chunks: list[Chunk] | None = field(default=None, repr=False)

    @property
    def halving_cut(self) -> int:
        """Character offset of the cut between the two halves (no chunk crosses it)."""
        return len(self.text) // 2

    @property
    def chunks(self) -> list[Chunk]:
        if self._chunks is None:
            spans = chunk_spans(self.text, where=self.path or f"chapter {self.number}")
            self._chunks = [Chunk(self.number, i, s, e, self.text[s:e]) for i, (s, e) in enumerate(spans)]
        return self._chunks

    @property
    def sha256(self) -> str:
        return text_sha256(self.text)

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset (for messages and the editor)."""
        return self.text.count("\n", 0, offset) + 1


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- notebook -> text ---------------------------------------------------------------------------------------------
def notebook_to_text(path: str | Path) -> str:
    """The spec's rule (§4.1), i.e. exactly how ``chapter_N.txt`` was made from a fastbook notebook.

    Stop at the first markdown cell with a ``## Questionnaire`` line; markdown and code cell sources are joined
    and each followed by one newline; raw cells and all outputs are left out.
    """
    p = Path(path)
    if not p.exists():
        raise BenchlabError("no such notebook", p)
    try:
        nb = json.loads(read_text(p, "a notebook", keep_newlines=False))
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"not a valid notebook (JSON: {exc.msg})", p, exc.lineno) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchlabError(f"cannot read this notebook ({exc})", p) from exc
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise BenchlabError("not a Jupyter notebook (no 'cells' list)", p)
    parts: list[str] = []
    for cell in cells:
        kind = cell.get("cell_type")
        source = cell.get("source", [])
        lines = source if isinstance(source, list) else [source]
        if kind == "markdown" and any("## Questionnaire" in line for line in lines):
            break
        if kind in ("markdown", "code"):
            parts.append("".join(lines) + "\n")
    return "".join(parts)


# -- chunking -------------------------------------------------------------------------------------------------
def halves(text: str) -> list[tuple[int, str]]:
    """``(offset, piece)`` of the reference halving: ``int(len/2)``-char pieces (odd lengths add a 1-char third)."""
    size = int(len(text) / 2)
    if size == 0:
        return [(0, text)] if text else []
    return [(i, text[i : i + size]) for i in range(0, len(text), size)]


class SpansTable(BaseModel):
    """``chunk_spans.json``: chunk ``(start, end)`` spans keyed by the sha256 of the chapter text."""

    about: str = ""
    spans: dict[str, list[tuple[int, int]]]


@cache
def _bundled_spans() -> dict[str, list[tuple[int, int]]]:
    """The bundled table; if it is missing or damaged, chapters are chunked instead (never wrong spans)."""
    try:
        return SpansTable.model_validate_json(SPANS_FILE.read_bytes()).spans
    except (OSError, ValidationError):
        return {}


@cache
def _splitter() -> Any:
    try:
        # deferred: llama-index is the optional [fastbook] extra (slow to import), loaded only when chapters are chunked
        from llama_index.core.node_parser import SentenceSplitter
    except ImportError as exc:
        raise ImportError(str(exc)) from exc
    return SentenceSplitter(chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP)


def chunking_available() -> bool:
    """Whether texts never seen before can be chunked here (``llama-index-core`` installed)."""
    try:
        _splitter()
    except ImportError:
        return False
    return True


def compute_chunk_spans(text: str, where: str | Path = "chapter text") -> list[tuple[int, int]]:
    """Run the benchmark's chunker on ``text`` and return each chunk's ``(start, end)`` in ``text``."""
    try:
        splitter = _splitter()
    except ImportError as exc:
        raise BenchlabError(
            f"this chapter text is not one benchlab has chunked before, and chunking it the benchmark's way needs "
            f"llama-index-core ({EXTRA_HINT})",
            where,
        ) from exc
    spans: list[tuple[int, int]] = []
    for offset, piece in halves(text):
        search_from = 0
        for chunk in splitter.split_text(piece):
            if not chunk:
                continue
            pos = piece.find(chunk, search_from)
            if pos < 0:  # pragma: no cover - the splitter only strips edge whitespace
                raise BenchlabError("the chunker returned a passage that is not in the text", where)
            spans.append((offset + pos, offset + pos + len(chunk)))
            search_from = pos + 1
    return spans


def chunk_spans(text: str, where: str | Path = "chapter text", *, recompute: bool = False) -> list[tuple[int, int]]:
    """Chunk spans for ``text``: from the bundled table when the text is known, else computed."""
    if not recompute:
        known = _bundled_spans().get(text_sha256(text))
        if known is not None:
            return list(known)
    return compute_chunk_spans(text, where)


# -- finding and loading chapters ---------------------------------------------------------------------------------


def chapter_candidates(folder: Path, number: int) -> list[Path]:
    """Where chapter ``number`` may be, best first: ``chapter_N.txt`` then the notebook."""
    nb = NOTEBOOK_NAMES.get(number, f"{number:02d}_*.ipynb")
    places = [folder, folder / "chapters", folder / "data", folder / "notebooks"]
    out: list[Path] = [p / f"chapter_{number}.txt" for p in places]
    for p in places:
        out.extend(sorted(p.glob(nb)) if "*" in nb else [p / nb])
    return out


def load_chapter(folder: str | Path, number: int) -> Chapter:
    """Chapter ``number`` from ``folder`` (``chapter_N.txt``, or built from the notebook with the spec's rule)."""
    base = Path(folder)
    for candidate in chapter_candidates(base, number):
        if candidate.is_file():
            if candidate.suffix == ".ipynb":
                return Chapter(number, notebook_to_text(candidate), candidate)
            text = read_text(candidate, "a chapter text", keep_newlines=False, strip_bom=False)
            return Chapter(number, text, candidate)
    raise BenchlabError(
        f"chapter {number} not found: expected chapter_{number}.txt or {NOTEBOOK_NAMES.get(number, 'its notebook')} "
        "here or in its chapters/, data/ or notebooks/ folder (give --chapters DIR: the folder holding them)",
        base,
    )


def load_chapters(folder: str | Path, numbers: Iterable[int]) -> dict[int, Chapter]:
    """Load every chapter a benchmark uses (``benchmark.chapters``), with one message for the first missing one."""
    return {n: load_chapter(folder, n) for n in numbers}
