"""WorldSense put to a model as the published results were made: the trial's ``text`` (instructions included) as
the one user message, no system prompt, greedy decoding; the answer written as ``{"Key", "resp"}`` lines of
``<prompting>___<model>___results.jsonl`` with ``prompting`` = ``basic`` (the published files' prompting).

Answer parsing: the published files hold ``resp`` as an exact option (``TRUE``, ``POSSIBLE``, ``1``...) or ``""``;
the repository has no parser, so a model's text is mapped to an option only when it is unambiguous: the stripped
text (quotes, parentheses, a final full stop removed, upper-cased) equals an option, or exactly one option occurs
in it as a whole word (``IMPOSSIBLE`` is not read as ``POSSIBLE``). Anything else is ``""`` (wrong for accuracy,
neutral for bias, as in the benchmark).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.task import ModelAnswer, ModelItem
from benchlab.data.errors import BenchlabError
from benchlab.data.models.hashing import prompt_sha256, text_sha256
from benchlab.data.samples import sample_path
from benchlab.data.worldsense.loader import find_trials_file, load_trials
from benchlab.data.worldsense.records import Trial
from benchlab.data.worldsense.results import results_filename, write_results
from benchlab.data.worldsense.trial_index import open_index

TEMPLATES = {"basic": "the trial text as the one user message (how the published model results were made)"}


@lru_cache(maxsize=2)
def _trials(path: str) -> dict[str, Trial]:
    return {str(t.Key): t for t in load_trials(find_trials_file(path))}


def worldsense_prompt(trial: Trial) -> tuple[tuple[str, str], ...]:
    """The messages a model is sent for a trial."""
    return (("user", trial.text),)


def worldsense_hashes(trial: Trial) -> dict[str, str]:
    """The hashes a human record carries: the text shown and the model prompt of the item."""
    return {"stimulus_sha256": text_sha256(trial.text), "prompt_sha256": prompt_sha256(worldsense_prompt(trial))}


def parse_worldsense(options: Sequence[str], completion: str) -> str:
    """An option of ``options`` when the completion gives exactly one unambiguously, else ``""``."""
    text = completion.strip().strip("\"'`*").strip()
    bare = text.rstrip(".").strip().strip("()").strip().upper()
    if bare in options:
        return bare
    upper = text.upper()
    found = [opt for opt in options
             if re.search(rf"(?<![A-Z0-9]){re.escape(opt.upper())}(?![A-Z0-9])", upper)]
    return found[0] if len(found) == 1 else ""


def _model_item(trial: Trial, dataset: str) -> ModelItem:
    return ModelItem(id=str(trial.Key), messages=worldsense_prompt(trial), gold=trial.goldresp, stimulus=trial.text,
                     info={"options": list(trial.expectedresp), "problemname": trial.problemname, "dataset": dataset,
                           "unit": trial.tuple_ID})


def _trials_by_id(path: str, ids: Collection[str]) -> list[Trial]:
    """The trials with these Keys, in test-set order, read one by one from the cached test-set index
    (:mod:`benchlab.data.worldsense.trial_index`: built once per test-set content), not the whole test set: an
    import of a 10,000-sample log then reads 10,000 trials of 87,048. Ids that are not Keys here are left out."""
    index = open_index(find_trials_file(path))
    rows: list[tuple[int, int]] = []
    for item in set(ids):
        try:
            key = int(item)
        except ValueError:
            continue
        row = index.row_of(key)
        if row is not None:
            rows.append((row, key))
    try:
        return [t for _row, key in sorted(rows) if (t := index.trial(key)) is not None]
    finally:
        index.close()


class WorldSensePrompting:
    """:class:`~benchlab.annotations.task.ModelPrompting` of WorldSense."""

    templates: Mapping[str, str] = TEMPLATES
    generation: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 16}

    def model_items(self, dataset: str | None, plans: Sequence[SessionPlan], template: str,
                    ids: Collection[str] | None = None) -> list[ModelItem]:
        if template not in TEMPLATES:
            raise BenchlabError(f"unknown WorldSense prompt template {template!r} (known: {', '.join(TEMPLATES)})")
        datasets = {p.dataset for p in plans} if plans else {dataset or str(sample_path("worldsense"))}
        if dataset is not None and plans:
            datasets = {dataset}
        if len(datasets) != 1:
            raise BenchlabError(f"the plans use {len(datasets)} test sets ({', '.join(sorted(datasets))}); give one "
                                "with -t/--dataset")
        path = datasets.pop()
        if ids is not None and not plans:
            return [_model_item(t, path) for t in _trials_by_id(path, ids)]
        if plans:  # a plan's few hundred trials, from the index sessions use (not the whole test set)
            wanted = [i for p in plans for i in p.main_items]
            trials = {str(t.Key): t for t in _trials_by_id(path, wanted)}
        else:
            trials = _trials(path)
            wanted = list(trials)
        out: list[ModelItem] = []
        seen: set[str] = set()
        for item_id in wanted:
            if item_id in seen:
                continue
            seen.add(item_id)
            trial = trials.get(item_id)
            if trial is None:
                raise BenchlabError(f"a plan names Key {item_id}, which is not in this test set", path)
            out.append(_model_item(trial, path))
        return out

    def parse_answer(self, item: ModelItem, completion: str, top_logprobs: Mapping[str, float] | None) -> str:
        return parse_worldsense(tuple(item.info.get("options", ())), completion)

    def write_results(self, out: Path, model: str, template: str,
                      answers: Sequence[ModelAnswer]) -> list[Path]:
        path = out / results_filename(template, model)
        write_results(path, [{"Key": int(a.item.id), "resp": a.answer} for a in answers])
        return [path]


WORLDSENSE_PROMPTING = WorldSensePrompting()
