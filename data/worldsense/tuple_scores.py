"""WorldSense's tuple scores: each tuple's first answers reduced (with numpy) to one accuracy and one bias value,
answer-balanced, and the per-cell (problem x size) statistics computed from them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.cellstats import GroupStats, group_stats
from benchlab.data.worldsense.columns import ResultColumns, TrialColumns
from benchlab.data.worldsense.rules import ANSWER_CLASS, BIAS_SIGN, GOLD_WEIGHT
from benchlab.data.worldsense.score_tables import CELL_KEYS, CELL_STATS
from benchlab.data.worldsense.tuple_cache import kept_file_scores

if TYPE_CHECKING:  # pandas is imported only once the data is reduced to cells (see cellstats.py)
    import pandas as pd


@dataclass
class TupleScores:
    """One entry per scored tuple, in the original's row order (file by file, tuples in trial-file order)."""

    promptings: list[str]
    models: list[str]
    tuple_names: list[str]
    problem_names: list[str]
    file: np.ndarray
    tuple_code: np.ndarray
    problem_code: np.ndarray
    size: np.ndarray
    acc: np.ndarray
    bias: np.ndarray

    @property
    def n(self) -> int:
        return len(self.acc)

    def frame(self) -> pd.DataFrame:
        """The public per-tuple table; names are categoricals whose sorted categories group like the strings."""
        # deferred: pandas loads only when `frame` runs (data.worldsense.scoring loads this module without it)
        import pandas as pd

        def categorical(codes: np.ndarray, names: list[str]) -> Any:
            ordered = sorted(set(names))
            rank = np.array([ordered.index(n) for n in names], dtype=np.int64)
            return pd.Categorical.from_codes(rank[codes], dtype=pd.CategoricalDtype(pd.Index(ordered, dtype=object)))

        return pd.DataFrame(
            {
                "prompting": categorical(self.file, self.promptings),
                "modelname": categorical(self.file, self.models),
                "tuple_ID": pd.Categorical.from_codes(
                    self.tuple_code, dtype=pd.CategoricalDtype(pd.Index(self.tuple_names, dtype=object)),
                    validate=False),
                "problemname": categorical(self.problem_code, self.problem_names),
                "problemsize": self.size,
                "acc": self.acc,
                "bias": self.bias,
            }
        )


def tuple_cells(scored: TupleScores) -> dict[str, list[Any]]:
    """Statistics per (prompting, model, problem, size) cell, cells sorted like pandas sorts the keys."""
    cells, cell_of_row, n_cells = _cell_keys(scored)
    both = group_stats(cell_of_row, np.column_stack([scored.acc, scored.bias]), n_cells)  # one pass for both
    if both is not None:
        acc = GroupStats(count=both.count, mean=both.mean[:, 0], var=both.var[:, 0])
        bias = GroupStats(count=both.count, mean=both.mean[:, 1], var=both.var[:, 1])
    else:
        acc = _pandas_group_stats(cell_of_row, scored.acc)
        bias = _pandas_group_stats(cell_of_row, scored.bias)
    cells["count"] = acc.count.tolist()
    for name, stats in (("acc", acc), ("bias", bias)):
        cells[f"{name}.mean"] = stats.mean.tolist()
        cells[f"{name}.sem"] = stats.sem.tolist()
        cells[f"{name}.var"] = stats.var.tolist()
        cells[f"{name}.std"] = stats.std.tolist()
    return cells


def tuple_cell_counts(scored: TupleScores) -> dict[str, list[Any]]:
    """:func:`tuple_cells`' keys and ``count`` alone (what the scoring warnings need), without the statistics:
    a comparison computes its own, and the two variance passes cost ~60 ms on the full test set. ``count`` is the
    tuples with an accuracy (what both the exact pass and pandas' ``count`` give)."""
    cells, cell_of_row, n_cells = _cell_keys(scored)
    cells["count"] = np.bincount(cell_of_row[~np.isnan(scored.acc)], minlength=n_cells).tolist()
    return cells


