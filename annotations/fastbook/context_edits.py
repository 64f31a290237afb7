"""Reversible edits of fastbook-benchmark context annotations, and the undo/redo history.

Every change a curator makes is one small value object that knows how to apply and revert itself and how to
describe itself for the change log, so undo/redo, the log and the diff never disagree about what happened.
Edits address a question by ``(chapter, question_number)`` and a component by position: the benchmark file
has no other ids (spec section 2). ``apply`` checks that the question still holds what the edit expects, so
an undo can never silently clobber a different value.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from benchlab.data.fastbook.benchmark import Component, Question, QuestionContext

QuestionId = tuple[int, int]
FlagName = Literal["explicit_context", "extraneous_answer"]


class EditMismatch(ValueError):
    """The question does not hold what the edit expects (a bug or a stale edit); nothing was changed."""


@dataclass(frozen=True)
class Slot:
    """A list of context strings: an answer component's ``context`` or a ``question_context`` entry's."""

    kind: Literal["answer", "question"]
    index: int

    @property
    def field(self) -> str:
        return f"answer_context[{self.index}].context" if self.kind == "answer" else (
            f"question_context[{self.index}].context"
        )

    @property
    def label(self) -> str:
        return f"component {self.index}" if self.kind == "answer" else f"question_context {self.index}"

    def contexts(self, question: Question) -> list[str]:
        container = question.answer_context if self.kind == "answer" else question.question_context
        if not 0 <= self.index < len(container):
            raise EditMismatch(f"{self.label} does not exist")
        contexts: list[str] = container[self.index].context
        return contexts


def _short(text: str, width: int = 48) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@dataclass(frozen=True)
class Edit(ABC):
    """One reversible change to one question."""

    qid: QuestionId

    action: str = field(init=False, default="edit")

    @abstractmethod
    def apply(self, question: Question) -> None: ...

    @abstractmethod
    def revert(self, question: Question) -> None: ...

    @abstractmethod
    def describe(self) -> str:
        """One line for the status bar and the undo message."""

    @abstractmethod
    def change(self) -> dict[str, Any]:
        """``component``, ``field``, ``before`` and ``after`` for the change log."""

    @property
    def component(self) -> int | None:
        """The answer component index this edit touches (None for question_context edits)."""
        return None

    def where(self) -> str:
        return f"ch{self.qid[0]} q{self.qid[1]}"


@dataclass(frozen=True)
class AddContext(Edit):
    """Insert ``text`` at ``position`` of a slot's contexts (position = len appends)."""

    slot: Slot
    position: int
    text: str
    action: str = field(init=False, default="add_context")

    def apply(self, question: Question) -> None:
        contexts = self.slot.contexts(question)
        if not 0 <= self.position <= len(contexts):
            raise EditMismatch(f"cannot insert context {self.position} into {self.slot.label}")
        contexts.insert(self.position, self.text)

    def revert(self, question: Question) -> None:
        contexts = self.slot.contexts(question)
        if self.position >= len(contexts) or contexts[self.position] != self.text:
            raise EditMismatch(f"context {self.position} of {self.slot.label} is not the one added")
        del contexts[self.position]

    def describe(self) -> str:
        return f"added context to {self.slot.label} of {self.where()}: “{_short(self.text)}”"

    def change(self) -> dict[str, Any]:
        return {"component": self.component, "field": f"{self.slot.field}[{self.position}]",
                "before": None, "after": self.text}

    @property
    def component(self) -> int | None:
        return self.slot.index if self.slot.kind == "answer" else None


@dataclass(frozen=True)
class ReplaceContext(Edit):
    slot: Slot
    position: int
    before: str
    after: str
    action: str = field(init=False, default="replace_context")

    def _swap(self, question: Question, old: str, new: str) -> None:
        contexts = self.slot.contexts(question)
        if self.position >= len(contexts) or contexts[self.position] != old:
            raise EditMismatch(f"context {self.position} of {self.slot.label} changed underneath the edit")
        contexts[self.position] = new

    def apply(self, question: Question) -> None:
        self._swap(question, self.before, self.after)

    def revert(self, question: Question) -> None:
        self._swap(question, self.after, self.before)

    def describe(self) -> str:
        return f"replaced context {self.position} of {self.slot.label} of {self.where()}: “{_short(self.after)}”"

    def change(self) -> dict[str, Any]:
        return {"component": self.component, "field": f"{self.slot.field}[{self.position}]",
                "before": self.before, "after": self.after}

    @property
    def component(self) -> int | None:
        return self.slot.index if self.slot.kind == "answer" else None


