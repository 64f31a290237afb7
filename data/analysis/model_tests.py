"""The pipeline's tests of people against models: the pooled humans (and each participant, when asked) against
every model per condition, by the test the design names (sign-flip permutation, McNemar / two proportions, or the
crossed people x items test for the pooled humans).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED, TestRow
from benchlab.data.analysis.crossed import human_model_test
from benchlab.data.analysis.design import (
    Design,
    Options,
    Readings,
    RowsWhere,
    TestKind,
    identified,
    renamed,
)
from benchlab.data.analysis.stats.paired_score import tango_test


def on_units(frame: pd.DataFrame, units: pd.Index) -> np.ndarray:
    """``frame["unit"].isin(units)`` through the index's own hash table, built once per model and reused by every
    condition and participant: pandas' string ``isin`` turns each of the model's units into a pyarrow scalar on
    every call (most of a SORT comparison's time)."""
    if units.is_unique:
        return np.asarray(units.get_indexer(pd.Index(frame["unit"])) >= 0)
    return frame["unit"].isin(units).to_numpy(dtype=bool)


def on_shared_units(frame: pd.DataFrame, units: pd.Index) -> pd.DataFrame:
    """The rows of ``frame`` whose unit is in ``units``; ``frame`` itself when every row's is (a model cut to the
    people's units shares them all): no copy, and the design's strata of that frame, already computed for its
    cell, are found again."""
    on = on_units(frame, units)
    return frame if on.all() else frame[on]


def model_scores(model: pd.Series, units: pd.Series, dtype: type = float) -> np.ndarray:
    """``model.loc[units].to_numpy(dtype=dtype)`` (every unit is in ``model``'s index), through the index's hash
    table when each unit appears once there: a label lookup by ``loc`` costs ~1 ms a call, and a comparison makes
    one per participant, model and condition."""
    at = model.index.get_indexer(pd.Index(units)) if model.index.is_unique else None
    if at is None or (at < 0).any():  # repeated labels, or a unit the model lacks: loc's own answer (or error)
        return model.loc[units].to_numpy(dtype=dtype)
    return model.to_numpy()[at].astype(dtype)


def tests_against_models(design: Design, readings: Readings, pooled: pd.DataFrame, pooled_rows: pd.DataFrame,
                         options: Options) -> list[TestRow]:
    """Pooled humans (then each participant, when asked) against every model, per condition."""
    humans = identified(readings.humans)
    rows_where = RowsWhere()
    names = [p.name for p in readings.participants] if options.participant_tests else []
    mine = {p: rows_where(humans, "who", p) for p in names} if design.participant_test != "mcnemar" else {}
    out: list[TestRow] = []
    for m in readings.models_order:
        everything = rows_where(readings.models, "who", m)
        paired = identified(everything).set_index("unit")["score"]
        by_unit = paired.to_dict() if design.pooled_crossed and not pooled.empty else {}  # once per model
        for c in readings.conditions:
            model_rows = design.subset(everything, c)
            if not pooled.empty:
                if design.pooled_crossed:
                    test = _crossed_test(design, design.subset(pooled, c), design.subset(pooled_rows, c), paired,
                                         model_rows, c, options, by_unit)
                    answers = design.subset(pooled_rows, c)
                    people = int(answers.loc[on_units(answers, paired.index), "who"].nunique())
                else:
                    test = TESTS[design.pooled_test](design, design.subset(pooled, c), paired, model_rows, c,
                                                     options)
                    people = int(design.subset(pooled_rows, c)["who"].nunique())
                if test is not None:
                    out.append(TestRow(c, m, test[0], test[1], test[2], who=POOLED, people=people))
            if not (names and design.participant_tests_in(c)):
                continue
            if design.participant_test == "mcnemar":
                tests = _mcnemar_per_person(design.subset(humans, c), names, paired, model_rows)
            else:
                tests = {p: TESTS[design.participant_test](design, design.subset(mine[p], c), paired, model_rows, c,
                                                           options) for p in names}
            out += [TestRow(c, m, t[0], t[1], t[2], who=p, people=1) for p, t in tests.items() if t is not None]
    return out


def _mcnemar_per_person(answers: pd.DataFrame, names: list[str], model: pd.Series,
                        model_rows: pd.DataFrame) -> dict[str, TestOutcome | None]:
    """:func:`_mcnemar_test` of each person in ``names`` against the model, from one condition's answers of
    everyone (``answers``): each person's rows are the same, in the same order, as a selection of that person's
    frame would give, without a frame made per person and condition (~0.4 ms each, 20 people x 2 models x every
    condition in a SORT comparison)."""
    who = answers["who"].to_numpy(dtype=object)
    units = answers["unit"].to_numpy(dtype=object)
    score = answers["score"].to_numpy()
    at = model.index.get_indexer(pd.Index(units)) if model.index.is_unique else None
    out: dict[str, TestOutcome | None] = {}
    for name in names:
        mine = np.flatnonzero(who == name)
        out[name] = _mcnemar_on(score[mine], units[mine], None if at is None else at[mine], model, model_rows)
    return out


def _crossed_test(design: Design, hp: pd.DataFrame, answers: pd.DataFrame, model: pd.Series,
                  model_rows: pd.DataFrame, condition: str, options: Options,
                  by_unit: Mapping[Hashable, float]) -> TestOutcome | None:
    """Pooled humans minus a model on the shared units, people x items (the design's unpaired test without any).
    ``by_unit``: ``model.to_dict()``, made once per model rather than once per condition."""
    if hp.empty:
        return None
    shared = on_shared_units(hp, model.index)
    if not len(shared):
        return _permutation_test(design, hp, model, model_rows, condition, options)
    labels, weights = design.strata(shared, condition)
    h = shared["score"].to_numpy(dtype=float)
    mv = model_scores(model, shared["unit"])
    on_shared = on_shared_units(answers, model.index)
    a_labels, a_weights = design.strata(on_shared, condition)
    res, _est = human_model_test(design.labels(on_shared, "who"), design.labels(on_shared, "unit"),
                                 on_shared["score"].to_numpy(dtype=float), by_unit, a_labels, a_weights,
                                 n_perm=options.n_boot, seed=options.seed, unit_word=design.unit_word)
    res = renamed(res, res.method + design.strata_note(condition))
    return stats.stratified_mean(h, labels, weights), stats.stratified_mean(mv, labels, weights), res


TestOutcome = tuple[float, float, stats.TestResult]  # humans' score, the model's score on the same units, result


def _permutation_test(design: Design, hp: pd.DataFrame, model: pd.Series, model_rows: pd.DataFrame,
                      condition: str, options: Options) -> TestOutcome | None:
    """Scores on shared units: stratified paired sign-flip test; without shared units an unpaired bootstrap."""
    if hp.empty:
        return None
    shared = on_shared_units(hp, model.index)
    if len(shared) >= 2:
        labels, weights = design.strata(shared, condition)
        h = shared["score"].to_numpy(dtype=float)
        mv = model_scores(model, shared["unit"])
        res = stats.paired_permutation_test(h, mv, labels, weights, n_boot=options.n_boot, seed=options.seed)
        # the interval printed beside the sign-flip p inverts that same test (a bootstrap interval could exclude
        # 0 beside p > .05); n/a, never zero width, when every difference is the same
        lo, hi = stats.sign_flip_interval(h - mv, labels, weights, n_perm=options.n_boot, seed=options.seed)
        ci = "interval by inverting the test" if lo == lo else "CI n/a: every difference the same, nothing to invert"
        res = stats.TestResult(f"{res.method} over shared {design.unit_word}{design.strata_note(condition)}",
                               res.estimate, max(-1.0, lo), min(1.0, hi), res.p_value, res.statistic, res.n,
                               f"{res.note.split('; CI')[0]}; {ci}")
        return stats.stratified_mean(h, labels, weights), stats.stratified_mean(mv, labels, weights), res
    if len(model_rows) < design.unpaired_min:
        return None
    # each side is the design's own (rebalanced) score, so "model" here is the accuracy table's number
    hl, hw = design.strata(hp, condition)
    ml, mw = design.strata(model_rows, condition)
    res = stats.unpaired_bootstrap(hp["score"].to_numpy(dtype=float), model_rows["score"].to_numpy(dtype=float),
                                   n_boot=options.n_boot, seed=options.seed, strata=(hl, hw, ml, mw))
    h_score = stats.stratified_mean(hp["score"].to_numpy(dtype=float), hl, hw)
    m_score = stats.stratified_mean(model_rows["score"].to_numpy(dtype=float), ml, mw)
    if res.ci_high - res.ci_low < 1e-12:  # every score equal on both sides: nothing to resample, not certainty
        res = stats.TestResult(res.method, res.estimate, math.nan, math.nan, res.p_value, res.statistic, res.n,
                               f"{res.note}; CI n/a: every score the same on both sides")
    label = design.unpaired_label
    if len(shared) == 1:  # one shared unit is too few to pair, but it is not "no shared" (the audit's case)
        label = label.replace(f"(no shared {design.unit_word})",
                              f"(one shared {design.unit_word.removesuffix('s')}: too few to pair)")
    return h_score, m_score, renamed(res, label)


def _mcnemar_test(design: Design, hp: pd.DataFrame, model: pd.Series, model_rows: pd.DataFrame,
                  condition: str, options: Options) -> TestOutcome | None:
    """Right/wrong on shared units: the paired score test (McNemar's statistic, Tango's interval inverting it);
    without shared units the Agresti-Caffo two-proportion test (its interval inverts it too)."""
    units = hp["unit"].to_numpy(dtype=object)
    at = model.index.get_indexer(pd.Index(units)) if model.index.is_unique else None
    return _mcnemar_on(hp["score"].to_numpy(), units, at, model, model_rows)


def _mcnemar_on(score: np.ndarray, units: np.ndarray, at: np.ndarray | None, model: pd.Series,
                model_rows: pd.DataFrame) -> TestOutcome | None:
    """:func:`_mcnemar_test` on one row's scores and units in one condition; ``at``: each unit's position in the
    model's (unique) index, -1 where the model lacks it, ``None`` when the index repeats labels."""
    if not len(score):
        return None
    on = at >= 0 if at is not None else pd.Series(units, dtype=object).isin(model.index).to_numpy(dtype=bool)
    if on.any():
        a = score.astype(bool)[on]
        b = (model.to_numpy()[at[on]] if at is not None else model.loc[units[on]].to_numpy()).astype(bool)
        return float(a.mean()), float(b.mean()), tango_test(a, b)
    if not len(model_rows):
        return None
    own = pd.Series(score)  # pandas' sum and mean, as the row's frame gave them
    res = stats.two_proportion_test(int(own.sum()), len(own), int(model_rows["score"].sum()), len(model_rows))
    return float(own.mean()), float(model_rows["score"].mean()), res


TESTS: dict[TestKind, Callable[[Design, pd.DataFrame, pd.Series, pd.DataFrame, str, Options], TestOutcome | None]] = {
    "permutation": _permutation_test, "mcnemar": _mcnemar_test}
