"""The fastbook-benchmark JSON file, modelled exactly as it is, with a save that keeps curators' diffs small.

The file is hand-edited: flags are the strings ``"true"``/``"false"``, ``answer_component`` is sometimes a list,
questions are identified only by ``(chapter, question_number)`` and matched to retrieval results by position.
The models keep all of that as is (no silent normalisation), and :meth:`Benchmark.dumps` writes every question
that was not edited byte for byte as it was read (trailing spaces, blank lines, the one raw em dash), so an
unedited load/save round trip returns the identical file and an edit shows up in ``git diff`` as that question only.
Edited or new questions are written like the rest of the file: 4-space indent, non-ASCII as ``\\uXXXX``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from benchlab.data import text_io
from benchlab.data.atomic import atomic_write_bytes, atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.jsonl import describe_validation_error
from benchlab.data.key_lines import json_line

Flag = Literal["true", "false"]
"""The benchmark stores booleans as the strings ``"true"`` / ``"false"``; kept so saves keep the schema."""


class QuestionId(NamedTuple):
    """The only stable key of a question: ``(chapter, question_number)``."""

    chapter: int
    question_number: int

    def __str__(self) -> str:
        return f"chapter {self.chapter} question {self.question_number}"


class Component(BaseModel):
    """One piece of the gold answer and the chapter passages (``context``) that support it."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    answer_component: str | list[str]
    scoring_type: str
    context: list[str]
    explicit_context: Flag
    extraneous_answer: Flag

    @property
    def answer_text(self) -> str:
        """The component as one string (six components in the file are lists of strings)."""
        if isinstance(self.answer_component, list):
            return "\n".join(self.answer_component)
        return self.answer_component


class QuestionContext(BaseModel):
    """Context for a part of the question itself (not used by any metric)."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    question_component: str
    context: list[str]


class Question(BaseModel):
    """One questionnaire question with its gold answer split into components."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    chapter: int
    question_number: int
    question_text: str
    gold_standard_answer: str
    answer_context: list[Component]
    question_context: list[QuestionContext]

    @property
    def id(self) -> QuestionId:
        return QuestionId(self.chapter, self.question_number)

    @property
    def display_text(self) -> str:
        """The question without the literal surrounding quotes most entries carry."""
        return strip_outer_quotes(self.question_text)

    def to_json(self) -> dict[str, Any]:
        """The question as plain JSON values, keys in the file's order (extra keys kept after them)."""
        return self.model_dump(mode="json", by_alias=True)


class _Source(NamedTuple):
    """Where a question came from in the loaded file: its raw text and the JSON it parsed to."""

    raw: str
    parsed: dict[str, Any]


