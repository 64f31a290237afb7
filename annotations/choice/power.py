"""What ``benchlab power NAME`` plans for a choice task (:class:`~benchlab.annotations.task.PlansPower`).

A unit is one item (one answer); the cells are the strata of the items file, with the plan's items per stratum;
the scores to plan against are the accuracies of the models in the task's model results (a model at chance when
the task ships none). ``--pilot`` reads a results folder of the people tested so far. Everything comes from the
task's own files, so a plug-in written with the kit gets ``power`` with no code of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from benchlab.annotations.task import PowerPlanning
from benchlab.data.choice.items import ChoiceItems, load_choice_items
from benchlab.data.choice.results import read_choice_records, read_choice_results, results_files
from benchlab.data.errors import BenchlabError

#: The scores the power search can plan against (the ``--model-score`` bounds are open at 0 and 1).
LOWEST, HIGHEST = 0.01, 0.99


def model_scores(items: ChoiceItems, model_results: Path | None) -> dict[str, float]:
    """Each model's accuracy on the items it answered, in file order (its first answer per item counts); a model
    answering at chance (the mean of 1/options) when there are no model results."""
    answers: dict[str, dict[str, str]] = {}
    if model_results is not None:
        for file in results_files(model_results):
            for record in read_choice_records(file):
                if record.model is not None and not record.practice:
                    answers.setdefault(record.model, {}).setdefault(record.item, record.response)
    gold = {item.id: item.gold for item in items.items}
    scores = {model: sum(gold.get(item) == response for item, response in given.items()) / len(given)
              for model, given in answers.items() if given}
    if not scores:
        scores = {"a model at chance": sum(1 / len(item.options) for item in items.items) / len(items)}
    return {model: min(max(score, LOWEST), HIGHEST) for model, score in scores.items()}


def pilot_reader(items_path: Path) -> Callable[[Path], tuple[float, float, int]]:
    """Reads the real (not simulated) participants of a results folder of this task: accuracy, spread, people."""

    def read(folder: Path) -> tuple[float, float, int]:
        # deferred: pandas and the simulation load only when --pilot is given (the command line stays quick)
        from benchlab.data.analysis.power import pilot_moments

        answers = read_choice_results(load_choice_items(items_path), [folder])
        answers = answers[(answers["kind"] == "participant") & (answers["simulated"] == "")]
        if answers.empty:
            raise BenchlabError("no real participant's answers in the pilot folder", folder)
        return pilot_moments(answers["who"].to_numpy(dtype=object), answers["item"].to_numpy(dtype=object),
                             answers["correct"].to_numpy(dtype=float))

    return read


def choice_power_planning(title: str, items_path: Path, model_results: Path | None,
                          items_per_stratum: int) -> PowerPlanning:
    """The task's design from its items file (strata = cells) and plan defaults, its models' scores to plan
    against. Files that cannot be read leave one cell and a model at chance, so ``benchlab`` still starts (the
    session and ``score`` commands then say what is wrong with them)."""
    try:
        items = load_choice_items(items_path)
        cells, scores = len(items.strata), model_scores(items, model_results)
    except (BenchlabError, OSError):
        cells, scores = 1, {"a model at chance": 0.5}
    model, score = next(iter(scores.items()))
    others = "; ".join(f"{name} {value:.3f}" for name, value in list(scores.items())[1:])
    return PowerPlanning(
        unit="items",
        answers_per_unit=1,
        cells=cells,
        units_per_cell=items_per_stratum,
        model_scores=scores,
        help=f"{title}: expected pooled CI width and power against a model's score (or from pilot data), and the "
        "smallest number of participants for a target power.",
        cells_help="Strata in the design (default: the strata of the task's items file).",
        units_per_cell_help="Items each person answers per stratum.",
        model_score_help=f"The model's accuracy (default: {model}'s {score:.3f} in the task's model results"
        + (f"; others: {others}" if others else "") + ").",
        pilot=pilot_reader(items_path),
        pilot_help="Results folder of the people tested so far: their accuracy and spread replace "
        "--human-accuracy and --person-sd.",
    )
