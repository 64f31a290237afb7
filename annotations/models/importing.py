"""``benchlab models import TASK LOG``: another tool's model answers as the benchmark's own results.

An inspect_ai log (``.eval``/``.json``) or an lm-evaluation-harness ``--log_samples`` file is read
(:mod:`benchlab.data.models.inspect_logs`, :mod:`benchlab.data.models.lm_eval`), its ids matched to the task's
items, each answer parsed with the benchmark's own parser, several epochs reduced as declared, and the results
written in the benchmark's format with a provenance file, so ``score``, ``compare``, the Results screen and
``export trials`` read them like any run. A log of another task, or one whose ids are none of the items, is
refused naming the file; ids outside the selected items are left out and counted; a sample whose prompt differs
from the benchmark's prompt for that item is counted and flagged (its hash is kept in the provenance).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchlab.annotations.models.items import ItemSelection, prompting_of
from benchlab.annotations.models.run import model_file_name
from benchlab.annotations.task import Benchmark, ModelAnswer, ModelItem
from benchlab.data.errors import BenchlabError
from benchlab.data.models.hashing import prompt_sha256, text_sha256
from benchlab.data.models.imported import EpochRule, ImportedAnswer, ImportedLog, reduce_epochs
from benchlab.data.models.inspect_logs import read_inspect_log, sample_ids
from benchlab.data.models.lm_eval import read_lm_eval_samples
from benchlab.data.models.provenance import ItemHashes, RunProvenance, software_versions
from benchlab.data.models.run_folder import MODELS_FOLDER


@dataclass
class ImportSummary:
    results: list[Path]
    provenance: list[Path]
    answers: int
    left_out: int
    prompt_differs: int
    invalid: int

    def line(self, task: str, path: Path) -> str:
        text = (f"{task}: imported {self.answers} answers from {path}; results: "
                f"{', '.join(str(p) for p in self.results)}")
        if self.left_out:
            text += f"; {self.left_out} sample(s) not among the items, left out"
        if self.prompt_differs:
            text += f"; WARNING: {self.prompt_differs} prompt(s) differ from the benchmark's prompt for that item"
        return text


def read_log(path: Path, kind: str | None, id_field: str | None, filter_name: str | None,
             keep: Callable[[str], bool] | None = None) -> ImportedLog:
    """The log's answers, by kind (``inspect``/``lm-eval``; default from the file name); ``keep``: the ids whose
    samples an ``.eval`` log need not even decompress when it says no."""
    if not path.exists():
        raise BenchlabError("no such file", path)
    if kind is None:
        kind = "inspect" if path.suffix in (".eval", ".json") else "lm-eval"
    if kind == "inspect":
        return read_inspect_log(path, keep)
    return read_lm_eval_samples(path, id_field=id_field, filter_name=filter_name)


def log_items(path: Path, task: str, kind: str | None, id_field: str | None, filter_name: str | None
              ) -> tuple[set[str], ImportedLog | None]:
    """The item ids a log answers, so that only those items are built (``models import --all``): an ``.eval``
    log's from its entry names alone; any other log is read whole (and returned, to be imported as read). A log
    of another benchlab task is refused here, before any item is built."""
    listed = sample_ids(path) if kind in (None, "inspect") and path.suffix == ".eval" and path.exists() else None
    if listed is not None:
        ids, log_task = listed
        check_task(log_task, task, path)
        return ids, None
    log = read_log(path, kind, id_field, filter_name)
    check_task(log.task, task, path)
    return {a.id for a in log.answers}, log


def check_task(log_task: str, task: str, path: Path) -> None:
    """Refuse a log benchlab wrote for another task (``benchlab_<task>``), naming the file."""
    match = re.fullmatch(r"benchlab_(.+)", log_task or "")
    if match and match[1] != task:
        raise BenchlabError(f"this log is a run of the task {match[1]!r}, not {task!r}", path)


def _completion(item: ModelItem, answer: ImportedAnswer) -> str:
    """The text to parse: the model's text, or for a log-likelihood choice the chosen option."""
    if answer.choice_index is None:
        return answer.completion
    choices = answer.extra.get("choices")
    options = list(choices) if isinstance(choices, list) else list(item.info.get("options", ()))
    if not 0 <= answer.choice_index < len(options):
        raise BenchlabError(f"item {item.id}: option {answer.choice_index} of a log-likelihood answer is not one "
                            "of the item's options", None, answer.line)
    return str(options[answer.choice_index])


