"""Reversible edits of a question's answer components: add one, delete one (kept for undo and the log), rewrite
its answer text. They follow the :class:`~benchlab.annotations.fastbook.context_edits.Edit` protocol like the
context edits, so undo/redo, the change log and the diff treat them alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchlab.annotations.fastbook.context_edits import Edit, EditMismatch, QuestionId, shortened
from benchlab.data.fastbook.benchmark import Component, Question

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
        return f"rewrote component {self.index} of {self.where()}: “{shortened(text)}”"

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
        return f"added component {self.index} to {self.where()}: “{shortened(str(text))}”"

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

