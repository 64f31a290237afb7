"""What a benchmark declares for the shared comparison pipeline (:mod:`benchlab.data.analysis.pipeline`): its
:class:`Design`, the :class:`Readings` of its files, the :class:`Options` of a run, and the helpers a design uses to
make a figure cell (:func:`wilson_cell`, :func:`bootstrap_cell`) and to pool people's answers per unit.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

import numpy as np
import pandas as pd

from benchlab.data.analysis import stats
from benchlab.data.analysis.family import Correction
from benchlab.data.analysis.stats import FigureCell
from benchlab.data.tables import Table

if TYPE_CHECKING:  # a field's type: the RT module loads when the criterion is made
    from benchlab.data.analysis.stats import AttentionCriterion

T = TypeVar("T")

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
    participants: Sequence[Participant]  # in row order (a :class:`Later` builds them when first read)
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
    correction: Correction = "holm"  # of the primary family (see :mod:`benchlab.data.analysis.family`)
    #: participants left out of the pooled humans by declared exclusion rules, with their reasons (always
    #: excluded, whatever ``exclude_flagged``; :mod:`benchlab.annotations.exclusions` decides who)
    excluded: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: the tables that will be printed (``--only``); ``None``: all. Work for the others is skipped, so
    #: ``--only accuracy`` does not pay for the tests, agreement or bias tables; printed numbers are the same
    tables: frozenset[str] | None = None


class Later(Sequence[T]):
    """A list made when it is first read: an adapter's participants, built after the pipeline has handed the
    models' intervals to a helper process (:meth:`Design.ask_ahead`), so that the helper starts sooner."""

    def __init__(self, make: Callable[[], list[T]]) -> None:
        self._make: Callable[[], list[T]] | None = make
        self._items: list[T] = []

    def _list(self) -> list[T]:
        if self._make is not None:
            self._items, self._make = self._make(), None
        return self._items

    def __getitem__(self, index: int) -> T:  # type: ignore[override]  # (slices are not needed here)
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __iter__(self) -> Iterator[T]:
        return iter(self._list())


class FrameMemo(Generic[T]):
    """Values computed once per (frame, condition): a comparison asks for the same subset or strata of the same
    row many times (cells, partial rows, tests, extra tables), and each pandas selection costs ~1 ms. The entry
    holds the frame itself, so an ``id`` reused by a later frame is never taken for it."""

    def __init__(self) -> None:
        self._hits: dict[tuple[int, str], tuple[pd.DataFrame, T]] = {}

    def get(self, frame: pd.DataFrame, condition: str, compute: Callable[[pd.DataFrame, str], T]) -> T:
        key = (id(frame), condition)
        hit = self._hits.get(key)
        if hit is None or hit[0] is not frame:
            hit = self._hits[key] = (frame, compute(frame, condition))
        return hit[1]


class RowsWhere:
    """The rows of a frame where one column equals a value, from one grouping of that column per frame.

    A boolean mask per condition selects the same rows (same order, same index, same columns) as taking them at
    the positions the grouping found, but each mask costs a comparison over the whole column; a comparison asks
    for every row's frame in every condition. A value the column does not hold goes through the mask (its own
    empty frame).
    """

    def __init__(self) -> None:
        self._positions: FrameMemo[dict[Hashable, np.ndarray]] = FrameMemo()

    def __call__(self, frame: pd.DataFrame, column: str, value: Hashable) -> pd.DataFrame:
        at = self._positions.get(frame, column, _positions).get(value)
        return frame[frame[column] == value] if at is None else frame.take(at)


