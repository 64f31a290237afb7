"""One humans-vs-models comparison pipeline; a benchmark declares only what differs (a :class:`Design`).

A benchmark adapter (:mod:`benchlab.data.worldsense.compare`, :mod:`benchlab.data.sort.compare`) reads its files
into :class:`Readings` (scored units of every participant and model, each participant's raw answers) and declares
a :class:`Design`: which conditions and strata there are, how a figure's CI is computed, which paired test compares
a row with a model, how the methods read. :func:`run_comparison` does the rest, the same way for every benchmark:
every participant's row (simulated ones labelled), the pooled humans (each unit once, scored as the mean over the
people who answered it), every model, CIs and counts, the tests with their method named, the per-participant
spread, attention flags, agreement between people and response-time summaries. So a new benchmark gets all of
that by declaring, and a fix here reaches every benchmark at once.

Units frames (``Readings.humans``, ``Readings.models``) have at least ``who`` (participant id or model name),
``unit`` (the paired-test unit: a WorldSense tuple, a SORT item; ``""`` when it cannot be identified) and
``score`` (the unit's score in [0, 1]), plus whatever columns the design's :meth:`Design.subset` and
:meth:`Design.strata` read.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.compare import POOLED, Comparison, Entry, TestRow, simulated_note
from benchlab.data.analysis.stats import Agreement, AttentionCriterion, FigureCell, RTBin, RTSummary, Spread
from benchlab.data.tables import Table

RowKind = Literal["participant", "humans", "model"]
Strata = tuple[list[Hashable] | None, dict[Hashable, float] | None]
TestKind = Literal["permutation", "mcnemar"]
OVERALL = "overall"


@dataclass(frozen=True)
class Participant:
    """One participant as the benchmark read them: who, whether simulated, and what the attention rule needs."""

    name: str
    #: answers, one row per answered item in presentation order: ``rt_ms`` (NaN if not recorded), ``correct``
    #: (bool, the per-item rule), ``group`` (the coarse stratum: problem, configuration), ``item`` (the key people
    #: share for agreement; None when it cannot be identified) and ``answer`` (the raw answer)
    answers: pd.DataFrame
    simulated: str = ""  # the simulation strategy of a pilot run ("" for a person)
    control: float | None = None  # accuracy on the control items of the attention criterion (None: none answered)
    flag_rts: np.ndarray = field(default_factory=lambda: np.empty(0))  # RTs the too-fast rule looks at


@dataclass(frozen=True)
class Readings:
    """Everything a benchmark read, in the pipeline's terms."""

    humans: pd.DataFrame  # the participants' scored units (see the module docstring)
    models: pd.DataFrame  # the models' scored units
    participants: list[Participant]  # in row order
    models_order: list[str]
    conditions: list[str]  # the columns of the tables (OVERALL first when there is more than one group)
    groups: list[str]  # the coarse strata (problems, configurations) of the RT summaries and agreement


@dataclass(frozen=True)
class Options:
    """The user's choices that every benchmark shares (CLI options of ``benchlab compare``)."""

    criterion: AttentionCriterion
    exclude_flagged: bool = False
    n_boot: int = stats.DEFAULT_BOOT
    seed: int = stats.DEFAULT_SEED
    rt_quantiles: int = 4
    participant_tests: bool = False
    include_simulated: bool = False


