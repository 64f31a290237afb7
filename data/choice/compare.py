"""Humans vs models on a choice task: every participant, the pooled humans and every model per stratum.

This module only declares what is the choice kit's own (:class:`ChoiceDesign`) and reads results into the
pipeline's terms (items as units, strata as conditions); :mod:`benchlab.data.analysis.pipeline` builds the
comparison, so a choice task gets the same rows, tests, flags, RTs and agreement as the built-in benchmarks.

* **Scores and CIs.** A participant or a model: accuracy over its trials with a Wilson interval (as
  ``score_choice``). Pooled humans: each item once, scored as the mean over the participants who answered it; the
  CI resamples items (within strata for ``overall``), so an item many people saw does not shrink the interval.
* **Tests.** Pooled humans against a model: two-sided paired sign-flip permutation test over shared items;
  without shared items an unpaired bootstrap. A participant against a model: McNemar on shared items, a
  two-proportion z test without them.
* Simulated participants keep their own labelled row and stay out of the pooled humans unless
  ``include_simulated``; the attention criterion flags participants on accuracy and too-fast responses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import Comparison
from benchlab.data.analysis.pipeline import (
    OVERALL,
    Design,
    Options,
    Participant,
    Readings,
    RowKind,
    Strata,
    bootstrap_cell,
    run_comparison,
    wilson_cell,
)
from benchlab.data.analysis.stats import AttentionCriterion, FigureCell
from benchlab.data.choice.items import ChoiceItem, ChoiceItems, items_of, load_choice_items
from benchlab.data.choice.results import ResultsInput, Warn, prompt_hashes, read_choice_results, results_files
from benchlab.data.errors import BenchlabError
from benchlab.data.models.same_items import prompt_hash_notes, restrict_to_shared

__all__ = ["ChoiceDesign", "compare_choice", "read_choice", "watched_files"]


def watched_files(paths: ResultsInput) -> list[Path]:
    """The results files whose change refreshes the Results screen (missing folders watch nothing)."""
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    return results_files([p for p in given if Path(p).exists()])


class ChoiceDesign(Design):
    """A choice task's declarations: trials scored right/wrong, items paired, strata as conditions."""

    unit = "items"
    unit_word = "items"
    participant_test = "mcnemar"
    unpaired_label = "unpaired bootstrap (no shared items)"
    unpaired_min = 2
    pool_first = ("stratum",)
    agreement_items_sorted = True  # as the kit's first comparison did (grouped by item id)

    def __init__(self, title: str, options: Options, chance: float) -> None:
        self.benchmark = title
        self.options = options
        self.chance = chance

    def subset(self, frame: pd.DataFrame, condition: str) -> pd.DataFrame:
        return frame if condition == OVERALL else frame[frame["stratum"] == condition]

    def strata(self, frame: pd.DataFrame, condition: str) -> Strata:
        return None, None  # the paired test is not stratified: an item's stratum is only how it was sampled

    def strata_note(self, condition: str) -> str:
        return ""

    def cell(self, kind: RowKind, name: str, frame: pd.DataFrame, condition: str,
             n_people: int) -> FigureCell | None:
        """Trials: Wilson; pooled humans: a bootstrap over items, within strata (weighted by items) overall."""
        rows = self.subset(frame, condition)
        if not len(rows):
            return None
        values = rows["score"].to_numpy(dtype=float)
        if kind == "humans":
            strata: Strata = (None, None)
            if condition == OVERALL:  # within strata, each weighted by its items: the plain mean over items
                strata = (rows["stratum"].tolist(), {s: float(n) for s, n in rows["stratum"].value_counts().items()})
            return bootstrap_cell(values, strata, n_people, "bootstrap over items", self.options)
        return wilson_cell(values, n_people)

    def notes(self, simulated_line: str) -> list[str]:
        o = self.options
        return [
            "Scores: accuracy (a response equal to the item's gold answer; no answer counts as wrong); overall = "
            "share correct over all trials.",
            "95% CI: Wilson for participants and models; pooled humans: percentile bootstrap over items"
            f" (within strata for overall; {o.n_boot} resamples, seed {o.seed}).",
            "Pooled humans: each item once, scored as the mean over the participants who answered it"
            + ("; flagged participants excluded." if o.exclude_flagged else "."),
            "Tests: pooled humans vs model = two-sided paired sign-flip permutation test over shared items (unpaired "
            "bootstrap without shared items); participant vs model = McNemar on shared items (two-proportion z "
            "test without shared items).",
            simulated_line,
            f"Attention criterion: {o.criterion.describe()} (control accuracy = accuracy on all trials).",
        ]