@dataclass(frozen=True)
class DeleteContext(Edit):
    slot: Slot
    position: int
    text: str
    action: str = field(init=False, default="delete_context")

    def apply(self, question: Question) -> None:
        AddContext(self.qid, self.slot, self.position, self.text).revert(question)

    def revert(self, question: Question) -> None:
        AddContext(self.qid, self.slot, self.position, self.text).apply(question)

    def describe(self) -> str:
        return f"deleted context {self.position} of {self.slot.label} of {self.where()}: “{_short(self.text)}”"

    def change(self) -> dict[str, Any]:
        return {"component": self.component, "field": f"{self.slot.field}[{self.position}]",
                "before": self.text, "after": None}

    @property
    def component(self) -> int | None:
        return self.slot.index if self.slot.kind == "answer" else None


@dataclass(frozen=True)
class SetFlag(Edit):
    """Set ``explicit_context`` or ``extraneous_answer`` of a component (values as stored: "true"/"false")."""

    index: int
    flag: FlagName
    before: str
    after: str
    action: str = field(init=False, default="set_flag")

    def _set(self, question: Question, old: str, new: str) -> None:
        if not 0 <= self.index < len(question.answer_context):
            raise EditMismatch(f"component {self.index} does not exist")
        component = question.answer_context[self.index]
        if getattr(component, self.flag) != old:
            raise EditMismatch(f"{self.flag} of component {self.index} changed underneath the edit")
        setattr(component, self.flag, new)

    def apply(self, question: Question) -> None:
        self._set(question, self.before, self.after)

    def revert(self, question: Question) -> None:
        self._set(question, self.after, self.before)

    def describe(self) -> str:
        return f"set {self.flag} of component {self.index} of {self.where()} to {self.after}"

    def change(self) -> dict[str, Any]:
        return {"component": self.index, "field": f"answer_context[{self.index}].{self.flag}",
                "before": self.before, "after": self.after}

    @property
    def component(self) -> int | None:
        return self.index


def toggled(value: str) -> str:
    """The opposite flag value in the file's own representation (the strings "true"/"false")."""
    return "false" if value == "true" else "true"


@dataclass(frozen=True)
class AddQuestionContext(Edit):
    """Insert a ``question_context`` entry ``{question_component, context}``."""

    position: int
    question_component: str
    contexts: tuple[str, ...]
    action: str = field(init=False, default="add_question_context")

    def apply(self, question: Question) -> None:
        if not 0 <= self.position <= len(question.question_context):
            raise EditMismatch(f"cannot insert question_context {self.position}")
        entry = QuestionContext(question_component=self.question_component, context=list(self.contexts))
        question.question_context.insert(self.position, entry)

    def revert(self, question: Question) -> None:
        entries = question.question_context
        if self.position >= len(entries) or entries[self.position].question_component != self.question_component:
            raise EditMismatch(f"question_context {self.position} is not the one added")
        del entries[self.position]

    def describe(self) -> str:
        return f"added question_context to {self.where()}: “{_short(self.question_component)}”"

    def change(self) -> dict[str, Any]:
        return {"component": None, "field": f"question_context[{self.position}]", "before": None,
                "after": {"question_component": self.question_component, "context": list(self.contexts)}}


@dataclass(frozen=True)
class DeleteQuestionContext(Edit):
    """Remove a whole ``question_context`` entry; the removed object is kept for undo."""

    position: int
    entry: QuestionContext = field(compare=False)
    action: str = field(init=False, default="delete_question_context")

    def apply(self, question: Question) -> None:
        entries = question.question_context
        if self.position >= len(entries) or entries[self.position] is not self.entry:
            raise EditMismatch(f"question_context {self.position} changed underneath the edit")
        del entries[self.position]

    def revert(self, question: Question) -> None:
        question.question_context.insert(self.position, self.entry)

    def describe(self) -> str:
        return f"deleted question_context {self.position} of {self.where()}"

    def change(self) -> dict[str, Any]:
        before = {"question_component": self.entry.question_component, "context": list(self.entry.context)}
        return {"component": None, "field": f"question_context[{self.position}]", "before": before, "after": None}


