"""WorldSense scoring, shared by models and humans: the original ``analyse_results.py`` tables, reproduced.

Algorithm (spec sections 6-8): each tuple (all trials sharing ``tuple_ID``, one per possible gold answer) becomes
one accuracy and one bias value, weighted so each tuple is answer-balanced; cells (problem x size) are then
averaged with equal weight, sizes first, then problems, with pooled second moments for the standard error, and
cells print as ``"value (1.96 * sem)"``. Cell statistics are bit-identical to pandas' (``cellstats.py``), and the
collapsing steps use the same pandas operations in the same order as the original, so the formatted cells are
identical, ``-0.00`` and ``(nan)`` included. Data is reduced with numpy before pandas is even imported, which
keeps time and peak memory low on the full test set.

Where the original fails silently (spec section 10) this scorer says what it did, as one warning line each:
a model name under two promptings is scored per (prompting, model) instead of being dropped, duplicate Keys keep
their first answer, incomplete tuples are counted and left out, answers outside the options are counted, Keys not
in the test set are counted (and a file with no known Key at all is refused), and cells with a single tuple are
named because their CI prints as ``nan``. ``resp`` is read as a string, so all-numeric answers score correctly.

The steps: reading and checking here, tuple scores in :mod:`benchlab.data.worldsense.tuple_scores`, the collapsed
and formatted tables in :mod:`benchlab.data.worldsense.score_tables` (pandas frames) or, for the printed table
text of ``score worldsense``, :mod:`benchlab.data.worldsense.plain_tables` (the same text without pandas).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from benchlab.data.errors import BenchlabError
from benchlab.data.tables import Table
from benchlab.data.worldsense.columns import ResultColumns, TrialColumns, read_trial_columns, trial_columns
from benchlab.data.worldsense.plain_tables import plain_tables_text
from benchlab.data.worldsense.result_columns import read_result_columns
from benchlab.data.worldsense.results import find_results
from benchlab.data.worldsense.score_tables import pivot_cells, stats_by_group
from benchlab.data.worldsense.tuple_scores import (
    TupleScores,
    frame_of_cells,
    small_unique,
    tuple_cell_counts,
    tuple_cells,
    tuple_scores,
)

if TYPE_CHECKING:  # pandas is imported only once the data is reduced to cells (see cellstats.py)
    import pandas as pd

    from benchlab.data.tables import Table
    from benchlab.data.worldsense.records import ResultLine, Trial

OVERALL_TITLE = "AVERAGE ACCURACY ACROSS ALL PROBLEMS (with 95% confidence interval)"
ACCURACY_TITLE = "ACCURACY for each of the problems  (with 95% confidence interval)"
BIAS_TITLE = "BIAS for each of the problems (with 95% confidence interval)"

ResultsInput = Union[  # noqa: UP007 (a runtime alias; ResultLine is imported for type checking only)
    Sequence[ResultColumns], Mapping[tuple[str, str], Iterable["ResultLine"]], str, Path
]


@dataclass
class WorldSenseTables:
    """Scores of every (prompting, model): numeric statistics, formatted tables and what was left out.

    ``overall`` is indexed by (prompting, modelname), ``accuracy`` by (prompting, modelname, problemname),
    ``bias`` by (prompting, problemname, modelname); each has mean, sem, count, var, std and conf95 (= 1.96 sem).
    ``tuples`` has one row per scored tuple (acc, bias). ``overall`` is ``None`` when only one problem is present,
    as in the original, which then prints no overall table.
    """

    overall: pd.DataFrame | None
    accuracy: pd.DataFrame
    bias: pd.DataFrame
    tuples: pd.DataFrame
    warnings: list[str] = field(default_factory=list)

    def overall_table(self) -> pd.DataFrame | None:
        if self.overall is None:
            return None
        return pivot_cells(self.overall, index=["modelname"], columns="prompting", scale=100.0)

    def accuracy_table(self) -> pd.DataFrame:
        return pivot_cells(self.accuracy, index=["prompting", "modelname"], columns="problemname", scale=100.0)

    def bias_table(self) -> pd.DataFrame:
        return pivot_cells(self.bias, index=["prompting", "modelname"], columns="problemname", scale=1.0)

    def tables(self) -> list[Table]:
        """The original's three tables (two when one problem only), cells as ``"value (CI)"`` strings."""
        out: list[Table] = []
        overall = self.overall_table()
        if overall is not None:
            out.append(Table(OVERALL_TITLE, overall))
        out.append(Table(ACCURACY_TITLE, self.accuracy_table()))
        out.append(Table(BIAS_TITLE, self.bias_table()))
        return out


# --------------------------------------------------------------------------------------------- entry points


def score_testset_dir(
    testset_dir: str | Path, results_dirs: Sequence[str | Path] | None = None, *, cache: bool = True
) -> WorldSenseTables:
    """Score every results file under ``<testset_dir>/results`` (or ``results_dirs``), like the original script."""
    dirs = [Path(d) for d in results_dirs] if results_dirs else [Path(testset_dir) / "results"]
    return score_worldsense(read_trial_columns(testset_dir, cache=cache), load_results_dirs(dirs, cache=cache))