class Benchmark(BaseModel):
    """The whole file: ``{"questions": [...]}`` in chapter, question-number order."""

    model_config = ConfigDict(extra="allow")

    questions: list[Question]

    _sources: dict[QuestionId, _Source] = PrivateAttr(default_factory=dict)
    _layout: tuple[str, list[str], str] | None = PrivateAttr(default=None)
    _fingerprint: str | None = PrivateAttr(default=None)
    _bom: bool = PrivateAttr(default=False)
    _newline: str = PrivateAttr(default="\n")

    # -- lookup ---------------------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Question]:  # type: ignore[override]
        return iter(self.questions)

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def chapters(self) -> list[int]:
        """Chapter numbers in file order, each once."""
        return list(dict.fromkeys(q.chapter for q in self.questions))

    def ids(self) -> list[QuestionId]:
        return [q.id for q in self.questions]

    def get(self, chapter: int, question_number: int) -> Question | None:
        for q in self.questions:
            if q.chapter == chapter and q.question_number == question_number:
                return q
        return None

    def question(self, qid: QuestionId | tuple[int, int]) -> Question:
        """The question with this id; ``KeyError`` naming it when there is none."""
        q = self.get(*qid)
        if q is None:
            raise KeyError(f"no {QuestionId(*qid)} in the benchmark")
        return q

    def index_of(self, qid: QuestionId | tuple[int, int]) -> int:
        for i, q in enumerate(self.questions):
            if q.id == tuple(qid):
                return i
        raise KeyError(f"no {QuestionId(*qid)} in the benchmark")

    # -- provenance -----------------------------------------------------------------------------------------
    @property
    def source_fingerprint(self) -> str | None:
        """sha256 of the file as loaded, to detect that someone else changed it on disk before a save."""
        return self._fingerprint

    def is_edited(self, question: Question) -> bool:
        """Whether ``question`` differs from what was loaded (new questions count as edited)."""
        source = self._sources.get(question.id)
        return source is None or source.parsed != question.to_json()

    def edited_ids(self) -> list[QuestionId]:
        return [q.id for q in self.questions if self.is_edited(q)]

    # -- writing --------------------------------------------------------------------------------------------
    def dumps(self) -> str:
        """The file text: unedited questions verbatim from the loaded file, the others formatted like it."""
        nl = self._newline
        head, tail = '{' + nl + '    "questions": [' + nl + "        ", nl + "    ]" + nl + "}" + nl
        seps: list[str] = []
        if self._layout is not None:
            head, seps, tail = self._layout
        if len(seps) != max(len(self.questions) - 1, 0):  # questions added or removed: one separator style
            seps = [seps[0] if seps else "," + nl + "        "] * max(len(self.questions) - 1, 0)
        parts = [head]
        for i, q in enumerate(self.questions):
            if i:
                parts.append(seps[i - 1])
            source = self._sources.get(q.id)
            if source is not None and source.parsed == q.to_json():
                parts.append(source.raw)
            else:
                parts.append(format_question(q).replace("\n", self._newline))
        parts.append(tail)
        return ("\ufeff" if self._bom else "") + "".join(parts)


def strip_outer_quotes(text: str) -> str:
    """Drop one pair of literal ``"`` around a string (how the benchmark stores most questions and answers)."""
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    return text


def format_question(question: Question) -> str:
    """One question formatted as the file's questions are (4-space indent at depth 2, ``\\uXXXX`` escapes)."""
    text = json.dumps(question.to_json(), indent=4, ensure_ascii=True)
    return text.replace("\n", "\n        ")


# -- loading ---------------------------------------------------------------------------------------------------
def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _split_questions(text: str) -> tuple[str, list[tuple[int, str]], list[str], str] | None:
    """Raw text of each question plus the text around them, when the file has the usual single-key layout.

    Returns ``None`` for any other layout (extra top-level keys, ...); the file then still loads, and saves
    fall back to formatting every question.
    """
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if not text.startswith("{", pos):
        return None
    pos = _skip_ws(text, pos + 1)
    if not text.startswith('"questions"', pos):
        return None
    pos = _skip_ws(text, pos + len('"questions"'))
    if not text.startswith(":", pos):
        return None
    pos = _skip_ws(text, pos + 1)
    if not text.startswith("[", pos):
        return None
    pos = _skip_ws(text, pos + 1)
    head = text[:pos]
    items: list[tuple[int, str]] = []
    seps: list[str] = []
    if text.startswith("]", pos):
        return head, items, seps, text[pos:]
    while True:
        _, end = decoder.raw_decode(text, pos)
        items.append((pos, text[pos:end]))
        after = _skip_ws(text, end)
        if text.startswith(",", after):
            nxt = _skip_ws(text, after + 1)
            seps.append(text[end:nxt])
            pos = nxt
            continue
        if text.startswith("]", after):
            tail = text[end:]
            closing = _skip_ws(text, after + 1)
            if not text.startswith("}", closing) or text[closing + 1 :].strip():
                return None
            return head, items, seps, tail
        return None


