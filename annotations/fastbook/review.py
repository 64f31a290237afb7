"""Reviewing two curators' versions of the fastbook benchmark and merging them.

Every answer component on which the two files disagree (contexts, flags, answer text, or a component only one of
them has) is a :class:`Disagreement`; the reviewer takes A's version, B's, or writes their own. The merged file
starts as A's and takes each decision in; it is saved beside A (never over A or B) with its own change log: one
line per decided component, naming the reviewer, the choice and both versions.

Both files must be versions of the same benchmark (the same questions with the same question and gold answer), and
neither may change while the review is open: saving checks their sha256 against what was loaded, and refuses
otherwise with nothing written.
"""

from __future__ import annotations

import copy
import hashlib
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from benchlab.annotations.fastbook.change_log import ChangeLog, ChangeRecord, log_path_for, utc_now
from benchlab.data.errors import BenchlabError
from benchlab.data.fastbook.benchmark import Benchmark, Component, QuestionId, load_benchmark, save_benchmark
from benchlab.data.fastbook.component_match import align
from benchlab.data.key_lines import json_line
from benchlab.data.output_paths import check_output_path

Choice = Literal["A", "B", "edited"]


@dataclass(frozen=True)
class Disagreement:
    """One answer component on which A and B differ; ``None`` where a file lacks it. The component is known by its
    identity (:mod:`benchlab.data.fastbook.component_match`): ``index`` is its position in A (in B when only B has
    it), ``b_index`` its position in B."""

    qid: QuestionId
    index: int
    a: Component | None
    b: Component | None
    b_index: int | None = None

    @property
    def what(self) -> str:
        if self.a is None or self.b is None:
            return "only in " + ("B" if self.a is None else "A")
        parts = []
        if self.a.answer_component != self.b.answer_component:
            parts.append("answer text")
        if self.a.context != self.b.context:
            parts.append("order" if sorted(self.a.context) == sorted(self.b.context) else "contexts")
        if self.a.explicit_context != self.b.explicit_context:
            parts.append("explicit")
        if self.a.extraneous_answer != self.b.extraneous_answer:
            parts.append("extraneous")
        return ", ".join(parts)


