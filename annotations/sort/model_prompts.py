"""SORT put to a model as the SORT paper's evaluation code builds its prompts (spec ``booksort-sort.md`` section 7).

Per row: the segments string ``"Segment A: {A} Segment B: {B}\\n"`` (A = segment_1 iff ``present_seg1_first``),
placeholders ``<booktitle>``, ``<tasktype>`` (``first``), ``<excerpt>``, ``<segments>``, ``<label_list[0|1]>``
filled, the user message ``pre_excerpt + post_excerpt`` joined with no separator (STM, in context), or
``post_excerpt`` alone (LTM: ``pre_excerpt`` replaced by ""), and the system message first. Through an
OpenAI-style chat API (every inspect_ai provider) the code sends plain messages with no ``Answer: Segment`` prefix
(that prefix is for local Hugging Face models), greedy, and reads the first token's top-20 log-probabilities.

Answer: the label (A/B) with the higher first-token log-probability among the top candidates (``A``/`` A``...;
a missing label counts -1e12, both missing: fall back to the text), else the OpenAI variant's string parsing: a
single ``a``/``b``, an ``A:``/``B:`` form, or a text containing ``A`` and not ``B`` (or the reverse); anything else
is ``X`` (incorrect).

Templates: ``prompt_2`` (the default the repository marks, in ``finetuning_conf/config.yaml``), ``prompt_0`` (the
README's example) and ``prompt_12`` (``prompt_2`` with "Please only answer A or B." added to the system prompt);
the other prompt files are not quoted in the spec and are not guessed. A suffix ``-stm``/``-ltm`` forces the
condition; otherwise it is each plan's condition (``--all``: STM).
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.task import ModelAnswer, ModelItem
from benchlab.data.atomic import atomic_write_text
from benchlab.data.errors import BenchlabError
from benchlab.data.models.hashing import prompt_sha256, text_sha256
from benchlab.data.samples import sample_path
from benchlab.data.sort.records import BookSortRecord
from benchlab.data.sort.results_format import DATASET_COLUMNS, results_filename

SYSTEM_PROMPT = "You are a helpful, respectful and honest assistant."
_PRE_2 = ("I need you to thoroughly read and comprehend this extract from the book <booktitle>. The passage is as "
          "follows: <excerpt>")
_POST_2 = ("Your task is to recall which text segment, either <label_list[0]> or <label_list[1]>, appeared <tasktype> "
           "in the book <booktitle>. Please read the segments carefully to remember in which order they appeared in "
           "<booktitle> and respond with either <label_list[0]> or <label_list[1]>: <segments> Which of these, "
           "<label_list[0]> or <label_list[1]>, was <tasktype> in the book <booktitle>?")
_PRE_0 = ("Please take some time to thoroughly read and comprehend this extract from the book <booktitle>. The "
          "passage is as follows: <excerpt>")
_POST_0 = ("You will be shown pairs of text fragments from <booktitle>. Please select which of two fragments appeared "
           "<tasktype> in the book. You will be shown 10 such pairs. <segments> Which fragment appeared <tasktype> "
           "in the book, <label_list[0]> or <label_list[1]>?")
#: name -> (system prompt, pre_excerpt, post_excerpt), verbatim from the prompt files.
PROMPTS: dict[str, tuple[str, str, str]] = {
    "prompt_2": (SYSTEM_PROMPT, _PRE_2, _POST_2),
    "prompt_0": (SYSTEM_PROMPT, _PRE_0, _POST_0),
    "prompt_12": (SYSTEM_PROMPT + " Please only answer A or B.", _PRE_2, _POST_2),
}
TEMPLATES = {
    "prompt_2": "SORT prompt_2.yaml (the repository's marked default); condition from each plan",
    "prompt_0": "SORT prompt_0.yaml (the README's example)",
    "prompt_12": "prompt_2 with 'Please only answer A or B.' in the system prompt",
    **{f"{name}-{cond}": f"{name}, {cond.upper()} whatever the plans say" for name in ("prompt_2", "prompt_0",
                                                                                       "prompt_12")
       for cond in ("stm", "ltm")},
}
LABELS = ("A", "B")
DEFAULT_TEMPLATE = "prompt_2"
#: The columns SORT's evaluation writes after the dataset columns (spec 7.5), in its order.
MODEL_COLUMNS = ["data", "prob_A", "prob_B", "raw_answer", "model_name", "A_is_first", "answer",
                 "prompt_logprob_jsons", "parsed_raw_answer", "ground_truth", "correct"]
RESULTS_COLUMNS = ["", "index", *DATASET_COLUMNS, *MODEL_COLUMNS]


def sort_messages(record: BookSortRecord, template: str, condition: str, task_type: str = "first"
                  ) -> tuple[tuple[str, str], ...]:
    """The (system, user) messages of one row."""
    system, pre, post = PROMPTS[template]
    a, b = record.option_texts()
    segments = f"Segment {LABELS[0]}: {a} Segment {LABELS[1]}: {b}\n"
    user = (pre if condition == "stm" else "") + post
    for key, value in (("<booktitle>", record.book_title), ("<tasktype>", task_type),
                       ("<label_list[0]>", LABELS[0]), ("<label_list[1]>", LABELS[1]),
                       ("<segments>", segments), ("<excerpt>", record.excerpt_text)):
        user = user.replace(key, value)
    return (("system", system), ("user", user))


def sort_stimulus(record: BookSortRecord, condition: str) -> str:
    """What a participant is shown for a trial, as one text: the excerpt (STM), then segments A and B."""
    a, b = record.option_texts()
    head = record.excerpt_text + "\n\n" if condition == "stm" else f"{record.book_title}\n\n"
    return f"{head}Segment A: {a}\nSegment B: {b}"


def sort_hashes(record: BookSortRecord, condition: str) -> dict[str, str]:
    """The hashes a human record carries: what was shown and the default template's model prompt."""
    return {"stimulus_sha256": text_sha256(sort_stimulus(record, condition)),
            "prompt_sha256": prompt_sha256(sort_messages(record, DEFAULT_TEMPLATE, condition))}