def small_unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for integers of a small range by counting, not sorting: the
    ~165k rows of a comparison's tuples fall in a few hundred (model, problem, size) cells, and the two sorts cost
    ~10 ms a comparison. Other values (or a wide range) go through ``np.unique`` itself."""
    flat = np.asarray(values).ravel()
    if flat.dtype.kind not in "iu" or not flat.size:
        uniq, inverse = np.unique(flat, return_inverse=True)
        return uniq, inverse.ravel()
    low, high = int(flat.min()), int(flat.max())
    if high - low > 4 * flat.size + 1024:
        uniq, inverse = np.unique(flat, return_inverse=True)
        return uniq, inverse.ravel()
    shifted = flat.astype(np.int64) - low
    present = np.flatnonzero(np.bincount(shifted, minlength=high - low + 1))
    rank = np.zeros(high - low + 1, dtype=np.intp)
    rank[present] = np.arange(present.size)
    return (present + low).astype(flat.dtype), rank[shifted]


def _cell_keys(scored: TupleScores) -> tuple[dict[str, list[Any]], np.ndarray, int]:
    """Each (prompting, model, problem, size) cell's key columns in pandas' sorted order, each row's cell, and the
    number of cells."""
    p_sorted = sorted(set(scored.promptings))
    m_sorted = sorted(set(scored.models))
    b_sorted = sorted(set(scored.problem_names))
    p_rank = np.array([p_sorted.index(p) for p in scored.promptings], dtype=np.int64)[scored.file]
    m_rank = np.array([m_sorted.index(m) for m in scored.models], dtype=np.int64)[scored.file]
    b_rank = np.array([b_sorted.index(b) for b in scored.problem_names], dtype=np.int64)[scored.problem_code]
    sizes, s_rank = small_unique(scored.size)
    key = ((p_rank * len(m_sorted) + m_rank) * len(b_sorted) + b_rank) * len(sizes) + s_rank
    cell_keys, cell_of_row = small_unique(key)
    s_idx = cell_keys % len(sizes)
    rest = cell_keys // len(sizes)
    b_idx = rest % len(b_sorted)
    rest = rest // len(b_sorted)
    m_idx = rest % len(m_sorted)
    p_idx = rest // len(m_sorted)
    cells: dict[str, list[Any]] = {
        "prompting": [p_sorted[i] for i in p_idx],
        "modelname": [m_sorted[i] for i in m_idx],
        "problemname": [b_sorted[i] for i in b_idx],
        "problemsize": [int(sizes[i]) for i in s_idx],
    }
    return cells, cell_of_row, len(cell_keys)


def _pandas_group_stats(groups: np.ndarray, values: np.ndarray) -> GroupStats:
    """The same statistics from pandas itself (scores off the quarter grid: non-standard tuples)."""
    # deferred: pandas loads only when `_pandas_group_stats` runs (data.worldsense.scoring loads this module without it)
    import pandas as pd

    stats = pd.DataFrame({"g": groups, "v": values}).groupby("g")["v"].agg(["count", "mean", "var"])
    return GroupStats(count=stats["count"].to_numpy(), mean=stats["mean"].to_numpy(), var=stats["var"].to_numpy())


def frame_of_cells(cells: dict[str, list[Any]]) -> pd.DataFrame:
    """The cells as the DataFrame pandas' ``groupby(CELL_KEYS)[["acc", "bias"]].aggregate(CELL_STATS)`` would give."""
    # deferred: pandas loads only when `frame_of_cells` runs (data.worldsense.scoring loads this module without it)
    import pandas as pd

    index = pd.MultiIndex.from_arrays([cells[k] for k in CELL_KEYS], names=CELL_KEYS)
    data = {}
    for value in ("acc", "bias"):
        for stat in CELL_STATS:
            column = cells["count"] if stat == "count" else cells[f"{value}.{stat}"]
            data[(value, stat)] = np.asarray(column, dtype=np.int64 if stat == "count" else np.float64)
    return pd.DataFrame(data, index=index)


@dataclass(frozen=True)
class _TestSetIndex:
    """What every results file is scored against, built once per test set (Key lookup, tuple sizes, gold)."""

    n_tuples: int
    tuple_codes: np.ndarray  # the tuple of each trial row
    first_row: np.ndarray  # each tuple's first trial row (the tuple order of the trial file)
    expected: np.ndarray  # trials a complete tuple has (one per answer option)
    broken: np.ndarray  # tuples that can never be complete
    order: np.ndarray  # trial rows sorted by Key
    sorted_keys: np.ndarray
    class_id: dict[str, int]
    gold_weight: np.ndarray  # per trial row
    gold_class: np.ndarray  # per trial row
    options_sets: list[set[str]]
    file_order: np.ndarray  # tuple codes in the order of their first trial row


