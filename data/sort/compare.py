"""SORT / BookSORT: every participant, the pooled humans and every model per configuration and distance bin.

Rows are read with :func:`benchlab.data.sort.items.read_rows` (the shared scoring rule: X is wrong,
``correct = answer == ground_truth``); the item identity (book, excerpt, distance bin within a configuration) and
response times come from the same CSV rows. Practice rows are left out. This module only declares what is
SORT's own (:class:`SortDesign`); :mod:`benchlab.data.analysis.pipeline` builds the comparison.

* **Scores and CIs.** Per configuration or distance bin: accuracy over trials with a Wilson interval. Overall:
  the original's macro mean over configurations, with a bootstrap CI stratified by configuration (as
  ``benchlab score sort``).
* **Pooled humans.** Each item once, scored as the mean over the participants who answered it; CIs resample
  items (stratified by configuration), so an item seen by many people does not shrink the interval.
* **Tests.** A participant against a model on the items both answered: McNemar (exact below 25 discordant
  pairs). Pooled humans against a model: paired bootstrap over shared items. Without shared items: a
  two-proportion z test (participant) or an unpaired bootstrap (pooled).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

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
from benchlab.data.sort.items import read_rows

__all__ = ["OVERALL", "SortDesign", "compare_sort", "read_rows", "watched_files"]


def watched_files(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*_results.csv") if f.is_file()))
        elif p.exists():
            out.append(p)
    return out


def _sort_key(cond: str) -> tuple[int, int, int]:
    """Configurations, then their distance bins (``e250-s20 d62``) or gap bins (``e69607-s20 gap 1k-1.5k``)."""
    config, _, rest = cond.partition(" ")
    le, ls = config.removeprefix("e").split("-s")
    if rest.startswith("gap "):
        upper = rest.removeprefix("gap ").split("-")[-1]
        edge = round(float(upper[:-1]) * 1000) if upper.endswith("k") else int(upper)
    else:
        edge = int(rest.removeprefix("d")) if rest else -1
    return (int(le), int(ls), edge)


class SortDesign(Design):
    """SORT's declarations: trials scored right/wrong, items paired, configurations as strata."""

    benchmark = "SORT"
    unit = "trials"
    unit_word = "items"
    participant_test = "mcnemar"
    unpaired_label = "unpaired bootstrap (no shared items)"
    unpaired_min = 2
    pool_first = ("config", "bin")
    agreement_items_sorted = True

    def __init__(self, options: Options, several_configs: bool) -> None:
        self.options = options
        self.several_configs = several_configs

    def subset(self, frame: pd.DataFrame, condition: str) -> pd.DataFrame:
        if condition == OVERALL:
            return frame
        col = "bin" if " " in condition else "config"  # "e250-s20 d62", "e69607-s20 gap 0-400" vs "e250-s20"
        return frame[frame[col] == condition]

    def strata(self, frame: pd.DataFrame, condition: str) -> Strata:
        return (frame["config"].tolist() if condition == OVERALL else None), None

    def strata_note(self, condition: str) -> str:
        return " (stratified by configuration)" if condition == OVERALL else ""

    def participant_tests_in(self, condition: str) -> bool:
        return not (condition == OVERALL and self.several_configs)

    def cell(self, kind: RowKind, name: str, frame: pd.DataFrame, condition: str,
             n_people: int) -> FigureCell | None:
        """Trials: Wilson per configuration / bin, overall a configuration-stratified bootstrap; pooled: items."""
        rows = self.subset(frame, condition)
        if not len(rows):
            return None
        values = rows["score"].to_numpy(dtype=float)
        if kind == "humans":
            method = "bootstrap over items" + (" stratified by configuration" if condition == OVERALL else "")
            return bootstrap_cell(values, self.strata(rows, condition), n_people, method, self.options)
        if condition == OVERALL:
            return bootstrap_cell(values, self.strata(rows, condition), n_people,
                                  "bootstrap stratified by configuration", self.options)
        return wilson_cell(values, n_people)

    def notes(self, simulated_line: str) -> list[str]:
        o = self.options
        return [
            "Scores: accuracy (X = no answer counts as wrong); overall = mean over configurations (the original's "
            "macro).",
            "95% CI: Wilson per configuration / distance bin; overall: bootstrap stratified by configuration "
            f"({o.n_boot} resamples, seed {o.seed}).",
            "Pooled humans: each item once, scored as the mean over the participants who answered it; CI resamples "
            "items" + ("; flagged participants excluded." if o.exclude_flagged else "."),
            "Tests: participant vs model = McNemar on shared items (exact below 25 discordant pairs), two-proportion z "
            "test without shared items; pooled humans vs model = two-sided paired sign-flip permutation test over "
            f"shared items (exact up to 16 non-zero differences, else {o.n_boot} random flips), CI = percentile "
            "bootstrap, left out ('n/a') when a stratum has fewer than 2 items where the scores differ; unpaired "
            "bootstrap without shared items.",
            simulated_line,
            f"Attention criterion: {o.criterion.describe()} (control accuracy = accuracy on all trials).",
            "Agreement: answers (A/B/X) to the same item by two or more participants; Fleiss' kappa.",
            "Items: configuration / book / excerpt / distance bin; practice rows are left out.",
        ]


def read_sort(paths: Sequence[str | Path], by_bin: bool = True) -> Readings:
    """SORT results CSVs in the pipeline's terms: trials as units (``unit`` = item), participants' answers."""
    frame = read_rows(paths)
    frame = frame.assign(unit=frame["item"], score=frame["correct"].astype(float))
    configs = sorted(frame["config"].unique(), key=_sort_key)
    bins = sorted(frame["bin"].unique(), key=_sort_key) if by_bin else []
    conditions = ([OVERALL] if len(configs) > 1 else []) + [
        c for cfg in configs for c in [cfg, *[b for b in bins if b.startswith(cfg + " ")]]]
    humans = frame[frame["is_human"]]
    models = frame[~frame["is_human"]]
    participants = []
    for pid in sorted(humans["who"].unique()):
        own = humans[humans["who"] == pid]
        rts = own["rt_ms"].to_numpy(dtype=float)
        answers = pd.DataFrame({"rt_ms": rts, "correct": own["correct"].to_numpy(dtype=bool),
                                "group": own["config"].to_numpy(dtype=object),
                                "item": [i if i != "" else None for i in own["item"]],
                                "answer": own["answer"].to_numpy(dtype=object)})
        simulated = next((s for s in own["simulated"].astype(str) if s), "")
        participants.append(Participant(pid, answers, simulated, float(own["correct"].mean()), rts))
    return Readings(humans, models, participants, sorted(models["who"].unique()), conditions, configs)


def compare_sort(
    paths: Sequence[str | Path],
    *,
    criterion: AttentionCriterion | None = None,
    exclude_flagged: bool = False,
    n_boot: int = stats.DEFAULT_BOOT,
    seed: int = stats.DEFAULT_SEED,
    by_bin: bool = True,
    participant_tests: bool = True,
    rt_quantiles: int = 4,
    include_simulated: bool = False,
) -> Comparison:
    """Build the comparison from results CSVs or folders (humans: model names ``human-<id>``).

    Simulated participants (the ``simulated`` column, e.g. ``run sort --simulate oracle``) keep their own labelled
    row but stay out of the pooled humans, spread and agreement unless ``include_simulated``.
    """
    options = Options(criterion or AttentionCriterion(), exclude_flagged, n_boot, seed, rt_quantiles,
                      participant_tests, include_simulated)
    readings = read_sort(paths, by_bin)
    return run_comparison(SortDesign(options, len(readings.groups) > 1), readings, options)