def _positions(frame: pd.DataFrame, column: str) -> dict[Hashable, np.ndarray]:
    """``frame.groupby(column, observed=True, sort=False).indices`` (each value's row positions, ascending; missing
    values left out) from the column's codes with numpy: ~0.4 ms instead of ~0.6-1.5 ms on a lab's 4k answers
    for the few-valued columns rows and conditions are picked by (who, problem, configuration)."""
    codes, uniques = pd.factorize(frame[column], sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))  # missing values (code -1) come first
    return {uniques[i]: order[bounds[i]:bounds[i + 1]] for i in range(len(uniques))}


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
    #: pooled humans: CI and tests over people x items (:mod:`benchlab.data.analysis.crossed`); a design turns it
    #: off only for a user's explicit choice of the benchmark's own formula (a ``--ci benchmark`` option)
    pooled_crossed: bool = True
    #: one answerer's interval replaced by Wilson (Kish n) where it has zero width; off only with the same choice
    honest_cells: bool = True

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

    def primary_conditions(self, conditions: list[str]) -> list[str]:
        """Where the primary contrast is tested (pooled humans vs each model): the overall score, declared before
        the data. Default: the ``overall`` column(s), else the only group there is (the first column)."""
        overall = [c for c in conditions if c == OVERALL or c.endswith(" " + OVERALL)]
        return overall or conditions[:1]

    def participant_tests_in(self, condition: str) -> bool:
        """Whether each participant is tested against each model in ``condition`` (when asked for)."""
        return True

    def interval_replaced(self, kind: RowKind) -> bool:
        """Whether the pipeline replaces the interval of a ``kind`` row's cell by its own method (pooled humans:
        crossed people x items; a participant: Wilson-Kish), so :meth:`cell` need not bootstrap one."""
        return (kind == "humans" and self.pooled_crossed) or (kind == "participant" and self.honest_cells)

    def labels(self, frame: pd.DataFrame, column: str) -> np.ndarray:
        """``frame[column]`` as a read-only object array, once per frame and column: the pooled cell, the test
        against every model and a crossed extra table all pass the same condition's people and units to
        :mod:`benchlab.data.analysis.crossed`, which codes a read-only array once."""
        memo: FrameMemo[np.ndarray] | None = self.__dict__.get("_labels_memo")
        if memo is None:  # made on first use: the designs' own ``__init__`` need not call one here
            memo = self.__dict__["_labels_memo"] = FrameMemo()
        return memo.get(frame, column, _read_only_labels)

    def ask_ahead(self, models: list[tuple[str, pd.DataFrame]], conditions: list[str], extra: bool) -> None:
        """Ask once for the bootstrap intervals of the models' rows: their cells, and the extra tables' too when
        ``extra``. The pipeline calls it first when a helper process draws intervals ahead
        (:mod:`benchlab.data.analysis.stats.intervals_ahead`), and throws the figures away; the real pass then
        finds the intervals drawn while it computed the people's rows (it reads the extra tables' before the
        models' cells: ask in that order). Default: nothing is asked ahead; a design
        whose :meth:`cell` only reads its arguments (memoised selections aside) calls :func:`ask_cells_ahead`."""
        return None

    def pooled_extra(self, units: pd.DataFrame) -> dict[str, object]:
        """Extra numbers of a pooled-humans cell (``units``: its pooled units, with ``people``), for the export."""
        return {}

    def extra_tables(self, rows: list[tuple[str, pd.DataFrame]],
                     labels: dict[str, str]) -> dict[str, tuple[Table, Table]]:
        """Benchmark-specific tables after the accuracy table, from every row's units."""
        return {}

    def extra_tables_with_answers(self, rows: list[tuple[str, pd.DataFrame]], labels: dict[str, str],
                                  pooled_answers: pd.DataFrame) -> dict[str, tuple[Table, Table]]:
        """:meth:`extra_tables` for a design whose pooled figures need each person's answers (``pooled_answers``:
        the pooled people's units, one row per person and unit), e.g. a pooled interval crossed people x items."""
        return self.extra_tables(rows, labels)


def _read_only_labels(frame: pd.DataFrame, column: str) -> np.ndarray:
    labels = frame[column].to_numpy(dtype=object, copy=True)
    labels.flags.writeable = False
    return labels


def ask_cells_ahead(design: Design, models: list[tuple[str, pd.DataFrame]], conditions: list[str]) -> None:
    """Every model's cell in every condition, once (:meth:`Design.ask_ahead`: the intervals are what is wanted)."""
    for name, frame in models:
        for condition in conditions:
            design.cell("model", name, frame, condition, 0)


def narrowed(readings: Readings, columns: tuple[str, ...]) -> Readings:
    """``readings`` with the units frames cut to ``columns`` (those present, in frame order), for a benchmark
    whose frames carry columns the pipeline never reads: each selection of a row's units in a condition copies
    every column, so the figures are the same and come quicker."""
    def cut(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame[[c for c in frame.columns if c in columns]]
        texts = [c for c in out.columns if isinstance(out[c].dtype, pd.StringDtype)]
        return out.astype(dict.fromkeys(texts, object)) if texts else out
    return replace(readings, humans=cut(readings.humans), models=cut(readings.models))


def wilson_cell(values: np.ndarray, n_people: int) -> FigureCell:
    """The share of correct (1) values with its Wilson 95% CI: the figure of one person or model on its items."""
    k, n = int(values.sum()), len(values)
    lo, hi = stats.wilson_ci(k, n)
    return FigureCell(k / n, lo, hi, n, n_people, "Wilson")


def bootstrap_cell(values: np.ndarray, strata: Strata, n_people: int, method: str, options: Options,
                   extra: dict[str, object] | None = None, interval: bool = True) -> FigureCell:
    """The stratified mean with a percentile bootstrap CI (the default figure of a row).

    ``interval=False`` leaves the CI out (nan) where the pipeline replaces it anyway
    (:meth:`Design.interval_replaced`): the bootstrap was most of ``compare``'s time and every participant's
    was thrown away.
    """
    labels, weights = strata
    value = stats.stratified_mean(values, labels, weights)
    lo, hi = (stats.bootstrap_ci(values, labels, weights, n_boot=options.n_boot, seed=options.seed) if interval
              else (math.nan, math.nan))
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