class Design(ABC):
    """What a benchmark declares: its conditions, strata, CIs, tests and methods text."""

    benchmark: str  # table titles
    unit: str  # what the counts count ("tuples", "trials")
    unit_word: str  # the paired unit in test names ("tuples", "items")
    pooled_test: TestKind = "permutation"
    participant_test: TestKind = "permutation"
    unpaired_label: str  # method name of the unpaired fallback when a row and a model share no unit
    unpaired_min: int = 1  # model units needed for the unpaired fallback
    pool_first: tuple[str, ...] = ()  # columns a pooled unit carries over from its first answer
    pool_means: tuple[str, ...] = ()  # columns averaged over people besides ``score``
    overall_agreement: str = OVERALL  # row name of agreement across groups
    overall_agreement_on_correctness: bool = False  # across groups compare right/wrong (answer sets differ)
    #: agreement over items in sorted order, else in the order first answered; kept per benchmark because the
    #: order of the items can move the last bit of a mean, and the printed tables must not change
    agreement_items_sorted: bool = False
    chance: float = 0.5  # the accuracy of guessing, drawn as a reference line (two options: 0.5)

    @abstractmethod
    def subset(self, frame: pd.DataFrame, condition: str) -> pd.DataFrame:
        """The units of ``frame`` in ``condition``."""

    @abstractmethod
    def strata(self, frame: pd.DataFrame, condition: str) -> Strata:
        """Stratum labels and weights of the score, the bootstrap and the paired test in ``condition``."""

    @abstractmethod
    def strata_note(self, condition: str) -> str:
        """What the paired test was stratified by, appended to its method name (``""``: not stratified)."""

    @abstractmethod
    def cell(self, kind: RowKind, name: str, frame: pd.DataFrame, condition: str,
             n_people: int) -> FigureCell | None:
        """Score and CI of row ``name`` (all its units: ``frame``) in ``condition``; None when it has none there."""

    @abstractmethod
    def notes(self, simulated_line: str) -> list[str]:
        """The methods table (``simulated_line`` says who was simulated and whether they were pooled)."""

    def participant_tests_in(self, condition: str) -> bool:
        """Whether each participant is tested against each model in ``condition`` (when asked for)."""
        return True

    def pooled_extra(self, units: pd.DataFrame) -> dict[str, object]:
        """Extra numbers of a pooled-humans cell (``units``: its pooled units, with ``people``), for the export."""
        return {}

    def extra_tables(self, rows: list[tuple[str, pd.DataFrame]],
                     labels: dict[str, str]) -> dict[str, tuple[Table, Table]]:
        """Benchmark-specific tables after the accuracy table, from every row's units."""
        return {}


def wilson_cell(values: np.ndarray, n_people: int) -> FigureCell:
    """The share of correct (1) values with its Wilson 95% CI: the figure of one person or model on its items."""
    k, n = int(values.sum()), len(values)
    lo, hi = stats.wilson_ci(k, n)
    return FigureCell(k / n, lo, hi, n, n_people, "Wilson")


def bootstrap_cell(values: np.ndarray, strata: Strata, n_people: int, method: str, options: Options,
                   extra: dict[str, object] | None = None) -> FigureCell:
    """The stratified mean with a percentile bootstrap CI (the default figure of a row)."""
    labels, weights = strata
    value = stats.stratified_mean(values, labels, weights)
    lo, hi = stats.bootstrap_ci(values, labels, weights, n_boot=options.n_boot, seed=options.seed)
    return FigureCell(value, lo, hi, len(values), n_people, method, extra or {})


def renamed(res: stats.TestResult, method: str) -> stats.TestResult:
    return stats.TestResult(method, res.estimate, res.ci_low, res.ci_high, res.p_value, res.statistic, res.n,
                            res.note)


def identified(frame: pd.DataFrame) -> pd.DataFrame:
    """Units with an identity, each (row, unit) once (the first answer): what pooling and pairing use."""
    known = frame[frame["unit"].astype(str) != ""]
    return known.drop_duplicates(["who", "unit"], keep="first")