def load_results_dirs(dirs: Sequence[Path], *, cache: bool = True) -> list[ResultColumns]:
    """Read every results file found (recursively) in ``dirs``; refuses a folder with none."""
    loaded: list[ResultColumns] = []
    for folder in dirs:
        files = find_results(folder)
        if not files:
            raise BenchlabError(
                "no results files here (expected <prompting>___<modelname>___results.jsonl, searched recursively)",
                folder,
            )
        loaded.extend(read_result_columns(f.path, f.prompting, f.modelname, cache=cache) for f in files)
    return loaded


def score_worldsense(
    trials: TrialColumns | Sequence[Trial] | str | Path,
    results: ResultsInput,
    *,
    on_warning: Callable[[str], None] | None = None,
    same_items: bool = False,
) -> WorldSenseTables:
    """Score results against a test set.

    ``same_items``: when the results hold people (``human*`` model names) and models, each model is scored on the
    tuples people completed only (:mod:`benchlab.data.worldsense.same_tuples`; ``score worldsense`` does so unless
    ``--all-items``); what was left out on each side is a warning.

    ``trials``: the scoring view, loaded :class:`Trial` records, or a test-set folder/file. ``results``: read
    results files, a mapping ``{(prompting, modelname): result lines}`` (e.g. a live session), or a results folder.
    Warnings are returned in ``.warnings`` (and passed to ``on_warning`` as they arise).
    """
    return _tables_of(_reduce(trials, results, on_warning, same_items))


def score_text(
    trials: TrialColumns | Sequence[Trial] | str | Path,
    results: ResultsInput,
    fmt: str,
    *,
    on_warning: Callable[[str], None] | None = None,
    same_items: bool = False,
) -> tuple[str, list[str]]:
    """The tables of :func:`score_worldsense` rendered in ``fmt`` and the warnings; the table format is laid out
    without pandas (:mod:`benchlab.data.worldsense.plain_tables`) unless a label needs pandas' own printing."""
    reduced = _reduce(trials, results, on_warning, same_items)
    if fmt == "table":
        text = plain_tables_text(reduced.cells, (OVERALL_TITLE, ACCURACY_TITLE, BIAS_TITLE))
        if text is not None:
            return text, reduced.warnings
    # deferred: pandas (through render) loads only for the other formats and for labels plain_tables declines
    from benchlab.data.tables import render

    tables = _tables_of(reduced)
    return render(tables.tables(), fmt), tables.warnings


def scored_tuples(
    trials: TrialColumns | Sequence[Trial] | str | Path,
    results: ResultsInput,
    *,
    on_warning: Callable[[str], None] | None = None,
    same_items: bool = False,
) -> tuple[pd.DataFrame, list[str]]:
    """:func:`score_worldsense`'s ``tuples`` and ``warnings`` alone, the same rows and the same warnings: what a
    comparison uses. Why apart: the three statistics tables (overall, per problem, bias) cost ~0.1 s on the full
    test set and a comparison computes its own."""
    scored, warnings = reduced_tuples(trials, results, on_warning=on_warning, same_items=same_items)
    return scored.frame(), warnings


def reduced_tuples(
    trials: TrialColumns | Sequence[Trial] | str | Path,
    results: ResultsInput,
    *,
    on_warning: Callable[[str], None] | None = None,
    same_items: bool = False,
) -> tuple[TupleScores, list[str]]:
    """:func:`scored_tuples` before its table is made: numpy arrays, no pandas (a helper process computes them
    while a comparison loads pandas, :mod:`benchlab.data.worldsense.compare_inputs`)."""
    reduced = _reduce(trials, results, on_warning, same_items, tuple_cell_counts)
    return reduced.scored, reduced.warnings


@dataclass
class _Reduced:
    """The answers reduced to tuple scores and per-cell statistics, with the warnings given on the way."""

    scored: TupleScores
    cells: dict[str, list[Any]]
    warnings: list[str]


def _reduce(
    trials: TrialColumns | Sequence[Trial] | str | Path,
    results: ResultsInput,
    on_warning: Callable[[str], None] | None,
    same_items: bool,
    cells_of: Callable[[TupleScores], dict[str, list[Any]]] = tuple_cells,
) -> _Reduced:
    """The answers reduced to tuple scores and their cells (``cells_of``: with the statistics the tables need, or
    the counts the warnings need), with the warnings given as they arise."""
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        if on_warning is not None:
            on_warning(message)

    table = _as_trial_columns(trials)
    files = _as_result_columns(results)
    if not files:
        raise BenchlabError("no results to score")
    _check_names(files, warn)
    scored = tuple_scores(table, files, warn)
    if same_items:
        # deferred: the people/model matching (and the model-run readers it shares, with pydantic) loads only for
        # results that hold people
        from benchlab.data.worldsense.same_tuples import restrict_to_people_tuples

        scored = restrict_to_people_tuples(scored, warn)
    del files, results  # the answers are reduced to tuple scores; free them before pandas is loaded
    if scored.n == 0:
        raise BenchlabError(
            "no complete tuple to score: every trial of a tuple needs an answer (see the warnings above)"
        )
    cells = cells_of(scored)
    _warn_cells(cells, table, warn)
    return _Reduced(scored, cells, warnings)