def parse_sort(completion: str, top_logprobs: Mapping[str, float] | None) -> str:
    """A, B or X: first-token log-probabilities when given, else the OpenAI variant's string parsing."""
    if top_logprobs:
        best = {label: max((lp for tok, lp in top_logprobs.items() if tok.strip() == label), default=-1e12)
                for label in LABELS}
        if max(best.values()) > -1e12:
            return "A" if best["A"] >= best["B"] else "B"
    text = completion.strip()
    if text in ("a", "b"):
        return text.upper()
    starts = [label for label in LABELS if text.startswith(label + ":")]
    if len(starts) == 1:
        return starts[0]
    has_a, has_b = "A" in text, "B" in text
    if has_a and not has_b:
        return "A"
    if has_b and not has_a:
        return "B"
    return "X"


def _condition_of(template: str, plan: SessionPlan | None) -> tuple[str, str]:
    name, _, forced = template.partition("-")
    if name not in PROMPTS or (forced and forced not in ("stm", "ltm")):
        raise BenchlabError(f"unknown SORT prompt template {template!r} (known: {', '.join(TEMPLATES)})")
    if forced:
        return name, forced
    return name, str(plan.config.get("condition", "stm")) if plan is not None else "stm"


def _records(dataset: str, config: Mapping[str, Any]) -> dict[str, BookSortRecord]:
    # deferred: pandas loads only when items are read (this module loads with the task declaration)
    from benchlab.data.sort.loaders import Selection, load_records

    design = config.get("design") or None
    le = None if design == "whole-book" else config.get("excerpt_length")
    records = load_records(dataset, Selection(excerpt_length=le, segment_length=config.get("segment_length"),
                                              book=config.get("book"), design=design))
    return {r.trial_id: r for r in records}


