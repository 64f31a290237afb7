"""Which items a model run asks: those of a study's or a results folder's session plans, or all of a data set.

Plans are the ``*.plan.json`` files sessions save under ``<out>/sessions/``; their scored items (practice left
out), in plan order, each once, are the items people answered. The results folder beside them (``<out>/results``)
is where the model's results go by default, so ``score``/``compare`` read people and model together.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from benchlab.annotations.registry import registry
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.task import Benchmark, ModelItem, ModelPrompting, PromptsModels, RunsSessions, Task
from benchlab.data.errors import BenchlabError


@dataclass(frozen=True)
class ItemSelection:
    """The items to ask and where their results go."""

    items: list[ModelItem]
    results_dir: Path
    plans: list[Path]


def prompting_of(task: Benchmark) -> ModelPrompting:
    if not isinstance(task, PromptsModels):
        raise BenchlabError(f"the task {task.name!r} declares no model prompts (PromptsModels), so no model can be "
                            "run on it")
    return task.model_prompting


def find_plans(folder: Path, task: str) -> list[tuple[Path, SessionPlan]]:
    """The plans of ``task`` under ``folder`` (searched recursively), by path."""
    if not folder.is_dir():
        raise BenchlabError("no such folder (expected a study or results folder with sessions/*.plan.json)", folder)
    out = []
    for path in sorted(folder.rglob("*.plan.json")):
        plan = SessionPlan.load(path)
        if plan.task == task:
            out.append((path, plan))
    if not out:
        raise BenchlabError(f"no {task} session plans (*.plan.json) under this folder", folder)
    return out


def whole_units(items: list[ModelItem], limit: int) -> list[ModelItem]:
    """At most ``limit`` items, whole scoring units only when items declare one (``info["unit"]``: a WorldSense
    tuple is scored only when all its items are answered), units taken in the order they first appear, items
    kept in their order."""
    if not any("unit" in item.info for item in items):
        return items[:limit]
    units: dict[str, list[ModelItem]] = {}
    for item in items:
        units.setdefault(str(item.info.get("unit", item.id)), []).append(item)
    chosen: set[str] = set()
    for group in units.values():
        if chosen and len(chosen) + len(group) > limit:
            break
        chosen.update(item.id for item in group)
    return [item for item in items if item.id in chosen]  # in the plans' order


def study_out(folder: Path) -> Path:
    # deferred: the study module (TOML, schema) loads only for --study
    from benchlab.annotations.study import load_study

    return load_study(folder, registry()).out


def select_items(task: Task | Benchmark, *, template: str, study: Path | None = None, plans: Path | None = None,
                 every: bool = False, limit: int | None = None, dataset: Path | None = None,
                 out: Path | None = None, ids: Collection[str] | None = None,
                 ids_from: Path | None = None) -> ItemSelection:
    """The items of the plans under ``study``/``plans`` (or all with ``every``; with ``ids`` only those: the items
    of the log ``ids_from`` an import reads), cut to ``limit``."""
    prompting = prompting_of(task)
    if template not in prompting.templates:
        raise BenchlabError(f"unknown prompt template {template!r} for {task.name} "
                            f"(known: {', '.join(prompting.templates)})")
    if sum(x is not None and x is not False for x in (study, plans, every or None)) != 1:
        raise BenchlabError("say which items: --study DIR, --plans DIR or --all")
    folder = study_out(study) if study is not None else plans
    found = find_plans(folder, task.name) if folder is not None else []
    data = str(dataset) if dataset is not None else None
    plan_list = [p for _f, p in found]
    items = (prompting.model_items(data, plan_list, template, ids) if ids is not None and not found
             else prompting.model_items(data, plan_list, template))
    if limit is not None:
        items = whole_units(items, limit)
    if not items and ids is not None and not found:
        first = min(ids, default="none")
        raise BenchlabError(f"none of the log's {len(ids)} sample ids is an item of {task.name} in this data set "
                            f"(first id: {first!r}); is it a log of another task or other items?", ids_from)
    if not items:
        raise BenchlabError("no items to ask")
    if out is not None:
        results_dir = out
    elif found:
        results_dir = found[0][0].parent.parent / "results"
    else:
        if not isinstance(task, RunsSessions):
            raise BenchlabError("give --out (where the results go)")
        data = str(dataset) if dataset is not None else str(task.default_dataset())
        results_dir = Path(task.default_out(data)) / "results"
    return ItemSelection(items=items, results_dir=results_dir, plans=[f for f, _p in found])