def _tables_of(reduced: _Reduced) -> WorldSenseTables:
    """The numeric and formatted tables (pandas), from the reduced scores."""
    cells = reduced.cells
    cells_frame = frame_of_cells(cells)
    tuples = reduced.scored.frame()
    overall = None
    if len(set(cells["problemname"])) > 1:
        overall = stats_by_group(tuples, ["prompting", "modelname"], "acc", cells_frame)
    accuracy = stats_by_group(tuples, ["prompting", "modelname", "problemname"], "acc", cells_frame)
    bias = stats_by_group(tuples, ["prompting", "problemname", "modelname"], "bias", cells_frame)
    return WorldSenseTables(overall=overall, accuracy=accuracy, bias=bias, tuples=tuples, warnings=reduced.warnings)


def _as_trial_columns(trials: TrialColumns | Sequence[Trial] | str | Path) -> TrialColumns:
    if isinstance(trials, TrialColumns):
        return trials
    if isinstance(trials, str | Path):
        return read_trial_columns(trials)
    return trial_columns(list(trials))


def _as_result_columns(results: ResultsInput) -> list[ResultColumns]:
    if isinstance(results, str | Path):
        return load_results_dirs([Path(results)])
    if isinstance(results, Mapping):
        out = []
        for (prompting, modelname), lines in results.items():
            lines = list(lines)
            out.append(ResultColumns.from_pairs(prompting, modelname, [ln.Key for ln in lines],
                                                [ln.resp for ln in lines]))
        return out
    return list(results)


# --------------------------------------------------------------------------------------------- checks


def _check_names(files: Sequence[ResultColumns], warn: Callable[[str], None]) -> None:
    seen: dict[tuple[str, str], ResultColumns] = {}
    promptings: dict[str, list[str]] = {}
    for f in files:
        key = (f.prompting, f.modelname)
        if key in seen:
            raise BenchlabError(
                f"two results files for prompting {f.prompting!r} and model {f.modelname!r} "
                f"(the other is {seen[key].label}); merge them or rename one",
                f.source,
            )
        seen[key] = f
        promptings.setdefault(f.modelname, []).append(f.prompting)
        for note in f.notes:
            warn(f"{f.label}: {note}")
    for model, names in promptings.items():
        if len(names) > 1:
            warn(
                f"model {model!r} appears under {len(names)} promptings ({', '.join(sorted(names))}): each is scored "
                "separately (the original analyse_results.py would drop all of its tuples)"
            )


def _problem_sizes(table: TrialColumns) -> list[tuple[int, int]]:
    """The distinct (problem code, size) pairs of the test set's trials (87k of them in the full test set), from
    one count over the combined codes rather than a Python set of pairs."""
    codes = np.asarray(table.problem_code, dtype=np.int64)
    sizes = np.asarray(table.size)
    if not codes.size or sizes.dtype.kind not in "iu":
        return sorted(set(zip(codes.tolist(), map(int, sizes.tolist()), strict=True)))
    low = int(sizes.min())
    width = int(sizes.max()) - low + 1
    pairs, _rows = small_unique(codes * width + (sizes.astype(np.int64) - low))
    return [(int(k // width), int(k % width) + low) for k in pairs.tolist()]


def _warn_cells(cells: dict[str, list], table: TrialColumns, warn: Callable[[str], None]) -> None:
    """Name the cells that make a CI undefined and the sizes that silently drop out of a problem's average."""
    keys = list(zip(cells["prompting"], cells["modelname"], cells["problemname"], cells["problemsize"], strict=True))
    single = [k for k, n in zip(keys, cells["count"], strict=True) if n == 1]
    if single:
        p, m, prob, size = single[0]
        warn(
            f"{len(single)} (problem, size) cell(s) hold a single tuple (e.g. {p}/{m} {prob} size {size}): "
            "their variance is undefined, so confidence intervals involving them print as nan"
        )
    sizes_in_test: dict[str, set[int]] = {}
    for code, size in _problem_sizes(table):
        sizes_in_test.setdefault(table.problem_names[code], set()).add(size)
    present: dict[tuple[str, str, str], set[int]] = {}
    for p, m, prob, size in keys:
        present.setdefault((p, m, prob), set()).add(int(size))
    for (p, m, prob), sizes in present.items():
        missing = sorted(sizes_in_test.get(prob, set()) - sizes)
        if missing:
            warn(
                f"{p}/{m} {prob}: no complete tuple of size {', '.join(map(str, missing))}, so its average covers "
                f"sizes {', '.join(map(str, sorted(sizes)))} only"
            )