class SortPrompting:
    """:class:`~benchlab.annotations.task.ModelPrompting` of SORT."""

    templates: Mapping[str, str] = TEMPLATES
    generation: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 1, "logprobs": True, "top_logprobs": 20}

    def model_items(self, dataset: str | None, plans: Sequence[SessionPlan], template: str,
                    ids: Collection[str] | None = None) -> list[ModelItem]:
        out: list[ModelItem] = []
        seen: set[str] = set()
        if not plans:
            name, condition = _condition_of(template, None)
            path = dataset or str(sample_path("booksort"))
            every = sorted(_records(path, {}).values(), key=lambda r: r.trial_id)
            wanted = None if ids is None else set(ids)
            return [self._item(r, name, condition, path) for r in every
                    if r.split == "test" and (wanted is None or r.trial_id in wanted)]
        for plan in plans:
            name, condition = _condition_of(template, plan)
            path = dataset or plan.dataset
            records = _records(path, plan.config)
            for item_id in plan.main_items:
                if item_id in seen:
                    continue
                record = records.get(item_id)
                if record is None:
                    raise BenchlabError(f"a plan names trial {item_id}, which is not in this data set", path)
                seen.add(item_id)
                out.append(self._item(record, name, condition, path))
        return out

    def _item(self, record: BookSortRecord, template: str, condition: str, dataset: str) -> ModelItem:
        info = {c: getattr(record, c) for c in DATASET_COLUMNS}
        info.update(condition=condition, dataset=dataset)
        return ModelItem(id=record.trial_id, messages=sort_messages(record, template, condition),
                         gold=record.ground_truth, stimulus=sort_stimulus(record, condition), info=info)

    def parse_answer(self, item: ModelItem, completion: str, top_logprobs: Mapping[str, float] | None) -> str:
        return parse_sort(completion, top_logprobs)

    def write_results(self, out: Path, model: str, template: str,
                      answers: Sequence[ModelAnswer]) -> list[Path]:
        # deferred: pandas loads only when results are written
        import pandas as pd

        groups: dict[tuple[int, int, str], list[ModelAnswer]] = {}
        for row in answers:
            info = row.item.info
            groups.setdefault((int(info["excerpt_length"]), int(info["segment_length"]), str(info["condition"])),
                              []).append(row)
        written: list[Path] = []
        for (le, ls, condition), rows in sorted(groups.items()):
            name = model if condition == "stm" else f"{model}-ltm"
            records = []
            for i, row in enumerate(rows):
                item, completion, answer = row.item, row.completion, row.answer
                info = item.info
                probs = first_token_probs(row.top_logprobs)
                truth = item.gold
                records.append({
                    "index": i, **{c: info[c] for c in DATASET_COLUMNS},
                    "data": json.dumps([{"role": r, "content": c} for r, c in item.messages], ensure_ascii=False),
                    "prob_A": probs["A"], "prob_B": probs["B"], "raw_answer": completion,
                    "model_name": name, "A_is_first": int(info["present_seg1_first"]), "answer": answer,
                    "prompt_logprob_jsons": json.dumps(dict(row.top_logprobs or {})),
                    "parsed_raw_answer": parse_sort(completion, None), "ground_truth": truth,
                    "correct": answer == truth,
                })
                if condition != "stm":
                    records[-1]["condition"] = condition
            frame = pd.DataFrame(records)
            buf = io.StringIO()
            frame.to_csv(buf)
            path = out / results_filename(le, ls, name)
            atomic_write_text(path, buf.getvalue())
            written.append(path)
        return written


def first_token_probs(top_logprobs: Mapping[str, float] | None) -> dict[str, float]:
    """prob_A / prob_B as the code stores them: each label's best first-token log-probability (-1e12 missing)."""
    out = {}
    for label in LABELS:
        values = [lp for tok, lp in (top_logprobs or {}).items() if tok.strip() == label and not math.isnan(lp)]
        out[label] = max(values, default=-1e12)
    return out


SORT_PROMPTING = SortPrompting()