@dataclass(frozen=True)
class SetQuestionComponent(Edit):
    """Change the ``question_component`` text of a ``question_context`` entry."""

    position: int
    before: str
    after: str
    action: str = field(init=False, default="set_question_component")

    def _set(self, question: Question, old: str, new: str) -> None:
        entries = question.question_context
        if self.position >= len(entries) or entries[self.position].question_component != old:
            raise EditMismatch(f"question_context {self.position} changed underneath the edit")
        entries[self.position].question_component = new

    def apply(self, question: Question) -> None:
        self._set(question, self.before, self.after)

    def revert(self, question: Question) -> None:
        self._set(question, self.after, self.before)

    def describe(self) -> str:
        return f"renamed question_context {self.position} of {self.where()}: “{_short(self.after)}”"

    def change(self) -> dict[str, Any]:
        return {"component": None, "field": f"question_context[{self.position}].question_component",
                "before": self.before, "after": self.after}


ComponentText = str | list[str]


@dataclass(frozen=True)
class SetComponentText(Edit):
    """Change an answer component's ``answer_component`` (the gold answer's piece it stands for)."""

    index: int
    before: ComponentText
    after: ComponentText
    action: str = field(init=False, default="set_component_text")

    def _set(self, question: Question, old: ComponentText, new: ComponentText) -> None:
        components = question.answer_context
        if self.index >= len(components) or components[self.index].answer_component != old:
            raise EditMismatch(f"component {self.index} changed underneath the edit")
        components[self.index].answer_component = new

    def apply(self, question: Question) -> None:
        self._set(question, self.before, self.after)

    def revert(self, question: Question) -> None:
        self._set(question, self.after, self.before)

    def describe(self) -> str:
        text = self.after if isinstance(self.after, str) else " / ".join(self.after)
        return f"rewrote component {self.index} of {self.where()}: “{_short(text)}”"

    def change(self) -> dict[str, Any]:
        return {"component": self.index, "field": f"answer_context[{self.index}].answer_component",
                "before": self.before, "after": self.after}

    @property
    def component(self) -> int | None:
        return self.index


def new_component(text: ComponentText) -> Component:
    """A component a curator adds: no context yet (so it is marked implicit, as the spec says of empty ones)."""
    return Component(answer_component=text, scoring_type="simple", context=[], explicit_context="false",
                     extraneous_answer="false")


def _component_record(component: Component) -> dict[str, Any]:
    return component.model_dump(mode="json")


@dataclass(frozen=True)
class AddComponent(Edit):
    """Insert an answer component at ``index`` (index = len appends)."""

    index: int
    record: dict[str, Any] = field(compare=False)
    action: str = field(init=False, default="add_component")

    def apply(self, question: Question) -> None:
        if not 0 <= self.index <= len(question.answer_context):
            raise EditMismatch(f"cannot insert component {self.index}")
        question.answer_context.insert(self.index, Component.model_validate(self.record))

    def revert(self, question: Question) -> None:
        components = question.answer_context
        if self.index >= len(components) or _component_record(components[self.index]) != self.record:
            raise EditMismatch(f"component {self.index} is not the one added")
        del components[self.index]

    def describe(self) -> str:
        text = self.record.get("answer_component", "")
        return f"added component {self.index} to {self.where()}: “{_short(str(text))}”"

    def change(self) -> dict[str, Any]:
        return {"component": self.index, "field": f"answer_context[{self.index}]", "before": None,
                "after": self.record}

    @property
    def component(self) -> int | None:
        return self.index


@dataclass(frozen=True)
class DeleteComponent(Edit):
    """Remove an answer component (with its contexts); the removed one is kept for undo and the log."""

    index: int
    record: dict[str, Any] = field(compare=False)
    action: str = field(init=False, default="delete_component")

    def apply(self, question: Question) -> None:
        components = question.answer_context
        if self.index >= len(components) or _component_record(components[self.index]) != self.record:
            raise EditMismatch(f"component {self.index} changed underneath the edit")
        if len(components) == 1:
            raise EditMismatch("a question keeps at least one answer component")
        del components[self.index]

    def revert(self, question: Question) -> None:
        question.answer_context.insert(self.index, Component.model_validate(self.record))

    def describe(self) -> str:
        return f"deleted component {self.index} of {self.where()}"

    def change(self) -> dict[str, Any]:
        return {"component": self.index, "field": f"answer_context[{self.index}]", "before": self.record,
                "after": None}

    @property
    def component(self) -> int | None:
        return self.index


def delete_component(qid: QuestionId, question: Question, index: int) -> DeleteComponent:
    return DeleteComponent(qid, index, _component_record(question.answer_context[index]))


def add_component(qid: QuestionId, index: int, text: ComponentText) -> AddComponent:
    return AddComponent(qid, index, _component_record(new_component(text)))