def _participant(name: str, own: pd.DataFrame) -> Participant:
    """A participant's answers in presentation order; control accuracy = accuracy on all trials."""
    rts = own["rt_ms"].to_numpy(dtype=float)
    answers = pd.DataFrame({"rt_ms": rts, "correct": own["correct"].to_numpy(dtype=bool),
                            "group": own["stratum"].to_numpy(dtype=object),
                            "item": own["item"].to_numpy(dtype=object),
                            "answer": own["response"].to_numpy(dtype=object)})
    simulated = next((s for s in own["simulated"] if s), "")
    return Participant(name, answers, simulated, float(own["correct"].mean()), rts)


def read_choice(pool: Sequence[ChoiceItem], results: ResultsInput, on_warning: Warn | None = None) -> Readings:
    """Choice results in the pipeline's terms: items as units, strata (in items-file order) as conditions."""
    frame = read_choice_results(pool, results, on_warning=on_warning)
    if frame.empty:
        raise BenchlabError("no scored responses in these results (only practice, or no results files)")
    frame = frame.assign(unit=frame["item"], score=frame["correct"].astype(float))
    strata = [s for s in dict.fromkeys(item.stratum for item in pool) if (frame["stratum"] == s).any()]
    humans = frame[frame["kind"] == "participant"]
    models = frame[frame["kind"] == "model"]
    participants = [_participant(p, humans[humans["who"] == p]) for p in sorted(humans["who"].unique())]
    conditions = [OVERALL, *strata] if len(strata) > 1 else strata
    return Readings(humans, models, participants, sorted(models["who"].unique()), conditions, strata)


def compare_choice(
    items: ChoiceItems | Sequence[ChoiceItem] | str | Path, results: ResultsInput, *, title: str = "choice task",
    criterion: AttentionCriterion | None = None, exclude_flagged: bool = False, include_simulated: bool = False,
    n_boot: int = stats.DEFAULT_BOOT, seed: int = stats.DEFAULT_SEED, rt_quantiles: int = 4,
    on_warning: Warn | None = None, excluded: Mapping[str, tuple[str, ...]] | None = None, same_items: bool = True,
) -> Comparison:
    """Build the comparison from results files or folders (participants and models in the same format); answers
    read but doubtful (a model's answer outside the options, a repeated answer) go to ``on_warning``.

    ``same_items`` (default): each model is scored on the items people answered only, and each model run's prompt
    hashes (``models/*.run.json`` beside the results) are checked against those the people's records carry; what
    was left out on each side and any item whose prompts differ are notes (:mod:`benchlab.data.models.same_items`).
    """
    pool = load_choice_items(items).items if isinstance(items, str | Path) else items_of(items)
    options = Options(criterion or AttentionCriterion(), exclude_flagged, n_boot, seed, rt_quantiles,
                      participant_tests=True, include_simulated=include_simulated,
                      excluded=dict(excluded or {}))
    chance = float(np.mean([1 / len(item.options) for item in pool]))
    readings = read_choice(pool, results, on_warning)
    notes: list[str] = []
    if same_items:
        models, notes = restrict_to_shared(readings.humans, readings.models)
        readings = replace(readings, models=models)
        given = [results] if isinstance(results, str | Path) else list(results)
        notes += prompt_hash_notes(given, prompt_hashes(readings.humans))
    comp = run_comparison(ChoiceDesign(title, options, chance), readings, options)
    comp.notes.extend(notes)
    comp.models_same_items = same_items
    return comp