def loads_benchmark(text: str, path: str | Path = "<benchmark>") -> Benchmark:
    """Parse and validate the benchmark text; errors name the file, the line and the question."""
    original = text
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchlabError(f"not valid JSON ({exc.msg}, column {exc.colno})", path, exc.lineno) from exc
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise BenchlabError('expected a JSON object with a "questions" list (the fastbook-benchmark format)', path, 1)
    layout = _split_questions(text)
    starts = [start for start, _ in layout[1]] if layout is not None else []
    questions: list[Question] = []
    sources: dict[QuestionId, _Source] = {}
    for i, obj in enumerate(data["questions"]):

        def line_here(i: int = i) -> int | None:  # only computed on error: it scans the file
            return _line_of(text, starts[i]) if i < len(starts) else None

        if not isinstance(obj, dict):
            raise BenchlabError(f"question #{i + 1}: expected an object, found {type(obj).__name__}", path,
                                line_here())
        try:
            q = Question.model_validate(obj)
        except ValidationError as exc:
            who = _describe_partial(obj, i)
            field_line = json_line(text, ("questions", i, *exc.errors()[0]["loc"]))
            raise BenchlabError(f"{who}: {describe_validation_error(exc)}", path, field_line or line_here()) from exc
        if q.id in sources:
            raise BenchlabError(f"{q.id} appears twice (questions are identified by chapter and number)", path,
                                line_here())
        questions.append(q)
        raw = layout[1][i][1] if layout is not None else ""
        sources[q.id] = _Source(raw, obj)
    extra = {k: v for k, v in data.items() if k != "questions"}
    bench = Benchmark.model_validate({"questions": [], **extra})
    bench.questions = questions
    bench._sources = sources if layout is not None else {}
    bench._layout = (layout[0], layout[2], layout[3]) if layout is not None else None
    bench._fingerprint = hashlib.sha256(original.encode("utf-8")).hexdigest()
    bench._bom = bom
    bench._newline = "\r\n" if "\r\n" in text else "\n"
    return bench


def _describe_partial(obj: dict[str, Any], index: int) -> str:
    chapter, number = obj.get("chapter"), obj.get("question_number")
    if isinstance(chapter, int) and isinstance(number, int):
        return str(QuestionId(chapter, number))
    return f"question #{index + 1} in the file"


def read_text(path: str | Path, *, keep_newlines: bool = False) -> str:
    """Read a UTF-8 text file with one clear error for every way that can fail (bad bytes: file and line).

    ``keep_newlines`` leaves ``\r\n`` as it is (the benchmark file is read that way so a save of a Windows
    checkout changes nothing).
    """
    return text_io.read_text(path, keep_newlines=keep_newlines, strip_bom=False)


def load_benchmark(path: str | Path) -> Benchmark:
    """Load ``fastbook-benchmark.json`` (or a curated copy)."""
    return loads_benchmark(read_text(path, keep_newlines=True), path)


def require_questions(benchmark: Benchmark, path: str | Path) -> Benchmark:
    """Refuse a benchmark with no questions: every score, audit and the editor would be empty or meaningless."""
    if not benchmark.questions:
        raise BenchlabError("the benchmark has no questions", path)
    return benchmark


def file_fingerprint(path: str | Path) -> str | None:
    """sha256 of the file now on disk (``None`` if it is gone), to compare with :attr:`source_fingerprint`."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def save_benchmark(benchmark: Benchmark, path: str | Path, *, backup: bool = True) -> Path | None:
    """Write the benchmark atomically; keep the previous file as ``<name>.bak`` first. Returns the backup path.

    The caller decides about files changed on disk since loading (compare :func:`file_fingerprint` with
    ``benchmark.source_fingerprint``); this function only guarantees old-or-new, never half a file.
    """
    target = Path(path)
    text = benchmark.dumps()
    # Validate what we are about to write, so a bad in-memory edit can never replace a good file.
    loads_benchmark(text, target)
    backup_path: Path | None = None
    if backup and target.exists():
        backup_path = target.with_name(target.name + ".bak")
        try:
            previous = target.read_bytes()
        except OSError as exc:
            msg = f"cannot read the previous version to back it up ({exc.strerror or exc})"
            raise BenchlabError(msg, target) from exc
        atomic_write_bytes(backup_path, previous)
    atomic_write_text(target, text)
    new = loads_benchmark(text, target)
    benchmark._sources = new._sources
    benchmark._layout = new._layout
    benchmark._fingerprint = new._fingerprint
    benchmark._bom = new._bom
    benchmark._newline = new._newline
    return backup_path