_FIELD = re.compile(
    r"^(?:answer_context\[(?P<comp>\d+)\](?:\.(?:(?P<flag>explicit_context|extraneous_answer)|(?P<text>answer_component)"
    r"|context\[(?P<pos>\d+)\]))?"
    r"|question_context\[(?P<qc>\d+)\](?:\.(?:(?P<qcname>question_component)|context\[(?P<qcpos>\d+)\]))?)$"
)


def edit_from_change(qid: QuestionId, field_path: str, before: Any, after: Any, question: Question) -> Edit:
    """The edit that turns ``before`` into ``after`` at ``field_path`` (a change-log line), to replay a log.

    Raises ``EditMismatch`` for a path or value shape no editor action produces.
    """
    m = _FIELD.match(field_path)
    if m is None:
        raise EditMismatch(f"cannot replay a change of {field_path!r}")
    if m["text"]:
        return SetComponentText(qid, int(m["comp"]), before, after)
    if m["comp"] is not None and m["pos"] is None and not m["flag"]:
        index = int(m["comp"])
        if before is None and isinstance(after, dict):
            return AddComponent(qid, index, after)
        if after is None and isinstance(before, dict):
            return DeleteComponent(qid, index, before)
        raise EditMismatch(f"cannot replay the change of {field_path!r} from {before!r} to {after!r}")
    if m["flag"]:
        return SetFlag(qid, int(m["comp"]), m["flag"], str(before), str(after))  # type: ignore[arg-type]
    if m["qcname"]:
        return SetQuestionComponent(qid, int(m["qc"]), str(before), str(after))
    if m["pos"] is not None or m["qcpos"] is not None:
        slot = Slot("answer", int(m["comp"])) if m["pos"] is not None else Slot("question", int(m["qc"]))
        position = int(m["pos"] if m["pos"] is not None else m["qcpos"])
        if before is None and isinstance(after, str):
            return AddContext(qid, slot, position, after)
        if after is None and isinstance(before, str):
            return DeleteContext(qid, slot, position, before)
        if isinstance(before, str) and isinstance(after, str):
            return ReplaceContext(qid, slot, position, before, after)
    elif m["qc"] is not None:
        position = int(m["qc"])
        if before is None and isinstance(after, dict):
            return AddQuestionContext(qid, position, str(after["question_component"]), tuple(after["context"]))
        if after is None and isinstance(before, dict) and position < len(question.question_context):
            return DeleteQuestionContext(qid, position, question.question_context[position])
    raise EditMismatch(f"cannot replay the change of {field_path!r} from {before!r} to {after!r}")


def reverse_change(change: dict[str, Any]) -> dict[str, Any]:
    """The change-log entry of an undo: same place, before and after swapped."""
    return {**change, "before": change["after"], "after": change["before"]}


class EditHistory:
    """Undo and redo stacks over a document, plus where the last save happened.

    ``lookup`` returns the live question object for an id. ``dirty`` compares the top of the undo stack
    with the one at the last save, so undoing back to the saved state shows "no unsaved changes" again.
    """

    def __init__(self, lookup: Callable[[QuestionId], Question]) -> None:
        self._lookup = lookup
        self._undo: list[Edit] = []
        self._redo: list[Edit] = []
        self._saved_top: Edit | None = None
        self._saved_anchor = 0  # len(undo) at save; with the identity check it survives undo then new edit

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def undo_stack(self) -> tuple[Edit, ...]:
        return tuple(self._undo)

    @property
    def dirty(self) -> bool:
        top = self._undo[-1] if self._undo else None
        return top is not self._saved_top or len(self._undo) != self._saved_anchor

    def mark_saved(self) -> None:
        self._saved_top = self._undo[-1] if self._undo else None
        self._saved_anchor = len(self._undo)

    def do(self, edit: Edit) -> None:
        edit.apply(self._lookup(edit.qid))
        self._undo.append(edit)
        self._redo.clear()

    def undo(self) -> Edit | None:
        if not self._undo:
            return None
        edit = self._undo[-1]
        edit.revert(self._lookup(edit.qid))
        self._undo.pop()
        self._redo.append(edit)
        return edit

    def rollback(self) -> None:
        """Take back the last edit without offering it for redo (it was never accepted, e.g. log failed)."""
        edit = self._undo.pop()
        edit.revert(self._lookup(edit.qid))

    def redo(self) -> Edit | None:
        if not self._redo:
            return None
        edit = self._redo[-1]
        edit.apply(self._lookup(edit.qid))
        self._redo.pop()
        self._undo.append(edit)
        return edit

