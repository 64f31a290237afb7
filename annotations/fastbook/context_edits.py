"""Reversible edits of fastbook-benchmark context annotations: the edit protocol, contexts, flags and
question_contexts (answer components: :mod:`.component_edits`; replaying a change log: :mod:`.edit_replay`; the
undo/redo history: :mod:`.edit_history`).

Every change a curator makes is one small value object that knows how to apply and revert itself and how to
describe itself for the change log, so undo/redo, the log and the diff never disagree about what happened.
Edits address a question by ``(chapter, question_number)`` and a component by position: the benchmark file
has no other ids (spec section 2). ``apply`` checks that the question still holds what the edit expects, so
an undo can never silently clobber a different value.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Literal

from benchlab.data.fastbook.benchmark import Question, QuestionContext

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


def shortened(text: str, width: int = 48) -> str:
    """``text`` on one line, cut to ``width`` characters: how an edit quotes a context in its description."""
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
        return f"added context to {self.slot.label} of {self.where()}: “{shortened(self.text)}”"

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
        return f"replaced context {self.position} of {self.slot.label} of {self.where()}: “{shortened(self.after)}”"

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
        return f"deleted context {self.position} of {self.slot.label} of {self.where()}: “{shortened(self.text)}”"

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
        return f"added question_context to {self.where()}: “{shortened(self.question_component)}”"

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
        return f"renamed question_context {self.position} of {self.where()}: “{shortened(self.after)}”"

    def change(self) -> dict[str, Any]:
        return {"component": None, "field": f"question_context[{self.position}].question_component",
                "before": self.before, "after": self.after}