def pool(rows: pd.DataFrame, design: Design) -> pd.DataFrame:
    """One row per unit: the mean score over the people who answered it, and how many they were (``people``)."""
    columns = ["unit", *design.pool_first, "score", *design.pool_means, "people"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    how = {c: (c, "first") for c in design.pool_first} | {c: (c, "mean") for c in ("score", *design.pool_means)}
    return rows.groupby("unit", sort=False).agg(**how, people=("who", "nunique")).reset_index()[columns]


def run_comparison(design: Design, readings: Readings, options: Options) -> Comparison:
    """Every row, the pooled humans, every model, tests, spread, flags, RTs and agreement, for one benchmark."""
    people = readings.participants
    flags = {p.name: tuple(options.criterion.reasons(p.control, p.flag_rts)) for p in people}
    simulated = {p.name: p.simulated for p in people}
    poolable = [p.name for p in people if options.include_simulated or not p.simulated]
    pooled_rows = identified(readings.humans[readings.humans["who"].isin(
        [p for p in poolable if not (options.exclude_flagged and flags[p])])])
    pooled = pool(pooled_rows, design)
    rows = _rows(readings, pooled)
    entries = [Entry(p.name, "participant", flags[p.name], p.simulated) for p in people]
    entries += [Entry(POOLED, "humans")] if not pooled.empty else []
    entries += [Entry(m, "model") for m in readings.models_order]
    cells = _cells(design, readings.conditions, rows, pooled_rows, options)
    rt, rt_bins, rts_ms = _response_times(readings, options.rt_quantiles)
    return Comparison(
        benchmark=design.benchmark, unit=design.unit, conditions=readings.conditions, entries=entries, cells=cells,
        tests=_tests(design, readings, pooled, options), spread=_spread(readings.conditions, poolable, cells),
        rt=rt, rt_quantiles=rt_bins, rts_ms=rts_ms, agreement=_agreement(design, readings, set(poolable)),
        rts_by_group=_rts_by_group(readings),
        notes=design.notes(simulated_note(simulated, options.include_simulated)),
        extra_tables=design.extra_tables([(n, f) for _k, n, f in rows], {e.name: e.label for e in entries}),
        pooled_simulated=options.include_simulated, chance=design.chance,
    )


def _rows(readings: Readings, pooled: pd.DataFrame) -> list[tuple[RowKind, str, pd.DataFrame]]:
    """Every row of the tables with its units, in table order."""
    humans, models = readings.humans, readings.models
    out: list[tuple[RowKind, str, pd.DataFrame]] = [
        ("participant", p.name, humans[humans["who"] == p.name]) for p in readings.participants]
    out += [("humans", POOLED, pooled)] if not pooled.empty else []
    out += [("model", m, models[models["who"] == m]) for m in readings.models_order]
    return out


def _cells(design: Design, conditions: list[str], rows: list[tuple[RowKind, str, pd.DataFrame]],
           pooled_rows: pd.DataFrame, options: Options) -> dict[tuple[str, str], FigureCell]:
    cells: dict[tuple[str, str], FigureCell] = {}
    for kind, name, frame in rows:
        for c in conditions:
            if kind == "humans":
                n_people = int(design.subset(pooled_rows, c)["who"].nunique())
            else:
                n_people = 1 if kind == "participant" else 0
            cell = design.cell(kind, name, frame, c, n_people)
            if cell is None:
                continue
            if kind == "humans":
                cell.extra.update(design.pooled_extra(design.subset(frame, c)))
            cells[(name, c)] = cell
    return cells


def _tests(design: Design, readings: Readings, pooled: pd.DataFrame, options: Options) -> list[TestRow]:
    """Pooled humans (then each participant, when asked) against every model, per condition."""
    humans = identified(readings.humans)
    mine = {p.name: humans[humans["who"] == p.name] for p in readings.participants}
    out: list[TestRow] = []
    for m in readings.models_order:
        everything = readings.models[readings.models["who"] == m]
        paired = identified(everything).set_index("unit")["score"]
        for c in readings.conditions:
            groups = [(POOLED, pooled, design.pooled_test)] if not pooled.empty else []
            if options.participant_tests and design.participant_tests_in(c):
                groups += [(p, rows, design.participant_test) for p, rows in mine.items()]
            model_rows = design.subset(everything, c)
            for who, rows, kind in groups:
                test = TESTS[kind](design, design.subset(rows, c), paired, model_rows, c, options)
                if test is not None:
                    out.append(TestRow(c, m, test[0], test[1], test[2], who=who))
    return out


TestOutcome = tuple[float, float, stats.TestResult]  # humans' score, the model's score on the same units, result


def _permutation_test(design: Design, hp: pd.DataFrame, model: pd.Series, model_rows: pd.DataFrame,
                      condition: str, options: Options) -> TestOutcome | None:
    """Scores on shared units: stratified paired sign-flip test; without shared units an unpaired bootstrap."""
    if hp.empty:
        return None
    shared = hp[hp["unit"].isin(model.index)]
    if len(shared) >= 2:
        labels, weights = design.strata(shared, condition)
        h = shared["score"].to_numpy(dtype=float)
        mv = model.loc[shared["unit"]].to_numpy(dtype=float)
        res = stats.paired_permutation_test(h, mv, labels, weights, n_boot=options.n_boot, seed=options.seed)
        res = renamed(res, f"{res.method} over shared {design.unit_word}{design.strata_note(condition)}")
        return stats.stratified_mean(h, labels, weights), stats.stratified_mean(mv, labels, weights), res
    if len(model_rows) < design.unpaired_min:
        return None
    res = stats.unpaired_bootstrap(hp["score"].to_numpy(dtype=float), model_rows["score"].to_numpy(dtype=float),
                                   n_boot=options.n_boot, seed=options.seed)
    return float(hp["score"].mean()), float(model_rows["score"].mean()), renamed(res, design.unpaired_label)


def _mcnemar_test(design: Design, hp: pd.DataFrame, model: pd.Series, model_rows: pd.DataFrame,
                  condition: str, options: Options) -> TestOutcome | None:
    """Right/wrong on shared units: McNemar; without shared units a two-proportion z test."""
    if hp.empty:
        return None
    shared = hp[hp["unit"].isin(model.index)]
    if len(shared):
        a = shared["score"].to_numpy(dtype=bool)
        b = model.loc[shared["unit"]].to_numpy(dtype=bool)
        return float(a.mean()), float(b.mean()), stats.mcnemar_test(a, b)
    if not len(model_rows):
        return None
    res = stats.two_proportion_test(int(hp["score"].sum()), len(hp), int(model_rows["score"].sum()),
                                    len(model_rows))
    return float(hp["score"].mean()), float(model_rows["score"].mean()), res


TESTS: dict[TestKind, Callable[[Design, pd.DataFrame, pd.Series, pd.DataFrame, str, Options], TestOutcome | None]] = {
    "permutation": _permutation_test, "mcnemar": _mcnemar_test}


def _spread(conditions: list[str], people: list[str], cells: dict[tuple[str, str], FigureCell]) -> dict[str, Spread]:
    """Min / median / max over the people who may be pooled (flagged ones included), per condition."""
    out = {}
    for c in conditions:
        vals = [cells[(p, c)].value for p in people if (p, c) in cells]
        if vals:
            out[c] = stats.spread(vals)
    return out


def _response_times(readings: Readings, quantiles: int) -> tuple[list[tuple[str, str, RTSummary]],
                                                                 dict[str, list[RTBin]], dict[str, list[float]]]:
    """Per participant: RT median/IQR overall and per group, item accuracy by RT quantile, the raw RTs."""
    rows: list[tuple[str, str, RTSummary]] = []
    bins: dict[str, list[RTBin]] = {}
    raw: dict[str, list[float]] = {}
    for p in readings.participants:
        rts = p.answers["rt_ms"].to_numpy(dtype=float)
        raw[p.name] = [float(x) for x in rts if not np.isnan(x)]
        if not np.isfinite(rts).any():
            continue
        if len(readings.groups) > 1:
            rows.append((p.name, OVERALL, stats.rt_summary(rts)))
        group = p.answers["group"].to_numpy(dtype=object)
        for g in readings.groups:
            mask = group == g
            if mask.any():
                rows.append((p.name, g, stats.rt_summary(rts[mask])))
        bins[p.name] = stats.accuracy_by_rt_quantile(rts, p.answers["correct"].to_numpy(dtype=bool), quantiles)
    return rows, bins, raw


def _rts_by_group(readings: Readings) -> dict[str, dict[str, list[float]]]:
    """Every participant's recorded RTs per group, for figures that keep conditions apart."""
    out: dict[str, dict[str, list[float]]] = {}
    for p in readings.participants:
        rts = p.answers["rt_ms"].to_numpy(dtype=float)
        group = p.answers["group"].to_numpy(dtype=object)
        for g in readings.groups:
            vals = [float(x) for x in rts[group == g] if not np.isnan(x)]
            if vals:
                out.setdefault(p.name, {})[str(g)] = vals
    return out


def _agreement(design: Design, readings: Readings, people: set[str]) -> dict[str, Agreement]:
    """Agreement on items answered by two or more people (first answers; simulated ones only when pooled)."""
    answers: dict[Hashable, list[str]] = {}
    right: dict[Hashable, list[bool]] = {}
    group_of: dict[Hashable, object] = {}
    for p in readings.participants:
        if p.name not in people:
            continue  # a simulated participant's answers are no evidence of agreement between people
        seen: set[Hashable] = set()
        a = p.answers
        for item, answer, ok, group in zip(a["item"], a["answer"], a["correct"], a["group"], strict=True):
            if item is None or item in seen:
                continue
            seen.add(item)
            answers.setdefault(item, []).append(answer)
            right.setdefault(item, []).append(bool(ok))
            group_of.setdefault(item, group)
    multi = [k for k, v in answers.items() if len(v) >= 2]
    if design.agreement_items_sorted:
        multi = sorted(multi, key=str)
    out: dict[str, Agreement] = {}
    if not multi:
        return out
    if len(readings.groups) > 1:
        if design.overall_agreement_on_correctness:
            out[design.overall_agreement] = stats.agreement([right[k] for k in multi])
        else:
            out[design.overall_agreement] = stats.agreement([answers[k] for k in multi])
    for g in readings.groups:
        in_group = [answers[k] for k in multi if group_of[k] == g]
        if in_group:
            out[g] = stats.agreement(in_group)
    return out