def _index_test_set(table: TrialColumns, warn: Callable[[str], None]) -> _TestSetIndex:
    """The test set's lookups; warns once about tuples without one trial per answer option."""
    n_trials = len(table)
    n_tuples = len(table.tuple_names)
    tuple_codes = table.tuple_code.astype(np.int64)
    n_options = np.array([o.count("|") + 1 for o in table.options_names], dtype=np.int64)[table.options_code]
    trials_per_tuple = np.bincount(tuple_codes, minlength=n_tuples)
    first_row = np.full(n_tuples, n_trials, dtype=np.int64)
    np.minimum.at(first_row, tuple_codes, np.arange(n_trials))
    expected = n_options[first_row]
    broken = trials_per_tuple != expected
    if broken.any():
        warn(
            f"{table.name}: {int(broken.sum())} tuple(s) of the test set do not have one trial per answer option "
            f"(e.g. {table.tuple_names[int(np.flatnonzero(broken)[0])]}); they can never be complete and are not scored"
        )
    order = np.argsort(table.key, kind="stable")
    classes = sorted(set(ANSWER_CLASS.values()))
    class_id = {c: i for i, c in enumerate(classes)}
    gold_weight = np.array([GOLD_WEIGHT.get(g, np.nan) for g in table.gold_names], dtype=float)[table.gold_code]
    gold_class = np.array([class_id.get(ANSWER_CLASS.get(g, ""), -2) for g in table.gold_names])[table.gold_code]
    return _TestSetIndex(n_tuples, tuple_codes, first_row, expected, broken, order, table.key[order], class_id,
                         gold_weight, gold_class, [set(o.split("|")) for o in table.options_names],
                         np.argsort(first_row, kind="stable"))


def _first_answers(table: TrialColumns, ix: _TestSetIndex, f: ResultColumns,
                   warn: Callable[[str], None]) -> tuple[np.ndarray, np.ndarray]:
    """Trial rows and answer codes of the file's answers to known Keys, the first answer per trial only."""
    n_trials = len(table)
    if len(f.keys) == n_trials and np.array_equal(f.keys, table.key):
        # Every trial answered once, in trial-file order (the published files): nothing to look up.
        return np.arange(n_trials), f.resp_code
    slot = np.searchsorted(ix.sorted_keys, f.keys)
    slot_ok = slot < n_trials
    found = np.zeros(len(f.keys), dtype=bool)
    found[slot_ok] = ix.sorted_keys[slot[slot_ok]] == f.keys[slot_ok]
    if len(found) and not found.any():
        raise BenchlabError(
            f"none of its {len(found)} Keys is in the test set {table.name!r} (e.g. Key {int(f.keys[0])}): "
            "results for another test set?",
            f.source,
        )
    if not found.all():
        warn(
            f"{f.label}: {int((~found).sum())} answer(s) for Keys not in the test set {table.name!r} "
            f"(e.g. Key {int(f.keys[~found][0])}), ignored"
        )
    pos = ix.order[slot[found]]
    rcode = f.resp_code[found]
    first_answer = np.zeros(len(pos), dtype=bool)
    # The first answer per trial: unique() on positions returns first indexes.
    _, first_idx = np.unique(pos, return_index=True)
    first_answer[first_idx] = True
    if not first_answer.all():
        dup_keys = table.key[pos[~first_answer]]
        warn(
            f"{f.label}: {int((~first_answer).sum())} repeated answer(s) to the same Key (e.g. Key "
            f"{int(dup_keys[0])}); the first answer of each is scored (the original would drop or corrupt "
            "those tuples)"
        )
        pos, rcode = pos[first_answer], rcode[first_answer]
    return pos, rcode