def _sha(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise BenchlabError(f"cannot read the file ({exc.strerror or exc})", path) from exc


def _same_benchmark(a: Benchmark, b: Benchmark, path_a: Path, path_b: Path) -> None:
    """Two curators' copies of one benchmark: same questions, same question and gold answer texts."""
    ids_a = [q.id for q in a.questions]
    ids_b = [q.id for q in b.questions]
    if set(ids_a) != set(ids_b):
        only = sorted(set(ids_a) ^ set(ids_b))[:3]
        where = ", ".join(f"chapter {c} question {n}" for c, n in only)
        first = only[0]
        at = _question_line(path_b, ids_b.index(first)) if first in ids_b else _question_line(path_a, ids_a.index(
            first))
        raise BenchlabError(f"not a version of the same benchmark as {path_a.name}: the questions differ ({where} "
                            "is in one file only)", path_b if first in ids_b else path_a, at)
    by_id = {q.id: q for q in b.questions}
    for qa in a.questions:
        qb = by_id[qa.id]
        if qa.question_text != qb.question_text or qa.gold_standard_answer != qb.gold_standard_answer:
            raise BenchlabError(f"not a version of the same benchmark as {path_a.name}: chapter {qa.chapter} "
                                f"question {qa.question_number} has another question or gold answer", path_b,
                                _question_line(path_b, ids_b.index(qb.id)))


def _question_line(path: Path, index: int) -> int | None:
    """The line where question ``index`` starts in ``path`` (for an error only: the file is read again)."""
    try:
        return json_line(path.read_text(encoding="utf-8-sig"), ("questions", index))
    except (OSError, UnicodeDecodeError):
        return None


def disagreements(a: Benchmark, b: Benchmark) -> list[Disagreement]:
    """Every component on which the two versions differ (matched by identity, not position), in file order."""
    by_id = {q.id: q for q in b.questions}
    out: list[Disagreement] = []
    for qa in a.questions:
        qb = by_id[qa.id]
        for ia, ib in align(qa.answer_context, qb.answer_context):
            ca = qa.answer_context[ia] if ia is not None else None
            cb = qb.answer_context[ib] if ib is not None else None
            if ca is None or cb is None or ca.model_dump() != cb.model_dump():
                out.append(Disagreement(qa.id, ia if ia is not None else (ib or 0), ca, cb, ib))
    return out


@dataclass
class Review:
    """A review in progress: the two versions, the disagreements, the decisions so far."""

    path_a: Path
    path_b: Path
    a: Benchmark
    b: Benchmark
    items: list[Disagreement]
    reviewer: str
    sha_a: str
    sha_b: str
    decisions: dict[int, tuple[Choice, Component | None]] = field(default_factory=dict)
    session: str = field(default_factory=lambda: secrets.token_hex(4))

    @classmethod
    def open(cls, path_a: str | Path, path_b: str | Path, reviewer: str, output: Path | None = None) -> Review:
        """Load both copies; the merged file's path is checked now, before any decision is made (a review whose
        save would be refused must not let the reviewer work first)."""
        pa, pb = Path(path_a), Path(path_b)
        if pa.resolve() == pb.resolve():
            raise BenchlabError("A and B are the same file: review two curators' copies", pb)
        check_merged_path(output if output is not None else default_output(pa), pa, pb)
        a, b = load_benchmark(pa), load_benchmark(pb)
        _same_benchmark(a, b, pa, pb)
        return cls(pa, pb, a, b, disagreements(a, b), reviewer, _sha(pa), _sha(pb))

    def default_output(self) -> Path:
        return default_output(self.path_a)

    def decide(self, number: int, choice: Choice, edited: Component | None = None) -> None:
        """Decide disagreement ``number``: ``A``, ``B``, or ``edited`` with the reviewer's own component."""
        item = self.items[number]
        if choice == "edited":
            if edited is None:
                raise ValueError("an edited decision needs the component")
            self.decisions[number] = (choice, edited)
        else:
            self.decisions[number] = (choice, item.a if choice == "A" else item.b)

    def undecide(self, number: int) -> None:
        self.decisions.pop(number, None)

    @property
    def pending(self) -> list[int]:
        return [i for i in range(len(self.items)) if i not in self.decisions]

    def merged(self) -> Benchmark:
        """A's file with every decision taken in (undecided components stay as in A).

        Built from the alignment of each question's components (the same identity the disagreements use), so a
        component B inserted lands where B has it and every decision replaces exactly the component it was made
        on, whatever the order of the decisions."""
        merged = copy.deepcopy(self.a)
        by_id = {q.id: q for q in self.b.questions}
        for question in merged.questions:
            decided = {(item.index if item.a is not None else -1, -1 if item.b_index is None else item.b_index):
                       self.decisions[n][1]
                       for n, item in enumerate(self.items) if item.qid == question.id and n in self.decisions}
            components: list[Component] = []
            for ia, ib in align(question.answer_context, by_id[question.id].answer_context):
                key = (-1 if ia is None else ia, -1 if ib is None else ib)
                if key in decided:
                    chosen = decided[key]
                else:
                    chosen = question.answer_context[ia] if ia is not None else None
                if chosen is not None:
                    components.append(copy.deepcopy(chosen))
            question.answer_context = components
        return merged

    def save(self, target: Path | None = None) -> Path:
        """Write the merged file (atomically) and its change log; refuses if A or B changed since loading."""
        out = target or self.default_output()
        check_merged_path(out, self.path_a, self.path_b)
        for path, sha in ((self.path_a, self.sha_a), (self.path_b, self.sha_b)):
            if _sha(path) != sha:
                raise BenchlabError("changed on disk since the review began; nothing was written (start the review "
                                    "again to see its current version)", path)
        save_benchmark(self.merged(), out, backup=out.exists())
        log = ChangeLog(log_path_for(out))
        for n, (choice, component) in sorted(self.decisions.items()):
            item = self.items[n]
            log.append(ChangeRecord(
                time=utc_now(), curator=self.reviewer, session=self.session, action=f"review_take_{choice.lower()}",
                file=out.name, chapter=item.qid[0], question_number=item.qid[1], component=item.index,
                field=f"answer_context[{item.index}]", before=_record(item.a),
                after=_record(component)))
        log.append(ChangeRecord(time=utc_now(), curator=self.reviewer, session=self.session, action="save",
                                file=out.name, sha256=_sha(out)))
        return out


def default_output(path_a: Path) -> Path:
    """Where the merged file goes by default: beside A, with ``.merged`` before the extension."""
    return path_a.with_name(f"{path_a.stem}.merged{path_a.suffix}")


def check_merged_path(out: Path, path_a: Path, path_b: Path) -> None:
    """The merged file never lands on a curator's copy (nor in a session's folders): the shared output check."""
    for path in (path_a, path_b):
        if out.resolve() == path.resolve():
            raise BenchlabError("the merged file must not overwrite a curator's file: choose another name", out)
    check_output_path(out, [path_a, path_b], what="the merged file")


def _record(component: Component | None) -> Any:
    return None if component is None else component.model_dump(mode="json")