def import_log(task: Benchmark, path: Path, selection: ItemSelection, *, template: str, kind: str | None = None,
               epochs: EpochRule = "first", id_field: str | None = None, filter_name: str | None = None,
               model_name: str | None = None, log: ImportedLog | None = None) -> ImportSummary:
    """Import the log at ``path`` (``log``: already read, by :func:`log_items`) as results of ``selection``'s items."""
    prompting = prompting_of(task)
    items = {item.id: item for item in selection.items}
    if log is None:
        log = read_log(path, kind, id_field, filter_name, keep=items.__contains__)
    check_task(log.task, task.name, path)
    in_log = {a.id for a in log.answers} | log.other_ids
    known = [a for a in log.answers if a.id in items]
    if not known:
        first = log.answers[0].id if log.answers else min(log.other_ids, default="none")
        raise BenchlabError(f"none of the log's {len(in_log)} sample ids is an item of "
                            f"{task.name} here (first id: {first!r}); is it a log of another task or other items? "
                            "(lm-eval: --id-field names the document's id field)", path)
    left_out = len(in_log - set(items))
    errors = [a for a in known if a.extra.get("error")]
    if errors:
        raise BenchlabError(f"sample {errors[0].id!r} of the log ended in an error: "
                            f"{str(errors[0].extra['error'])[:200]}", path)
    hashes = {i: prompt_sha256(item.messages) for i, item in items.items()}

    def parse(answer: ImportedAnswer) -> str:
        item = items[answer.id]
        return prompting.parse_answer(item, _completion(item, answer), answer.top_logprobs)

    reduced = reduce_epochs(known, epochs, parse)
    base = model_name or model_file_name(log.model or path.stem)
    results_dir = selection.results_dir
    models_dir = results_dir.parent / MODELS_FOLDER
    results: list[Path] = []
    provenance: list[Path] = []
    differs = 0
    invalid = 0
    for epoch, by_item in sorted(reduced.items()):
        name = base if epoch == 0 else f"{base}@e{epoch}"
        order = [i for i in items if i in by_item]
        answers = [ModelAnswer(items[i], _completion(items[i], by_item[i][0]), by_item[i][1],
                               by_item[i][0].top_logprobs) for i in order]
        results_dir.mkdir(parents=True, exist_ok=True)
        written = prompting.write_results(results_dir, name, template, answers)
        results += written
        entries = []
        for i in order:
            row = by_item[i][0]
            sent = prompt_sha256(row.messages) if row.messages else hashes[i]
            if sent != hashes[i]:
                differs += 1
            entries.append(ItemHashes(id=i, prompt_sha256=sent, stimulus_sha256=text_sha256(items[i].stimulus),
                                      benchmark_prompt_sha256=hashes[i]))
        invalid += sum(1 for a in answers if a.answer in ("", "X"))
        prov = RunProvenance(task=task.name, model=log.model or base, model_name=name, base_url=log.base_url,
                             template=template, source=log.kind, source_file=str(path.resolve()),
                             generation=log.generation, versions=software_versions("inspect_ai", "lm_eval"),
                             items=entries, results=[str(p) for p in written], epochs=epochs,
                             invalid_answers=sum(1 for a in answers if a.answer in ("", "X")),
                             correct=sum(1 for a in answers if a.answer == a.item.gold),
                             plans=[str(p) for p in selection.plans])
        models_dir.mkdir(parents=True, exist_ok=True)
        provenance.append(prov.save(models_dir))
    return ImportSummary(results, provenance, len(known), left_out, differs // max(len(reduced), 1), invalid)