def _answer_lookups(table: TrialColumns, ix: _TestSetIndex, f: ResultColumns, pos: np.ndarray, rcode: np.ndarray,
                    warn: Callable[[str], None]) -> tuple[np.ndarray, np.ndarray]:
    """Answer class and bias sign per distinct answer string; warns about answers that are not options."""
    values = f.resp_values
    # Small lookup tables per distinct answer string, then one fancy-index per row.
    valid_table = np.array([[v in opts for v in values] for opts in ix.options_sets], dtype=bool).reshape(
        len(ix.options_sets), len(values))
    is_empty = np.array([v == "" for v in values], dtype=bool)
    resp_class = np.array([ix.class_id.get(ANSWER_CLASS.get(v, ""), -1) for v in values], dtype=np.int64)
    resp_sign = np.array([BIAS_SIGN.get(v, np.nan) for v in values], dtype=float)
    invalid = ~valid_table[table.options_code[pos], rcode] & ~is_empty[rcode] if len(values) else np.zeros(
        0, dtype=bool)
    if invalid.any():
        example = values[int(rcode[invalid][0])]
        warn(
            f"{f.label}: {int(invalid.sum())} answer(s) are not one of the trial's options (e.g. {example!r}); "
            "scored as wrong, as the original does"
        )
    return resp_class, resp_sign


_FilePart = tuple[np.ndarray, np.ndarray, np.ndarray]  # tuple codes, acc, bias


def _score_file(table: TrialColumns, ix: _TestSetIndex, f: ResultColumns,
                warn: Callable[[str], None]) -> _FilePart | None:
    """The file's complete tuples in trial-file order with acc and bias; None (and a warning) when none is."""
    pos, rcode = _first_answers(table, ix, f, warn)
    resp_class, resp_sign = _answer_lookups(table, ix, f, pos, rcode, warn)
    n_tuples = ix.n_tuples
    codes = ix.tuple_codes[pos]
    answered = np.bincount(codes, minlength=n_tuples)
    complete = (answered == ix.expected) & ~ix.broken
    partial = (answered > 0) & ~complete & ~ix.broken
    if partial.any():
        warn(
            f"{f.label}: {int(partial.sum())} tuple(s) incomplete ({int(answered[partial].sum())} answers), "
            "not scored: every trial of a tuple needs an answer"
        )
    keep = complete[codes]
    pos, rcode, codes = pos[keep], rcode[keep], codes[keep]
    if len(pos) == 0:
        warn(f"{f.label}: no complete tuple, nothing scored for this file")
        return None
    correct = (resp_class[rcode] == ix.gold_class[pos]).astype(float)
    w = ix.gold_weight[pos]
    signed = w * resp_sign[rcode]
    w_sum = np.bincount(codes, weights=w, minlength=n_tuples)
    acc_sum = np.bincount(codes, weights=w * correct, minlength=n_tuples)
    bias_sum = np.bincount(codes, weights=np.where(np.isnan(signed), 0.0, signed), minlength=n_tuples)
    scored = ix.file_order[complete[ix.file_order]]  # tuples in trial-file order
    return scored, acc_sum[scored] / w_sum[scored], bias_sum[scored] / w_sum[scored]


def tuple_scores(table: TrialColumns, files: Sequence[ResultColumns], warn: Callable[[str], None]) -> TupleScores:
    """One row per (prompting, modelname, tuple) with complete answers: acc and bias (spec section 6)."""
    ix = _index_test_set(table, warn)
    parts = [(i, *p) for i, f in enumerate(files)
             if (p := kept_file_scores(table, f, partial(_score_file, table, ix, f), warn)) is not None]
    tuple_code = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    rows = ix.first_row[tuple_code]
    return TupleScores(
        promptings=[f.prompting for f in files],
        models=[f.modelname for f in files],
        tuple_names=table.tuple_names,
        problem_names=table.problem_names,
        file=np.concatenate([np.full(len(p[1]), p[0], dtype=np.int64) for p in parts]) if parts else np.zeros(
            0, dtype=np.int64),
        tuple_code=tuple_code,
        problem_code=table.problem_code[rows].astype(np.int64),
        size=table.size[rows],
        acc=np.concatenate([p[2] for p in parts]) if parts else np.zeros(0),
        bias=np.concatenate([p[3] for p in parts]) if parts else np.zeros(0),
    )
