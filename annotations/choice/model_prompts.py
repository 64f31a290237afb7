"""A choice-kit task put to a model: a declared prompt template (a sensible default), exact-option answer parsing,
and the kit's own results format (``<out>/<model>.jsonl`` lines with ``item``, ``response``, ``model``).

The template is a :meth:`str.format` string over the item's fields: ``{text}``, ``{options}`` (quoted, comma
separated), ``{numbered_options}`` (``1. ...`` lines), ``{id}``, ``{stratum}`` and any extra field of the items file.
A field no item has is refused before any model is asked, naming the template. The answer is the option the text
equals (case-insensitive, quotes and a final full stop removed), or the option whose number it is, or the only
option occurring in it; anything else is ``""`` (wrong).
"""

from __future__ import annotations

import contextlib
import re
import string
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.task import ModelAnswer, ModelItem
from benchlab.data.choice.items import ChoiceItem, ChoiceItems
from benchlab.data.choice.results import write_model_results
from benchlab.data.errors import BenchlabError
from benchlab.data.models.hashing import prompt_sha256, text_sha256

DEFAULT_TEMPLATE = ("{text}\n\nOptions:\n{numbered_options}\n\nAnswer with exactly one of the options, copied "
                    "as written, and nothing else.")


def template_fields(template: str) -> list[str]:
    """The field names a template uses (``BenchlabError`` for a malformed template)."""
    try:
        return [name for _lit, name, _spec, _conv in string.Formatter().parse(template) if name]
    except ValueError as exc:
        raise BenchlabError(f"prompt template is malformed ({exc}): {template!r}") from None


def render(template: str, item: ChoiceItem) -> str:
    fields: dict[str, Any] = {**(item.model_extra or {}), "id": item.id, "text": item.text, "stratum": item.stratum,
                              "options": ", ".join(f"'{o}'" for o in item.options),
                              "numbered_options": "\n".join(f"{i}. {o}" for i, o in enumerate(item.options, 1))}
    unknown = [name for name in template_fields(template) if name.split(".")[0].split("[")[0] not in fields]
    if unknown:
        raise BenchlabError(f"the prompt template uses the field {{{unknown[0]}}}, which item {item.id!r} does not "
                            f"have (fields: {', '.join(sorted(fields))})")
    return template.format(**fields)


def choice_stimulus(item: ChoiceItem) -> str:
    """The text a participant sees for an item: its text, then its options, one a line."""
    return item.text + "\n" + "\n".join(item.options)


def choice_hashes(item: ChoiceItem, template: str | None = None) -> dict[str, str]:
    """The hashes a participant's record carries, as WorldSense's and SORT's do: the stimulus shown and the item's
    model prompt with the task's template (left out when the template cannot render this item: a person's session
    never fails over a model template; ``models run`` refuses that template before asking anything)."""
    out = {"stimulus_sha256": text_sha256(choice_stimulus(item))}
    with contextlib.suppress(BenchlabError, KeyError, IndexError, ValueError, AttributeError):
        out["prompt_sha256"] = prompt_sha256((("user", render(template or DEFAULT_TEMPLATE, item)),))
    return out


def parse_choice(options: Sequence[str], completion: str) -> str:
    text = completion.strip().strip("\"'`*").strip().rstrip(".").strip()
    for option in options:
        if text.lower() == option.lower():
            return option
    if text.isdigit() and 1 <= int(text) <= len(options):
        return options[int(text) - 1]
    found = [o for o in options if re.search(rf"(?<!\w){re.escape(o.lower())}(?!\w)", text.lower())]
    return found[0] if len(found) == 1 else ""


class ChoicePrompting:
    """:class:`~benchlab.annotations.task.ModelPrompting` of a choice-kit task."""

    generation: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 32}

    def __init__(self, load: Any, default_items: Path, template: str | None = None) -> None:
        self._load = load
        self._default_items = default_items
        self.template = template or DEFAULT_TEMPLATE
        self.templates: Mapping[str, str] = {"default": "the task's declared template" if template else
                                             "the kit's default: text, numbered options, 'answer with one option'"}

    def model_items(self, dataset: str | None, plans: Sequence[SessionPlan], template: str,
                    ids: Collection[str] | None = None) -> list[ModelItem]:
        if template not in self.templates:
            raise BenchlabError(f"unknown prompt template {template!r} (known: {', '.join(self.templates)})")
        paths = {dataset} if dataset else ({p.dataset for p in plans} if plans else {str(self._default_items)})
        if len(paths) != 1:
            raise BenchlabError(f"the plans use {len(paths)} items files; give one with --dataset")
        items: ChoiceItems = self._load(paths.pop())
        by_id = {item.id: item for item in items.items}
        only = None if ids is None else set(ids)
        wanted = list(dict.fromkeys(i for p in plans for i in p.main_items)) if plans else [
            i for i in by_id if only is None or i in only]
        out = []
        for item_id in wanted:
            item = by_id.get(item_id)
            if item is None:
                raise BenchlabError(f"a plan names item {item_id!r}, which is not in the items file")
            out.append(ModelItem(id=item.id, messages=(("user", render(self.template, item)),), gold=item.gold,
                                 stimulus=choice_stimulus(item),
                                 info={"options": list(item.options)}))
        return out

    def parse_answer(self, item: ModelItem, completion: str, top_logprobs: Mapping[str, float] | None) -> str:
        return parse_choice(tuple(item.info.get("options", ())), completion)

    def write_results(self, out: Path, model: str, template: str, answers: Sequence[ModelAnswer]) -> list[Path]:
        path = out / f"model-{model}.jsonl"
        write_model_results(path, model, [(a.item.id, a.answer) for a in answers])
        return [path]
